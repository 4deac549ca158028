"""`jgm doctor`: every disagreement between catalog, Chroma and files is named; --repair fixes it.

Faults are injected by writing to the real stores behind the product's back (what a crash, a manual
edit or a bug would leave); everything else is real: git repos, the model, Chroma, the CLI (in process).
"""

import json

import pytest
from cli_helpers import jgm_in, jgm_json_in
from helpers import seeded as seed_records
from reliability_helpers import assert_consistent, problems_by_check, snapshot

from jupiter_git_memory.index.vectors import reset_clients
from jupiter_git_memory.maintenance import doctor
from jupiter_git_memory.seed.seeder import Seeder

pytestmark = pytest.mark.e2e


def seeded(repo, n=4):
    records = {
        f"dec-{i}": {"title": f"Decision {i} on caching", "body": f"We cache layer {i} results for ten minutes."}
        for i in range(n)
    }
    records["fact-1"] = {
        "kind": "fact",
        "status": "verified",
        "title": "CI runs on Python 3.12",
        "body": "The CI matrix includes Python 3.12.",
    }
    return seed_records(repo, records)


def tamper(s: Seeder, fn):
    """Run fn(index) with the real index open, outside the product's write path (fault injection)."""
    reset_clients()
    idx = s.open()
    try:
        fn(idx)
    finally:
        idx.close()
        reset_clients()


def test_fresh_seed_is_consistent_and_cli_exits_zero(repo):
    seeded(repo)
    assert_consistent(repo.path, {"dec-0", "dec-1", "dec-2", "dec-3", "fact-1"})
    rc, data = jgm_json_in("doctor", cwd=repo.path)
    assert rc == 0 and data["ok"] is True and data["problems"] == []
    assert data["counts"] == {
        "records": 5,
        "chunks": 5,
        "vectors": 5,
        "files": 5,
        "drifted": 0,
        "evidence_missing": 0,
    }


def test_never_seeded_is_reported(repo):
    repo.record("dec-0")
    repo.commit()
    checks = problems_by_check(repo.path)
    assert "never-seeded" in checks and checks["record-not-indexed"].ids == ["dec-0"]


def test_vector_side_faults_are_each_named_then_repaired(repo, embedder):
    s = seeded(repo)
    snap = snapshot(repo.path)
    victim = next(c for c in snap["chunks"].values() if c.record_id == "dec-1").id
    mislabeled = next(c for c in snap["chunks"].values() if c.record_id == "dec-2").id

    def inject(idx):
        idx.vectors.add(
            ["ghost#0000"],
            embedder.embed_passages(["orphan text"]),
            [
                {
                    "record_id": "ghost",
                    "kind": "decision",
                    "status": "accepted",
                    "path": "",
                    "commit": "",
                    "origin": "file",
                    "ordinal": 0,
                }
            ],
        )
        idx.vectors.delete([victim])
        idx.vectors.update_metadata([mislabeled], [{"record_id": "dec-3"}])
        idx.catalog._db.execute(  # fault injection: raw SQL on purpose
            "INSERT INTO chunk_store VALUES('nobody#1','nobody','h','t','b')"
        )

    tamper(s, inject)
    checks = problems_by_check(repo.path)
    assert checks["orphan-vectors"].ids == ["ghost#0000"]
    assert checks["missing-vectors"].ids == [victim]
    assert checks["metadata-mismatch"].ids == [mislabeled]
    assert checks["chunks-without-record"].ids == ["nobody#1"]
    rc, data = jgm_json_in("doctor", cwd=repo.path)
    assert rc == 1 and data["ok"] is False
    assert {p["check"] for p in data["problems"]} == {
        "orphan-vectors",
        "missing-vectors",
        "metadata-mismatch",
        "chunks-without-record",
    }
    text = jgm_in("doctor", cwd=repo.path)
    assert text.returncode == 1 and "ghost#0000" in text.stderr and "INCONSISTENT: 4 problems" in text.stdout
    rc, data = jgm_json_in("doctor", "--repair", cwd=repo.path)
    assert rc == 0 and data["repaired"] is True and data["after"]["problems"] == []
    assert data["repair"]["metadata_fixed"] == 1 and data["repair"]["deleted_dangling_chunks"] == 1
    assert data["repair"]["seed"]["embedded_chunks"] == 1  # only the missing vector was re-embedded
    snap = assert_consistent(repo.path)
    assert snap["vectors"][mislabeled]["record_id"] == "dec-2"
    ids = [
        r["id"] for r in json.loads(jgm_in("recall", "caching decision 1", "--json", cwd=repo.path).stdout)["results"]
    ]
    assert "dec-1" in ids


def test_file_side_drift_is_reported_by_path(repo):
    s = seeded(repo)
    repo.record("dec-0", title="Decision 0 on caching", body="Changed: we now cache for an hour.")
    repo.record("dec-9", title="A new decision", body="Never seeded.")
    (repo.path / "knowledge/dec-3.md").unlink()
    repo.record("fact-1", kind="fact", status="false", title="CI runs on Python 3.12", body="It does not.")
    checks = problems_by_check(repo.path)
    assert checks["record-not-indexed"].path == "knowledge/dec-9.md"
    assert checks["record-without-file"].ids == ["dec-3"]
    stale = [p for p in doctor.diagnose(repo.path).problems if p.check == "record-stale"]
    assert {(p.ids[0], p.path) for p in stale} == {("dec-0", "knowledge/dec-0.md"), ("fact-1", "knowledge/fact-1.md")}
    s.seed()
    assert_consistent(repo.path, {"dec-0", "dec-1", "dec-2", "dec-9", "fact-1"})


def test_status_drift_from_lifecycle_is_reported(repo):
    s = seeded(repo)

    def relabel(idx):  # the catalog claims an effective status the files do not give
        idx.catalog._db.execute(  # fault injection: raw SQL on purpose
            "UPDATE view_records SET effective='superseded' WHERE id='dec-1'"
        )

    tamper(s, relabel)
    checks = problems_by_check(repo.path)
    assert checks["status-stale"].ids == ["dec-1"] and checks["status-stale"].path == "knowledge/dec-1.md"
    rc, data = jgm_json_in("doctor", "--repair", cwd=repo.path)
    assert rc == 0 and data["after"]["ok"] is True


def test_identity_mismatch_is_reported_and_repair_rebuilds(repo):
    s = seeded(repo)

    def swap(idx):
        ident = dict(idx.identity, chunker="some-other-chunker")
        idx.catalog._db.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)",  # fault injection
            ("identity", json.dumps(ident, sort_keys=True)),
        )

    tamper(s, swap)
    checks = problems_by_check(repo.path)
    assert "identity-mismatch" in checks
    rc, data = jgm_json_in("doctor", "--repair", cwd=repo.path)
    assert rc == 0 and data["repair"]["rebuilt"] is True and data["repair"]["seed"]["embedded_chunks"] == 5
    assert_consistent(repo.path)


def test_a_file_turned_bad_keeps_its_last_good_record_and_is_not_a_problem(repo):
    s = seeded(repo)
    repo.write("knowledge/dec-1.md", "---\nid: dec-1\nkind: decision\nstatus: approved\ntitle: t\n---\nbody\n")
    rep = s.seed()
    assert [e["path"] for e in rep.errors] == ["knowledge/dec-1.md"]
    snap = assert_consistent(repo.path)
    assert snap["records"]["dec-1"].error and "approved" in snap["records"]["dec-1"].error


def test_repair_without_problems_changes_nothing(repo):
    seeded(repo)
    before = snapshot(repo.path)
    rc, data = jgm_json_in("doctor", "--repair", cwd=repo.path)
    assert rc == 0 and "repair" not in data
    after = snapshot(repo.path)
    assert set(after["vectors"]) == set(before["vectors"]) and after["records"].keys() == before["records"].keys()
