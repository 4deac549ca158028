"""The candidate service end to end on real repos, the real model and a real Chroma: every decision path,
secrets never stored, run-key idempotency with injected indexing failures, review, revise/forget, CLI."""

from __future__ import annotations

import pytest
from candidates_helpers import (
    CACHE_FACT,
    CACHE_PARAPHRASE,
    RETRY_PARAPHRASE,
    RETRY_RECORD,
    TOKENS_RECORD,
    candidate_rows,
    catalog_generation,
    fact,
    files_containing,
    jgm,
    recall_ids,
    seed_repo,
    service,
)
from cli_helpers import jgm_in, jgm_json_in

from jupiter_git_memory.candidates.errors import CandidateError
from jupiter_git_memory.candidates.model import CandidateInput

pytestmark = pytest.mark.e2e


@pytest.fixture
def seeded(repo):
    seed_repo(repo)
    return repo


def test_created_candidate_keeps_its_kind_but_is_never_in_default_recall(seeded):
    svc = service(seeded)
    a = svc.record(
        CandidateInput(
            "decision",
            "Keep the CLI cold start under one second",
            "Agents call jgm many times per task, so every call must start fast; heavy modules are imported lazily.",
            agent="agent-1",
            session="s1",
            work_item="WI-7",
        )
    )
    assert (a.decision, a.reason_code, a.written, a.indexed) == ("created", "new", True, True)
    assert a.id.startswith("cand-") and len(a.id) == len("cand-") + 12
    row = candidate_rows(seeded)[a.id]
    assert (row.kind, row.declared_status, row.effective_status, row.origin, row.path) == (
        "decision",
        "candidate",
        "candidate",
        "candidate",
        None,
    )
    assert row.data["provenance"] == {"agent": "agent-1", "session": "s1", "work_item": "WI-7"}
    q = "How fast must the jgm command line start?"
    assert a.id not in recall_ids(seeded, q)  # asking for a decision did not make one
    from jupiter_git_memory.recall.service import Recaller

    res = Recaller(seeded.path).recall(q, statuses=["candidate"]).results
    assert res[0]["id"] == a.id and res[0]["status"] == "candidate" and res[0]["why"]["weight"] == 0.8


def test_paraphrase_of_an_open_candidate_is_merged_with_its_evidence(seeded):
    svc = service(seeded)
    first = svc.record(fact(*CACHE_FACT, agent="agent-1", run_key="r1"))
    second = svc.record(
        fact(
            *CACHE_PARAPHRASE,
            agent="agent-2",
            session="s9",
            run_key="r7",
            source="ci/cache.yml",
            evidence=["commit 1a2b3c4"],
            tags=["ci"],
        )
    )
    assert second.decision == "merged" and second.written and second.id == first.id
    assert second.matched["id"] == first.id and second.matched["cos"] >= 0.85
    rows = candidate_rows(seeded)
    assert list(rows) == [first.id]
    ev = rows[first.id].data["evidence"]
    assert [e.get("agent") for e in ev] == ["agent-1", "agent-2"]
    assert ev[1]["title"] == CACHE_PARAPHRASE[0] and ev[1]["evidence"] == ["commit 1a2b3c4"]
    assert rows[first.id].data["tags"] == ["ci"]
    assert rows[first.id].title == CACHE_FACT[0]  # the candidate's own text is unchanged


def test_what_an_accepted_record_already_says_is_skipped_and_nothing_is_written(seeded):
    gen = catalog_generation(seeded)
    a = service(seeded).record(fact(*RETRY_PARAPHRASE, run_key="r1"))
    assert (a.decision, a.reason_code, a.written, a.id) == ("skipped", "duplicate-of-record", False, None)
    assert a.matched["id"] == RETRY_RECORD[0] and a.matched["status"] == "accepted"
    assert candidate_rows(seeded) == {}
    assert catalog_generation(seeded) == gen


def test_a_correction_of_an_accepted_fact_is_created_with_a_warning(seeded):
    a = service(seeded).record(
        fact(
            "API tokens expire after 1 hour",
            "Access tokens issued by the auth service expire after 1 hour; refresh tokens last 7 days.",
            source="auth/config.yaml",
        )
    )
    assert a.decision == "created"
    assert any(TOKENS_RECORD[0] in w and "numbers differ" in w for w in a.warnings), a.warnings


@pytest.mark.parametrize(
    "kw,code",
    [
        (
            {
                "kind": "decision",
                "title": "Switch the cache to Redis",
                "body": "The session cache moves to Redis next sprint.",
            },
            "missing-rationale",
        ),
        (
            {
                "kind": "fact",
                "title": "The cache key has the lockfile",
                "body": "The cache key includes the lockfile hash, always.",
                "source": None,
            },
            "missing-evidence",
        ),
        (
            {
                "kind": "finding",
                "title": "Flaky upload test",
                "body": "fixed it by adding a retry, should work now on CI.",
            },
            "placeholder",
        ),
        (
            {"kind": "fact", "title": "Notes", "body": "Some notes about the CI cache and the lockfile hash here."},
            "too-short",
        ),
    ],
)
def test_rejections_write_nothing(seeded, kw, code):
    gen = catalog_generation(seeded)
    kw = dict(kw)
    a = service(seeded).record(CandidateInput(kw.pop("kind"), kw.pop("title"), kw.pop("body"), **kw, agent="a"))
    assert (a.decision, a.reason_code, a.written, a.ok) == ("rejected", code, False, False)
    assert candidate_rows(seeded) == {} and catalog_generation(seeded) == gen


SECRETS = {
    "github": "ghp_" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa",
    "aws": "AKIA" + "Q7W3E5R7T9Y1U3I5",
    "pem": "-----BEGIN OPENSSH PRIVATE KEY-----",
    "url": "https://ci-bot:" + "hunter2Secretive" + "@git.example.com/org/repo.git",
}


def test_secrets_are_rejected_and_appear_nowhere_in_the_store(seeded, jgm_home):
    svc = service(seeded)
    assert svc.record(fact(*CACHE_FACT)).decision == "created"  # the store has a catalog, vectors and receipts
    for name, secret in SECRETS.items():
        body = f"The deploy job logs in with {secret} before it pushes the image to the registry."
        for dry in (False, True):
            a = svc.record(fact("Deploy job registry login", body, run_key=f"run-{name}"), dry_run=dry)
            assert (a.decision, a.reason_code, a.written) == ("rejected", "secret", False)
            assert secret not in str(a.to_json())
        p = jgm_in(
            "remember",
            "--kind",
            "fact",
            "--title",
            "Deploy job registry login",
            "--body",
            body,
            "--source",
            "deploy.yml",
            "--run-key",
            f"cli-{name}",
            "--repo",
            str(seeded.path),
        )
        assert p.returncode == 1 and "secret" in p.stderr and secret not in p.stdout + p.stderr
        rc, out = jgm_json_in(
            "remember",
            "--dry-run",
            "--kind",
            "fact",
            "--title",
            "Registry login via URL",
            "--body",
            body,
            "--source",
            secret,
            "--repo",
            str(seeded.path),
        )
        assert rc == 1 and out["reason_code"] == "secret" and secret not in str(out)
    # the secret is rejected in revise and reject reasons too
    cid = next(iter(candidate_rows(seeded)))
    with pytest.raises(CandidateError) as e:
        svc.revise(cid, body=f"The registry password is {SECRETS['url']} for the bot account.")
    assert e.value.code == "candidate/secret" and SECRETS["url"] not in e.value.message
    with pytest.raises(CandidateError):
        svc.reject(cid, f"contains {SECRETS['github']}")
    assert files_containing(jgm_home, CACHE_FACT[1])  # the scan does read the catalog it must not find secrets in
    for secret in SECRETS.values():
        assert files_containing(jgm_home, secret) == [], secret
    assert len(candidate_rows(seeded)) == 1


def test_dry_run_answers_like_record_but_writes_nothing(seeded):
    svc = service(seeded)
    first = svc.record(fact(*CACHE_FACT))
    gen = catalog_generation(seeded)
    would_merge = svc.validate(fact(*CACHE_PARAPHRASE, agent="agent-2", run_key="dry"))
    assert (would_merge.decision, would_merge.id, would_merge.dry_run, would_merge.written) == (
        "merged",
        first.id,
        True,
        False,
    )
    assert would_merge.reason.startswith("would be merged")
    assert "would be appended" in would_merge.reason and "were appended" not in would_merge.reason
    assert svc.validate(fact(*RETRY_PARAPHRASE)).decision == "skipped"
    assert (
        svc.validate(
            fact(
                "Uploads are chunked at 8 MiB",
                "The uploader splits files into 8 MiB parts, as measured in `upload_test.py`.",
            )
        ).decision
        == "created"
    )
    assert catalog_generation(seeded) == gen
    assert len(candidate_rows(seeded)[first.id].data["evidence"]) == 1
    # the dry-run did not consume the run key
    assert svc.record(fact(*CACHE_PARAPHRASE, agent="agent-2", run_key="dry")).replayed is False


def test_same_agent_and_run_key_get_the_same_answer_and_never_a_second_candidate(seeded):
    svc = service(seeded)
    a1 = svc.record(fact(*CACHE_FACT, agent="agent-1", run_key="k1"))
    a2 = svc.record(fact(*CACHE_FACT, agent="agent-1", run_key="k1"))
    assert (a2.decision, a2.id, a2.replayed, a2.written, a2.indexed) == ("created", a1.id, True, False, True)
    # the key again with other content is refused, naming the candidate it was used for (issue 23)
    a3 = svc.record(
        fact(
            "Uploads are chunked at 8 MiB parts",
            "The uploader splits files into 8 MiB parts, see `uploader.py`.",
            agent="agent-1",
            run_key="k1",
        )
    )
    assert (a3.decision, a3.reason_code, a3.id, a3.written, a3.ok) == (
        "rejected",
        "run-key-reused",
        a1.id,
        False,
        False,
    )
    assert f"candidate {a1.id}" in a3.reason and a3.matched["id"] == a1.id
    # merged answers replay too
    m1 = svc.record(fact(*CACHE_PARAPHRASE, agent="agent-2", run_key="k1"))
    m2 = svc.record(fact(*CACHE_PARAPHRASE, agent="agent-2", run_key="k1"))
    assert (m1.decision, m2.decision, m2.id, m2.replayed) == ("merged", "merged", a1.id, True)
    rows = candidate_rows(seeded)
    assert list(rows) == [a1.id] and len(rows[a1.id].data["evidence"]) == 2


class IndexDown(RuntimeError):
    pass


@pytest.mark.parametrize("stage", ["after-add", "before-catalog"])
def test_failed_indexing_keeps_a_pending_candidate_that_a_retry_completes(seeded, stage):
    svc = service(seeded)

    def fault(at):
        if at == stage:
            raise IndexDown(f"injected at {at}")

    svc.fault = fault
    a = svc.record(fact(*CACHE_FACT, agent="agent-1", run_key="run-1"))
    assert (a.decision, a.written, a.indexed) == ("created", True, False)
    assert "IndexDown" in a.index_error and "retry" in a.to_json() and a.to_json()["pending"] == "index"
    assert svc.show(a.id)["indexed"] is False and [c["indexed"] for c in svc.list()] == [False]
    # still failing: the retry reports it again, still one candidate
    again = svc.record(fact(*CACHE_FACT, agent="agent-1", run_key="run-1"))
    assert (again.id, again.replayed, again.indexed) == (a.id, True, False) and again.index_error
    svc.fault = None
    done = svc.record(fact(*CACHE_FACT, agent="agent-1", run_key="run-1"))
    assert (done.decision, done.id, done.replayed, done.indexed, done.index_error) == (
        "created",
        a.id,
        True,
        True,
        None,
    )
    assert done.to_json()["pending"] is None
    assert list(candidate_rows(seeded)) == [a.id]
    assert a.id in recall_ids(seeded, "What is the CI cache key made of?", statuses=["candidate"])


def test_a_seed_also_indexes_a_pending_candidate(seeded):
    svc = service(seeded)
    svc.fault = lambda at: (_ for _ in ()).throw(IndexDown(at))
    a = svc.record(fact(*CACHE_FACT, run_key="x"))
    assert a.indexed is False
    p = jgm_in("seed", "--repo", str(seeded.path))
    assert p.returncode == 0, p.stderr
    assert service(seeded).show(a.id)["indexed"] is True
    assert a.id in recall_ids(seeded, "What is the CI cache key made of?", statuses=["candidate"])


def test_reject_keeps_the_reason_and_takes_the_candidate_out_of_the_queue(seeded):
    svc = service(seeded)
    a = svc.record(fact(*CACHE_FACT))
    q = "What is the CI cache key made of?"
    assert a.id in recall_ids(seeded, q, statuses=["candidate"])
    c = svc.reject(a.id, "the cache key also covers the Python version; see ci.yml")
    assert (c["state"], c["effective"], c["reason"]) == (
        "rejected",
        "rejected",
        "the cache key also covers the Python version; see ci.yml",
    )
    assert svc.list() == [] and [x["id"] for x in svc.list("rejected")] == [a.id]
    assert a.id not in recall_ids(seeded, q, statuses=["candidate"])
    assert a.id in recall_ids(seeded, q, statuses=["rejected"])
    with pytest.raises(CandidateError) as e:
        svc.reject(a.id, "again")
    assert e.value.code == "memory/invalid-state"
    with pytest.raises(CandidateError) as e:
        svc.reject(
            svc.record(
                fact(
                    *RETRY_PARAPHRASE[:1],
                    "Other text about uploads and their five retries, see `uploader.py` for the loop.",
                )
            ).id,
            "  ",
        )
    assert e.value.code == "request/missing-reason"
    # a near-duplicate of a rejected candidate is created again, with the reason as a warning
    again = svc.record(fact(*CACHE_PARAPHRASE))
    assert again.decision == "created" and any("Python version" in w for w in again.warnings)


def test_revise_and_forget_work_on_candidates_only(seeded):
    svc = service(seeded)
    a = svc.record(fact(*CACHE_FACT))
    c = svc.revise(
        a.id,
        title="The CI cache key includes the lockfile and Python version",
        body="The CI cache key hashes poetry.lock and the Python version (see `.github/ci.yml`).",
    )
    assert c["title"].endswith("Python version") and c["indexed"] is True
    assert a.id in recall_ids(seeded, "Does the CI cache key depend on the Python version?", statuses=["candidate"])
    with pytest.raises(CandidateError) as e:
        svc.revise(a.id, body="TBD")
    assert e.value.code.startswith("candidate/") and e.value.status == 422
    res = svc.forget(a.id, agent="agent-1")
    assert res == {"id": a.id, "forgotten": True, "state": "open"}
    assert candidate_rows(seeded) == {}
    idx = svc.seeder.open()
    try:
        assert not [i for i in idx.vectors.ids() if i.startswith(a.id)] and not idx.catalog.chunks([a.id])
    finally:
        idx.close()
    for op in (lambda: svc.forget(a.id), lambda: svc.revise("cand-000000000000", title="Some other title here")):
        with pytest.raises(CandidateError) as e:
            op()
        assert e.value.code == "memory/not-found"


DOCS_FACT = ("The docs site is built with mkdocs", "The docs site is built with mkdocs from `docs/`, see `mkdocs.yml`.")


def test_forget_only_an_open_candidate_and_only_by_its_recorder_or_a_reviewer(seeded, cli):
    svc = service(seeded)
    a = svc.record(fact(*CACHE_FACT, run_key="r1"))
    for who in ("agent-2", None):  # another agent, or one naming none ("unknown" as when recording)
        with pytest.raises(CandidateError) as e:
            svc.forget(a.id, agent=who)
        assert (e.value.code, e.value.status, e.value.exit_code) == ("memory/not-owner", 403, 1)
        assert e.value.details["recorded_by"] == "agent-1"
    r = cli("forget", a.id, "--agent", "agent-2", "--json", "--repo", seeded.path)
    assert r.exit_code == 1 and "memory/not-owner" in r.output
    # a rejected candidate is never forgotten, not even by its recorder or a reviewer: the reason stays
    svc.reject(a.id, "the cache key also covers the Python version; see ci.yml")
    for kw in ({"agent": "agent-1"}, {"reviewer": True}):
        with pytest.raises(CandidateError) as e:
            svc.forget(a.id, **kw)
        assert (e.value.code, e.value.status, e.value.exit_code) == ("memory/invalid-state", 409, 1)
        assert "rejected_before" in e.value.message
    r = cli("forget", a.id, "--reviewer", "--json", "--repo", seeded.path)
    assert r.exit_code == 1 and "memory/invalid-state" in r.output
    assert svc.show(a.id)["reason"].startswith("the cache key also covers")
    again = svc.record(fact(*CACHE_FACT, agent="agent-3", run_key="r2"))
    assert again.rejected_before["id"] == a.id and "Python version" in again.rejected_before["reason"]
    # a proposed one has a branch: rejected, not forgotten
    b = svc.record(fact(*DOCS_FACT))
    assert b.decision == "created", b
    svc.mark_proposed(b.id, {"branch": "jgm/proposal", "path": "knowledge/facts/x.md"})
    with pytest.raises(CandidateError) as e:
        svc.forget(b.id, agent="agent-1")
    assert (e.value.code, e.value.details["state"]) == ("memory/invalid-state", "proposed")
    assert {a.id, b.id} <= set(candidate_rows(seeded))
    # its own open candidate: the recorder forgets it (CLI: --agent / JGM_AGENT); a reviewer forgets any
    r = cli("forget", again.id, "--agent", "agent-3", "--json", "--repo", seeded.path)
    assert r.exit_code == 0 and '"forgotten": true' in r.output, r.output
    c = svc.record(fact("Integration tests need Docker", "Integration tests start Postgres in Docker, see `tests/it`."))
    assert svc.forget(c.id, reviewer=True)["forgotten"] is True
    assert set(candidate_rows(seeded)) == {a.id, b.id}


def test_file_backed_records_are_edited_in_git_service_and_cli(seeded):
    svc = service(seeded)
    rid = RETRY_RECORD[0]
    head = seeded.git("rev-parse", "HEAD").stdout.strip()
    for op in (lambda: svc.revise(rid, title="Retry uploads forever"), lambda: svc.forget(rid)):
        with pytest.raises(CandidateError) as e:
            op()
        assert e.value.code == "memory/file-backed" and e.value.status == 409
        assert e.value.details["path"] == f"knowledge/decisions/{rid}.md" and e.value.details["commit"] == head
        assert f"knowledge/decisions/{rid}.md" in e.value.message
    for args in (("revise", rid, "--title", "Retry uploads forever"), ("forget", rid)):
        rc, out = jgm_json_in(*args, "--repo", str(seeded.path))
        assert rc == 4 and out["error"]["code"] == "memory/file-backed"
        assert out["error"]["path"] == f"knowledge/decisions/{rid}.md" and out["error"]["commit"] == head
    p = jgm_in("forget", rid, "--repo", str(seeded.path))
    assert p.returncode == 4 and "memory/file-backed" in p.stderr and f"knowledge/decisions/{rid}.md" in p.stderr
    assert recall_ids(seeded, "How are S3 uploads retried?")[0] == rid  # untouched


def test_cli_remember_and_candidates_list_show(seeded):
    repo = str(seeded.path)
    p = jgm_in(
        "remember",
        "--kind",
        "fact",
        "--title",
        CACHE_FACT[0],
        "--body-file",
        "-",
        "--source",
        "ci.yml",
        "--agent",
        "cli-agent",
        "--run-key",
        "c1",
        "--tag",
        "ci",
        "--repo",
        repo,
        input=CACHE_FACT[1],
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("created cand-") and "not a project rule" in p.stdout
    cid = p.stdout.split()[1].rstrip(":")
    rc, again = jgm_json_in(
        "remember",
        "--kind",
        "fact",
        "--title",
        CACHE_FACT[0],
        "--body",
        CACHE_FACT[1],
        "--source",
        "ci.yml",
        "--agent",
        "cli-agent",
        "--run-key",
        "c1",
        "--repo",
        repo,
    )
    assert rc == 0 and again["id"] == cid and again["replayed"] is True
    rc, listing = jgm_json_in("candidates", "list", "--repo", repo)
    assert rc == 0 and [c["id"] for c in listing["candidates"]] == [cid]
    assert listing["candidates"][0]["provenance"] == {"agent": "cli-agent", "run_key": "c1"}
    p = jgm_in("candidates", "show", cid, "--repo", repo)
    assert p.returncode == 0 and CACHE_FACT[1] in p.stdout and "agent: cli-agent" in p.stdout.splitlines()
    p = jgm_in("candidates", "reject", cid, "--why", "already in ci.yml comments", "--repo", repo)
    assert p.returncode == 0 and "already in ci.yml comments" in p.stdout
    rc, listing = jgm_json_in("candidates", "list", "--state", "rejected", "--repo", repo)
    assert listing["candidates"][0]["reason"] == "already in ci.yml comments"
    rc, out = jgm_json_in("candidates", "show", "cand-ffffffffffff", "--repo", repo)
    assert rc == 2 and out["error"]["code"] == "memory/not-found"


def test_concurrent_retries_of_one_run_key_make_one_candidate(seeded):
    """Two processes send the same (agent, run key) at once: the lock makes one create and the other replay.
    Real processes (the console script): the candidate commands' process-boundary test."""
    import concurrent.futures
    import json

    args = [
        "remember",
        "--kind",
        "fact",
        "--title",
        CACHE_FACT[0],
        "--body",
        CACHE_FACT[1],
        "--source",
        "ci.yml",
        "--agent",
        "racer",
        "--run-key",
        "same",
        "--json",
        "--repo",
        str(seeded.path),
    ]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        outs = [json.loads(p.stdout) for p in pool.map(lambda _: jgm(*args), range(2))]
    assert outs[0]["id"] == outs[1]["id"] and sorted(o["replayed"] for o in outs) == [False, True]
    assert list(candidate_rows(seeded)) == [outs[0]["id"]]
