"""A seed that would change nothing answers from what it looked at (seed/unchanged.py) and writes nothing;
every change a full seed would see still makes the next seed read everything. Real git, model and Chroma."""

from __future__ import annotations

import os
import time

import pytest
from candidates_helpers import fact

from jupiter_git_memory.seed import seeder as seeder_module
from jupiter_git_memory.seed import unchanged
from jupiter_git_memory.seed.seeder import Seeder


def _age(root) -> None:
    """Every file and folder of the worktree (not .git) ten seconds old: past the racy window."""
    past = time.time() - 10
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in [*filenames, *dirnames]:
            os.utime(os.path.join(dirpath, name), (past, past), follow_symlinks=False)


@pytest.fixture
def kb(repo, monkeypatch):
    repo.record(
        "dec-cache", title="Cache sessions in Redis", body="Sessions live in Redis for 24 hours.", source="src/cache.py"
    )
    repo.record("dec-logs", title="Log as JSON lines", body="Every service writes JSON log lines.")
    repo.write("src/cache.py", "TTL = 24\n")
    repo.commit("records")
    reads: list[int] = []
    real = seeder_module.read_knowledge

    def counted(*a, **kw):
        reads.append(1)
        return real(*a, **kw)

    monkeypatch.setattr(seeder_module, "read_knowledge", counted)
    s = Seeder(repo.path)
    assert not s.seed().errors
    _age(repo.path)
    s.reads = reads  # type: ignore[attr-defined]
    return repo, s


def _read_everything(s) -> bool:
    before = len(s.reads)
    s.report = s.seed()
    return len(s.reads) > before


def _same(a, b) -> None:
    da, db = a.to_json(), b.to_json()
    for d in (da, db):
        d.pop("seconds")
    assert da == db


def test_a_second_no_op_reads_nothing_writes_nothing_and_answers_as_the_first(kb):
    repo, s = kb
    assert _read_everything(s)  # the first no-op reads everything, then remembers what it looked at
    first = s.report
    assert not _read_everything(s)
    _same(first, s.report)
    assert s.report.generation == first.generation  # nothing written: readers do not reopen the index


def test_an_edit_of_the_same_size_an_added_and_a_removed_record_are_seen(kb):
    repo, s = kb
    _read_everything(s)
    repo.record("dec-logs", title="Log as JSON lines", body="Every service writes YAML log lines.")  # same size
    assert _read_everything(s) and s.report.updated == ["dec-logs"]
    _age(repo.path)
    _read_everything(s)
    repo.record("dec-new", title="A new record", body="Added in the worktree, not committed.")
    assert _read_everything(s) and s.report.added == ["dec-new"]
    _age(repo.path)
    _read_everything(s)
    (repo.path / "knowledge" / "dec-new.md").unlink()
    assert _read_everything(s) and s.report.removed == ["dec-new"]


def test_an_edit_to_cited_code_already_dirty_is_seen(kb):
    repo, s = kb
    repo.write("src/cache.py", "TTL = 12\n")
    _age(repo.path)
    assert _read_everything(s)
    _read_everything(s)
    assert not _read_everything(s)
    repo.write("src/cache.py", "TTL = 48\n")  # `git status` says the same: " M src/cache.py"
    assert _read_everything(s)


def test_a_file_changed_just_now_is_read_again_not_trusted_to_its_metadata(kb):
    repo, s = kb
    repo.record("dec-logs", title="Log as JSON lines", body="Every service writes YAML log lines.")
    assert _read_everything(s)  # a change within the racy window: nothing remembered
    assert _read_everything(s) and s.report.updated == []


def test_another_writer_and_lost_vectors_make_the_next_seed_read_everything(kb):
    from jupiter_git_memory.candidates.service import CandidateService

    repo, s = kb
    _read_everything(s)
    assert not _read_everything(s)
    CandidateService(seeder=s).record(fact("Exports run nightly", "The export job runs every night at 02:00."))
    assert _read_everything(s)  # the candidate bumped the catalog's generation
    assert not _read_everything(s)
    index = s.open(view=s.report.view, write=True)
    try:
        index.vectors.delete([index.vectors.ids().pop()])  # a vector lost behind the catalog's back
    finally:
        index.close()
    assert _read_everything(s) and s.report.embedded_chunks == 1


def test_other_settings_or_a_commit_read_everything(kb, tmp_path):
    repo, s = kb
    _read_everything(s)
    assert not _read_everything(s)
    repo.commit("an empty commit moves HEAD")
    assert _read_everything(s)
    other = Seeder(repo.path, settings=s.settings.model_copy(update={"ignore": (*s.settings.ignore, "**/dec-logs.md")}))
    other.reads = s.reads  # type: ignore[attr-defined]
    assert _read_everything(other) and other.report.removed == ["dec-logs"]


def test_the_look_is_stored_per_view_in_the_workspace_folder(kb):
    import json

    repo, s = kb
    _read_everything(s)
    stored = json.loads((s.wsdir / unchanged.FILE).read_text())
    assert list(stored) == [s.report.view] and stored[s.report.view]["report"]["records"] == s.report.records == 2
