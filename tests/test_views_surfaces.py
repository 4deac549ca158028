"""Views through the long-lived surfaces and the hooks: `jgm serve` serving several worktrees of one repo, and
the reference-transaction hook reseeding after ref updates no other hook sees (real git, real processes)."""

from __future__ import annotations

import pytest
from api_helpers import Server, seed_in_process
from conftest import Repo

from jupiter_git_memory.git.workspace import find_workspace

pytestmark = pytest.mark.e2e

DB = "Which database stores the application's orders?"


def two_branch_worktrees(repo: Repo, wt):
    """main holds `a-rec`; branch `feature` (checked out in `wt`) replaces it with `f-rec` (the issue's story)."""
    repo.record("a-rec", title="Orders are stored in PostgreSQL", body="The application's orders live in PostgreSQL.")
    repo.commit()
    repo.git("checkout", "-q", "-b", "feature")
    (repo.path / "knowledge/a-rec.md").unlink()
    repo.record("f-rec", title="Orders are stored in MongoDB", body="The application's orders live in MongoDB.")
    repo.commit("feature: switch the orders database")
    repo.git("checkout", "-q", "main")
    repo.git("worktree", "add", "-q", str(wt), "feature")


def test_serve_two_worktrees_of_one_repo_serves_each_its_own_view(repo, tmp_path, jgm_home):
    wt = tmp_path / "wt-feature"
    two_branch_worktrees(repo, wt)
    for path in (repo.path, wt):
        seed_in_process(path, jgm_home)
    wsid = find_workspace(repo.path).id
    server = Server([repo.path, wt, repo.path], jgm_home)  # the same worktree twice is served once
    try:
        assert server.info["workspaces"] == [wsid, f"{wsid}.wt-feature"]
        http = server.client()
        listed = {w["id"]: w for w in http.get("/v1/workspaces").json()["workspaces"]}
        assert {k: (w["root"], w["workspace"]) for k, w in listed.items()} == {
            wsid: (str(repo.path), wsid),
            f"{wsid}.wt-feature": (str(wt), wsid),
        }
        assert listed[wsid]["records"] == listed[f"{wsid}.wt-feature"]["records"] == 1
        for key, own, other, root in (
            (wsid, "a-rec", "f-rec", repo.path),
            (f"{wsid}.wt-feature", "f-rec", "a-rec", wt),
        ):
            got = http.post(f"/v1/workspaces/{key}/recall", json={"query": DB}).json()
            found = [r["id"] for r in got["results"]]
            assert own in found and other not in found, (key, got)
            assert got["receipt"]["index"]["worktree"] == str(root)
            assert http.get(f"/v1/workspaces/{key}/records/{other}").status_code == 404
        assert http.get(f"/v1/workspaces/{wsid}.nope").status_code == 403  # an unknown key is never granted
    finally:
        server.stop()


def test_reference_transaction_hook_reseeds_after_reset_and_commit(repo, monkeypatch):
    """No other hook fires for these; the view follows without a read having to notice it is stale."""
    from hooks_helpers import last_hook_run, snapshot, wait_for
    from test_views import seeded_supersede

    from jupiter_git_memory.freshness import githooks

    first = seeded_supersede(repo)
    githooks.install(repo.path)
    reset = repo.git("reset", "-q", "--hard", "HEAD~1")  # background: git returns before the reseed
    assert reset.stderr == ""
    wait_for(lambda: set(snapshot(repo.path).records) == {"dec-pg"}, what="the reference-transaction reseed")
    assert (
        wait_for(lambda: (last_hook_run(repo.path) or {}).get("finished") and last_hook_run(repo.path))["hook"]
        == "reference-transaction"
    )
    assert snapshot(repo.path).records["dec-pg"].commit_sha == first

    monkeypatch.setenv("JGM_HOOK_SYNC", "1")  # foreground from here: what git returns with is decided
    before = last_hook_run(repo.path)["generation"]
    repo.write("src/app.py", "print('orders')\n")
    repo.commit("code only")  # a commit that moves no record: no reseed
    repo.git("tag", "v1")  # not HEAD or a branch: the shim does not even start Python
    assert last_hook_run(repo.path)["generation"] == before
    repo.record(
        "dec-pg", title="Orders are stored in PostgreSQL 16", body="The application's orders live in PostgreSQL 16."
    )
    second = repo.commit("edit the decision")  # the hook reseeds before git returns (JGM_HOOK_SYNC)
    row = snapshot(repo.path).records["dec-pg"]
    assert (row.title, row.commit_sha, row.dirty) == ("Orders are stored in PostgreSQL 16", second, False)
    assert last_hook_run(repo.path)["generation"] > before
