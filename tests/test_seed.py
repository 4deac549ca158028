"""Incremental seeding against real git repos, the real model and embedded Chroma."""

import pytest

from jupiter_git_memory.index.handle import open_index
from jupiter_git_memory.records.formats import NOT_A_RECORD
from jupiter_git_memory.seed.seeder import Seeder

pytestmark = pytest.mark.unit


def index_state(seeder: Seeder):
    idx = seeder.open()
    try:
        recs = idx.catalog.records()
        chroma = idx.vectors.ids()
        chunks = idx.catalog.chunk_ids()
        return recs, chroma, chunks
    finally:
        idx.close()


def test_cold_seed_then_noop_embeds_nothing(repo):
    repo.record("DEC-1", title="Use Chroma", body="We use Chroma for vectors.")
    repo.record("FACT-1", kind="fact", status="verified", title="CI uses 3.11", body="The CI runs Python 3.11.")
    head = repo.commit()
    s = Seeder(repo.path)
    r1 = s.seed()
    assert sorted(r1.added) == ["DEC-1", "FACT-1"] and r1.embedded_chunks == 2 and r1.commit == head
    assert not r1.dirty and r1.errors == []
    r2 = s.seed()
    assert (r2.added, r2.updated, r2.removed, r2.unchanged, r2.embedded_chunks) == ([], [], [], 2, 0)
    assert r2.deleted_vectors == 0
    recs, chroma, chunks = index_state(s)
    assert chroma == chunks and len(chunks) == 2
    assert recs["DEC-1"].commit_sha == head and recs["DEC-1"].dirty is False


def test_change_delete_add_counts(repo):
    repo.record("A", body="Alpha body.")
    repo.record("B", body="Beta body.")
    repo.commit()
    s = Seeder(repo.path)
    s.seed()
    repo.record("A", body="Alpha body, now changed.")
    (repo.path / "knowledge/B.md").unlink()
    repo.record("C", body="Gamma body.")
    r = s.seed()
    assert r.updated == ["A"] and r.removed == ["B"] and r.added == ["C"]
    assert r.embedded_chunks == 2 and r.deleted_vectors == 2  # old A chunk + B chunk
    recs, chroma, chunks = index_state(s)
    assert set(recs) == {"A", "C"} and chroma == chunks and len(chunks) == 2
    assert recs["A"].dirty and recs["C"].commit_sha is None  # uncommitted edits are flagged


def test_move_same_content_is_not_reembedded(repo):
    repo.record("A", rel="knowledge/old/A.md", body="Alpha body.")
    repo.commit()
    s = Seeder(repo.path)
    s.seed()
    repo.git("mv", "knowledge/old", "knowledge/new")
    repo.commit("move")
    r = s.seed()
    assert r.updated == ["A"] and r.embedded_chunks == 0 and r.deleted_vectors == 0
    recs, chroma, chunks = index_state(s)
    assert recs["A"].path == "knowledge/new/A.md" and chroma == chunks
    assert s.seed().unchanged == 1  # the stored parse of those bytes names the old path: the view's path wins
    assert index_state(s)[0]["A"].path == "knowledge/new/A.md"


def test_supersede_changes_the_view_not_the_vector(repo):
    repo.record("OLD", body="Old way.")
    repo.commit()
    s = Seeder(repo.path)
    s.seed()
    repo.record("NEW", body="New way.", supersedes="OLD")
    r = s.seed()
    assert r.added == ["NEW"] and r.updated == ["OLD"] and r.embedded_chunks == 1
    idx = s.open()
    try:
        assert idx.catalog.record("OLD").effective_status == "superseded"
        metas = idx.vectors.col.get(where={"record_id": "OLD"}, include=["metadatas"])["metadatas"]
        assert metas and all("status" not in m for m in metas)  # status is per view: in the catalog only
    finally:
        idx.close()


def test_errors_reported_and_good_files_indexed(repo):
    repo.record("GOOD", body="fine")
    repo.write("knowledge/bad.md", "---\nid: BAD\nkind: decision\nstatus: approved\ntitle: t\n---\n")
    repo.write("knowledge/notes.md", "# no frontmatter\n")
    repo.write("knowledge/image.png", b"\x89PNG\x00\x00")
    repo.commit()
    r = Seeder(repo.path).seed()
    assert r.added == ["GOOD"]
    assert [(e["path"], e["line"]) for e in r.errors] == [("knowledge/bad.md", 4)]
    assert r.skipped == [{"path": "knowledge/notes.md", "reason": NOT_A_RECORD}]  # not numbered/dated: no ADR


def test_broken_edit_keeps_last_good_record(repo):
    repo.record("KEEP", body="Keep this rule.")
    repo.commit()
    s = Seeder(repo.path)
    s.seed()
    repo.write("knowledge/KEEP.md", "---\nid: KEEP\nkind: decision\nstatus: [oops\ntitle: t\n---\n")
    r = s.seed()
    assert r.errors and r.errors[0]["path"] == "knowledge/KEEP.md"
    recs, chroma, chunks = index_state(s)
    assert "KEEP" in recs and recs["KEEP"].error and "not valid YAML" in recs["KEEP"].error
    assert chroma == chunks and len(chunks) == 1
    repo.record("KEEP", body="Keep this rule, fixed.")
    r = s.seed()
    recs, _, _ = index_state(s)
    assert r.updated == ["KEEP"] and recs["KEEP"].error is None


def test_seed_rev_reads_git_objects_not_worktree(repo):
    repo.record("A", body="first")
    first = repo.commit()
    repo.record("B", body="second")
    repo.commit()
    repo.record("C", body="uncommitted")  # only in the working tree
    r = Seeder(repo.path).seed(rev=first)
    assert r.added == ["A"] and r.commit == first and not r.dirty
    assert (repo.path / "knowledge/C.md").exists()  # working tree untouched
    assert repo.git("status", "--porcelain").stdout.strip() == "?? knowledge/C.md"


def test_rev_unknown_is_clear_error(repo):
    repo.record("A")
    repo.commit()
    with pytest.raises(ValueError, match="not a commit"):
        Seeder(repo.path).seed(rev="nope")


def test_identity_refusal_and_rebuild(repo, minilm_dir):
    from jupiter_git_memory.embedding import registry
    from jupiter_git_memory.index.vectors import IdentityMismatch

    repo.record("A", body="alpha")
    repo.commit()
    Seeder(repo.path).seed()
    # a real second model identity: the same MiniLM files registered with CLS pooling
    registry.add_model("minilm-cls", minilm_dir, pooling="cls", dimension=384)
    (repo.path / "jgm.toml").write_text('model = "minilm-cls"\n')
    other = Seeder(repo.path)
    with pytest.raises(IdentityMismatch) as e:
        other.seed()
    msg = str(e.value)
    assert "jgm seed --rebuild" in msg and "mean" in msg and "cls" in msg
    r = other.seed(rebuild=True)
    assert r.embedded_chunks == 1 and r.unchanged == 1
    idx = open_index(other.workspace, other.identity)
    try:
        assert idx.vectors.count() == 1 and idx.vectors.col.metadata["jgm_identity"] != ""
    finally:
        idx.close()


def test_worktrees_share_workspace(repo, tmp_path):
    repo.record("A")
    repo.commit()
    wt = tmp_path / "wt"
    repo.git("worktree", "add", "-q", str(wt), "-b", "side")
    assert Seeder(wt).workspace.id == Seeder(repo.path).workspace.id


def test_remote_url_normalisation():
    from jupiter_git_memory.git.workspace import normalise_remote

    forms = [
        "git@github.com:Org/Repo.git",
        "https://github.com/org/repo",
        "ssh://git@github.com/org/repo.git",
        "https://user@github.com/org/repo.git/",
    ]
    assert {normalise_remote(f) for f in forms} == {"github.com/org/repo"}


def test_commits_recorded_after_rev_then_worktree_seed(repo):
    repo.record("A", body="first")
    first = repo.commit()
    repo.record("B", body="second")
    second = repo.commit()
    s = Seeder(repo.path)
    s.seed(rev=first)
    s.seed()
    recs, _, _ = index_state(s)
    assert recs["A"].commit_sha == first and recs["B"].commit_sha == second
