"""One failure, one code, on every surface: JgmErrors pass through the candidate service unwrapped, a bad
revision is `revision/not-found` for `seed --rev` as for `recall --at`, and a record read on a store never
seeded says so instead of `not-found` (dec-not-seeded-is-not-no-match)."""

from __future__ import annotations

import json

from api_helpers import Server, error_code, mcp_run, workspace_id
from helpers import jgm

from jupiter_git_memory.seed.seeder import Seeder

OBSERVATION = {
    "kind": "fact",
    "title": "Measured the cache hit rate today",
    "body": "The cache hit rate measured in cache.py is ninety percent because the cache is warm at noon.",
}


def _seed(repo) -> None:
    repo.write("jgm.toml", 'roots = ["knowledge"]\n')
    repo.record("dec-a", title="Decision a about the cache", body="We cache the session because it is slow.")
    repo.commit()
    Seeder(repo.path).seed()


def test_api_a_broken_config_is_config_invalid_for_candidates_as_for_seed_and_unseeded_reads_say_so(
    make_repo, jgm_home
):
    seeded, blank = make_repo("seeded"), make_repo("blank")
    _seed(seeded)
    blank.record("dec-b", title="Decision b about the queue", body="The queue keeps jobs because retries.")
    blank.commit()  # never seeded into this store
    server = Server([seeded.path, blank.path], jgm_home)
    try:
        with server.client() as c:
            a, b = f"/v1/workspaces/{workspace_id(seeded.path)}", f"/v1/workspaces/{workspace_id(blank.path)}"
            r = c.get(b + "/records/dec-b")
            assert r.status_code == 409 and error_code(r) == "memory/not-seeded", r.text
            assert str(jgm_home) in r.json()["error"]["message"] and "jgm seed" in r.json()["error"]["message"]
            r = c.get(b + "/records/dec-b/relations")
            assert r.status_code == 409 and error_code(r) == "memory/not-seeded", r.text
            r = c.get(a + "/records/dec-nope")  # seeded: a missing id is a plain not-found
            assert r.status_code == 404 and error_code(r) == "memory/not-found", r.text
            r = c.post(a + "/recall", json={"query": "cache", "at": "nope"})
            assert r.status_code == 404 and error_code(r) == "revision/not-found", r.text
            seeded.write("jgm.toml", 'roots = ["knowledge"\n')  # broken TOML
            r = c.post(a + "/seed")
            assert r.status_code == 422 and error_code(r) == "config/invalid", r.text
            for route in ("/candidates", "/candidates/validate"):
                r = c.post(a + route, json=OBSERVATION)
                assert r.status_code == 422 and error_code(r) == "config/invalid", (route, r.text)
                assert "jgm.toml" in r.json()["error"]["message"]
    finally:
        server.stop()


def test_mcp_a_broken_config_and_an_unseeded_read_keep_their_codes(make_repo, jgm_home):
    repo = make_repo("blank")
    repo.record("dec-b", title="Decision b about the queue", body="The queue keeps jobs because retries.")
    repo.commit()

    async def session(client):
        got = await client.call_tool("get_record", {"id": "dec-b"})
        repo.write("jgm.toml", 'roots = ["knowledge"\n')  # broken while the server runs
        cand = await client.call_tool("record_candidate", OBSERVATION)
        return [(r.is_error, " ".join(getattr(x, "text", "") for x in r.content)) for r in (got, cand)]

    (got_err, got), (cand_err, cand) = mcp_run(session, jgm_home, repo)
    assert got_err and "[memory/not-seeded]" in got, got
    assert cand_err and "[config/invalid]" in cand and "jgm.toml" in cand, cand


def test_cli_a_bad_revision_is_revision_not_found_for_seed_and_recall(repo):
    _seed(repo)
    for args in (("seed", "--rev", "nope"), ("recall", "cache", "--at", "nope")):
        p = jgm(*args, "--repo", str(repo.path), "--json")
        body = json.loads(p.stdout)
        assert p.returncode == 2 and body["error"]["code"] == "revision/not-found", (args, p.stdout, p.stderr)
        assert "'nope' is not a commit" in body["error"]["message"]
        p = jgm(*args, "--repo", str(repo.path))
        assert p.returncode == 2 and "error [revision/not-found]" in p.stderr and "Traceback" not in p.stderr
