"""Views: each worktree answers from its own checkout, `--at` from a commit, and shared vectors stay shared.

Real git worktrees and history, the real model and Chroma; no hook is installed, so freshness comes from
the stale-view check on read.
"""

from __future__ import annotations

import pytest
from cli_helpers import jgm_in

from jupiter_git_memory.index.handle import open_index
from jupiter_git_memory.maintenance.doctor import diagnose
from jupiter_git_memory.recall.service import Recaller
from jupiter_git_memory.seed.seeder import Seeder

pytestmark = pytest.mark.integration

DB = "Which database stores the application's orders?"


def ids(path, query=DB, **kw) -> list[str]:
    r = Recaller(path)
    try:
        return [x["id"] for x in r.recall(query, **kw).results]
    finally:
        r.close()


def test_two_worktrees_on_different_branches_recall_their_own_records(repo, tmp_path):
    repo.record("a-rec", title="Orders are stored in PostgreSQL", body="The application's orders live in PostgreSQL.")
    repo.record("shared", title="Release notes are written by hand", body="Every release gets hand-written notes.")
    repo.commit()
    Seeder(repo.path).seed()
    repo.git("checkout", "-q", "-b", "feature")
    (repo.path / "knowledge/a-rec.md").unlink()
    repo.record("f-rec", title="Orders are stored in MongoDB", body="The application's orders live in MongoDB.")
    repo.commit("feature: switch the orders database")
    repo.git("checkout", "-q", "main")
    wt = tmp_path / "wt"
    repo.git("worktree", "add", "-q", str(wt), "feature")
    report = Seeder(wt).seed()  # what the post-checkout hook runs in the new worktree
    assert report.added == ["f-rec", "shared"] and report.embedded_chunks == 1  # `shared` reuses main's vector
    assert "a-rec" in ids(repo.path) and "f-rec" not in ids(repo.path)  # seeding wt changed nothing in main
    assert "f-rec" in ids(wt) and "a-rec" not in ids(wt)
    for path in (repo.path, wt):
        d = diagnose(path)
        assert d.ok, [p.render() for p in d.problems]


def test_removing_a_worktree_loses_nothing_another_uses(repo, tmp_path):
    repo.record("kept", title="Orders are stored in PostgreSQL", body="The application's orders live in PostgreSQL.")
    repo.commit()
    main = Seeder(repo.path)
    main.seed()
    wt = tmp_path / "wt"
    repo.git("worktree", "add", "-q", "-b", "side", str(wt))
    (wt / "knowledge/only-side.md").write_text(
        "---\nid: only-side\nkind: fact\nstatus: verified\n"
        "title: Side branch uses a queue\n---\nThe side branch adds a queue.\n"
    )
    Seeder(wt).seed()
    repo.git("worktree", "remove", "--force", str(wt))
    r = main.seed()  # prunes the removed worktree's view
    assert r.embedded_chunks == 0 and r.deleted_vectors == 1  # only-side's vector goes; kept's stays
    assert ids(repo.path) == ["kept"]
    d = diagnose(repo.path)
    assert d.ok and d.counts["vectors"] == 1, [p.render() for p in d.problems]


def superseded_after_tag(repo, tag: str) -> None:
    """dec-old committed and tagged `tag`, then superseded by dec-new in the next commit; seeded."""
    repo.record("dec-old", title="Orders are stored in PostgreSQL", body="The application's orders live in PostgreSQL.")
    repo.commit()
    repo.git("tag", tag)
    repo.record(
        "dec-new",
        title="Orders are stored in MongoDB",
        body="The application's orders live in MongoDB.",
        supersedes="dec-old",
    )
    repo.commit("supersede")
    Seeder(repo.path).seed()


def test_at_before_a_supersede_returns_the_old_decision_in_force(repo):
    superseded_after_tag(repo, "v1.4")
    assert ids(repo.path)[0] == "dec-new" and "dec-old" not in ids(repo.path)
    r = Recaller(repo.path)
    try:
        then = r.recall(DB, at="v1.4")
        got = {x["id"]: x["status"] for x in then.results}
        assert got == {"dec-old": "accepted"}
        assert then.receipt["index"]["at"] == repo.git("rev-parse", "v1.4").stdout.strip()
        idx = open_index(r.workspace, r.identity)
        try:
            assert idx.vectors.count() == 2  # the commit's record was embedded once, for both views
        finally:
            idx.close()
        # the worktree's own answer is unchanged by the `--at` view
        assert [x["id"] for x in r.recall(DB).results][0] == "dec-new"
        with pytest.raises(ValueError, match="'no-such-tag' is not a commit"):
            r.recall(DB, at="no-such-tag")
    finally:
        r.close()


def test_at_views_beyond_the_bound_are_evicted_least_recently_used_first(repo):
    repo.write("jgm.toml", "at_views = 2\n")
    shas = []
    for i in range(3):
        repo.record(f"dec-{i}", title=f"Orders are stored in database number {i}", body=f"Orders store, version {i}.")
        shas.append(repo.commit())
    Seeder(repo.path).seed()
    r = Recaller(repo.path)
    try:
        for sha in (shas[0], shas[1], shas[0], shas[2]):  # using shas[0] again makes shas[1] the least recent
            assert r.recall(DB, at=sha).receipt["index"]["at"] == sha
        views = r.index().catalog.views()
        assert sorted(v["name"] for v in views if v["kind"] == "at") == sorted(f"at:{s}" for s in (shas[0], shas[2]))
        assert [v["root"] for v in views if v["kind"] == "worktree"] == [str(repo.path)]
        assert {x["id"] for x in r.recall(DB, at=shas[1]).results} <= {"dec-0", "dec-1"}  # rebuilt on demand
    finally:
        r.close()
    d = diagnose(repo.path)
    assert d.ok, [p.render() for p in d.problems]


def seeded_supersede(repo) -> str:
    """dec-pg committed, then superseded by dec-mongo in a second commit, seeded; returns the first commit."""
    repo.record("dec-pg", title="Orders are stored in PostgreSQL", body="The application's orders live in PostgreSQL.")
    first = repo.commit()
    repo.record(
        "dec-mongo",
        title="Orders are stored in MongoDB",
        body="The application's orders live in MongoDB.",
        supersedes="dec-pg",
    )
    repo.commit()
    Seeder(repo.path).seed()
    return first


def test_reset_hard_then_recall_answers_from_the_new_head(repo):
    first = seeded_supersede(repo)
    assert ids(repo.path)[0] == "dec-mongo"
    repo.git("reset", "-q", "--hard", "HEAD~1")  # no hook fires for a reset
    r = Recaller(repo.path)
    try:
        res = r.recall(DB)
        assert [x["id"] for x in res.results] == ["dec-pg"]
        assert res.results[0]["status"] == "accepted"
        assert res.receipt["index"]["commit"] == first and res.receipt["index"]["worktree"] == str(repo.path)
    finally:
        r.close()


def test_a_store_made_before_views_migrates_without_reembedding(tmp_path, jgm_home):
    """tests/fixtures/store-v1.tar.gz was made by the pre-views code (see tests/fixtures/v1_store.py)."""
    import sqlite3
    import sys
    import tarfile
    from pathlib import Path

    from jupiter_git_memory.candidates.service import CandidateService

    sys.path.insert(0, str(Path(__file__).parent / "fixtures"))
    import v1_store

    repo = tmp_path / "repo"
    v1_store.make_repo(repo)
    with tarfile.open(Path(__file__).parent / "fixtures/store-v1.tar.gz") as tar:
        # Python before 3.11.4 (Debian 12 ships 3.11.2) has no extraction filters; the archive is ours
        tar.extractall(jgm_home / "workspaces", **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    (wsdir,) = (jgm_home / "workspaces").iterdir()
    db = sqlite3.connect(wsdir / "catalog.sqlite")
    assert db.execute("PRAGMA user_version").fetchone()[0] == 0  # really a v1 store
    (receipt_id,) = db.execute("SELECT id FROM receipts").fetchone()
    db.close()
    report = Seeder(repo).seed()
    assert sorted(report.added) == sorted(r.split("/")[-1][:-3] for r in v1_store.RECORDS)
    assert report.embedded_chunks == 0  # every vector of the old store is reused
    got = Recaller(repo).recall("Which database stores the orders?")
    assert [r["id"] for r in got.results][:1] == ["dec-orders-mongo"]
    assert "dec-orders-postgres" not in [r["id"] for r in got.results]
    assert [c["title"] for c in CandidateService(repo).list()] == [v1_store.CANDIDATE_TITLE]
    r = Recaller(repo)
    try:
        from jupiter_git_memory.recall.receipts import get_receipt

        assert get_receipt(r.index().catalog, receipt_id)["query"] == "Which database stores the orders?"
    finally:
        r.close()
    d = diagnose(repo)
    assert d.ok and d.counts["vectors"] == 4, [p.render() for p in d.problems]  # 3 records + the candidate


@pytest.mark.e2e
def test_cli_recall_at_a_tag_and_its_receipt_replays_on_that_commit(repo):
    import json

    superseded_after_tag(repo, "v1")
    p = jgm_in("recall", DB, "--at", "v1", "--json", cwd=repo.path)
    got = json.loads(p.stdout)
    assert [(r["id"], r["status"]) for r in got["results"]] == [("dec-old", "accepted")], p.stderr
    v = jgm_in("receipt", "verify", got["receipt"]["id"], "--json", cwd=repo.path)
    assert v.returncode == 0 and json.loads(v.stdout)["new_ids"] == ["dec-old"]


def test_a_candidate_promoted_on_a_branch_stays_in_review_in_other_worktrees(repo, tmp_path):
    """Promotion is per view: the proposal branch checked out in a review worktree promotes the candidate
    there, not in main (where the file is not merged yet), and main's seeds do not take it back there."""
    from candidates_helpers import recall_ids, seed_repo

    from jupiter_git_memory.candidates.errors import CandidateError
    from jupiter_git_memory.candidates.model import CandidateInput
    from jupiter_git_memory.candidates.propose import propose
    from jupiter_git_memory.candidates.service import CandidateService

    seed_repo(repo)
    svc = CandidateService(repo.path)
    q = "Which Python version does CI use?"
    a = svc.record(
        CandidateInput(
            "decision",
            "Pin the Python version in CI to 3.12",
            "CI runs on Python 3.12 only, because the ONNX wheels are built for it.",
            agent="a",
        )
    )
    res = propose(svc, a.id, status="accepted")
    wt = tmp_path / "review"
    repo.git("worktree", "add", "-q", str(wt), res["branch"])
    Seeder(wt).seed()
    in_wt = CandidateService(wt)
    assert (in_wt.show(a.id)["state"], in_wt.show(a.id)["promoted_to"]) == ("promoted", res["record_id"])
    assert svc.show(a.id)["state"] == "proposed"  # main has not merged it
    assert a.id in recall_ids(repo, q, statuses=["candidate"]) and [c["id"] for c in svc.list()] == [a.id]
    Seeder(repo.path).seed()
    assert in_wt.show(a.id)["state"] == "promoted" and in_wt.list() == []
    repo.git("merge", "-q", "--no-ff", res["branch"], "-m", "Merge candidate PR")
    Seeder(repo.path).seed()
    assert svc.show(a.id)["state"] == "promoted" and recall_ids(repo, q)[0] == res["record_id"]
    with pytest.raises(CandidateError) as e:  # a promoted candidate is its record's history: kept
        svc.forget(a.id, agent="a")
    assert e.value.code == "memory/invalid-state"
    b = svc.record(
        CandidateInput("fact", "The docs site is built with mkdocs", "Built from `docs/` by `mkdocs.yml`.", agent="b")
    )
    assert CandidateService(wt).exists(b.id)
    svc.forget(b.id, agent="b")  # forgetting a candidate forgets it in every view
    assert not CandidateService(wt).exists(b.id)
    for path in (repo.path, wt):
        d = diagnose(path)
        assert d.ok, [p.render() for p in d.problems]
