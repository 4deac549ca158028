"""A seed that would change nothing answers from what it looked at (seed/unchanged.py) and writes nothing;
every change a full seed would see still makes the next seed read everything. Real git, model and Chroma."""

from __future__ import annotations

import json
import os
import time

import pytest
from candidates_helpers import fact

from jupiter_git_memory.seed import seeder as seeder_module
from jupiter_git_memory.seed import unchanged
from jupiter_git_memory.seed.seeder import Seeder

pytestmark = [pytest.mark.integration, pytest.mark.plumbing]


def _age(root) -> None:
    """Every file and folder of the worktree (not .git) an hour old: past the racy window, even a widened one."""
    past = time.time() - 3600
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


def test_a_no_op_reads_nothing_writes_nothing_and_answers_alike_every_time(kb):
    repo, s = kb  # the fixture's seed (it added both records) remembered what it looked at
    assert not _read_everything(s)
    first = s.report
    assert (first.added, first.unchanged, first.records) == ([], 2, 2)
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


def test_after_a_seed_that_changed_something_the_next_answers_as_a_full_no_op_would(kb):
    """The changing seed's look is kept with its report turned into a no-op's: the full no-op a reader
    would otherwise pay (records, errors, warnings, drift and candidates alike) is what it answers."""
    from jupiter_git_memory.candidates.service import CandidateService

    repo, s = kb
    repo.write("src/cache.py", "TTL = 12\n")
    repo.commit("cited code changes: dec-cache drifts")
    repo.record("dec-new", title="Queue jobs in SQS", body="Jobs go through SQS.", supersedes="dec-logs")
    repo.write("knowledge/broken.md", "---\nid: [unclosed\n---\nbody\n")
    repo.write("knowledge/notes.txt", "not a record")
    CandidateService(seeder=s).record(fact("Exports run nightly", "The export job runs every night at 02:00."))
    _age(repo.path)
    assert _read_everything(s)
    changing = s.report
    assert changing.added and changing.errors and changing.updated
    assert not _read_everything(s)
    quick = s.report
    assert quick.generation == changing.generation
    (s.wsdir / unchanged.FILE).unlink()  # what a full seed answers now
    assert _read_everything(s)
    full = s.report
    assert (full.added, full.updated, full.removed, full.embedded_chunks) == ([], [], [], 0)
    a, b = quick.to_json(), full.to_json()
    for d in (a, b):
        d.pop("seconds"), d.pop("generation")
    assert a == b


def test_a_seed_never_writes_the_git_index(kb):
    """`git diff` refreshes git's index when it may: a seed taking index.lock beside the user's git would
    fail their command, and the rewritten index would make every next look differ."""
    repo, s = kb
    repo.write("src/cache.py", "TTL = 12\n")  # dirty cited code: drift asks `git diff HEAD --numstat`
    _age(repo.path)  # every tracked file's ctime changed: a refresh would rewrite the index
    index = repo.path / ".git" / "index"
    before = index.stat().st_mtime_ns
    assert _read_everything(s) and s.report.dirty is False  # the code is outside the roots
    assert index.stat().st_mtime_ns == before
    assert not _read_everything(s)


def test_a_record_changed_just_now_is_compared_by_content_not_trusted_to_its_metadata(kb, monkeypatch):
    """A file system that keeps one timestamp per second shows no second edit within that second: the racy
    file's bytes are compared with those the seed read, and the rest is still trusted to its metadata."""
    real = unchanged._meta

    def coarse(path):  # mtime and ctime kept to the second, as such a file system would
        meta, t = real(path)
        got = meta.split(" ")
        if len(got) >= 5:
            got[2], got[3] = str(int(got[2]) // 10**9), str(int(got[3]) // 10**9)
        return " ".join(got), t

    monkeypatch.setattr(unchanged, "_meta", coarse)
    monkeypatch.setattr(unchanged, "RACY_NS", 600 * 10**9)  # however slow the machine, racy all along
    repo, s = kb
    path = repo.record("dec-logs", title="Log as JSON lines", body="Every service writes YAML log lines.")
    assert _read_everything(s) and s.report.updated == ["dec-logs"]
    stored = json.loads((s.wsdir / unchanged.FILE).read_text())[s.report.view]
    assert stored["racy"] == ["knowledge/dec-logs.md"]
    assert not _read_everything(s) and s.report.updated == []  # only the racy file was read, and it matched
    st = path.stat()
    repo.record("dec-logs", title="Log as JSON lines", body="Every service writes TOML log lines.")  # same size
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # and, to this file system, the same second
    assert unchanged._meta(str(path)) == coarse(str(path))
    assert _read_everything(s) and s.report.updated == ["dec-logs"]


def test_a_racy_file_no_longer_racy_is_looked_at_by_its_metadata_again(kb, monkeypatch):
    repo, s = kb
    path = repo.record("dec-logs", title="Log as JSON lines", body="Every service writes YAML log lines.")
    monkeypatch.setattr(unchanged, "RACY_NS", 600 * 10**9)
    assert _read_everything(s)
    read = []
    real = unchanged.content
    monkeypatch.setattr(unchanged, "content", lambda p: read.append(p) or real(p))
    assert not _read_everything(s) and read == [path]  # compared by content, still racy
    monkeypatch.setattr(unchanged, "RACY_NS", 0)  # now old enough to be trusted to its metadata
    assert not _read_everything(s) and len(read) == 2
    assert json.loads((s.wsdir / unchanged.FILE).read_text())[s.report.view]["racy"] == []
    assert not _read_everything(s) and len(read) == 2  # no file read at all
    repo.record("dec-logs", title="Log as JSON lines", body="Every service writes TOML log lines.")
    assert _read_everything(s) and s.report.updated == ["dec-logs"]


def _slow_reads(monkeypatch, then=None):
    """Make the next seed outlast a 1 s racy window: it reads, runs `then`, and waits. Returns the undo."""
    real = seeder_module.read_knowledge

    def slow(*a, **kw):
        got = real(*a, **kw)
        if then:
            then()
        time.sleep(1.2)
        return got

    monkeypatch.setattr(seeder_module, "read_knowledge", slow)
    monkeypatch.setattr(unchanged, "RACY_NS", 10**9)
    return lambda: monkeypatch.setattr(seeder_module, "read_knowledge", real)


def _racy(s) -> list:
    return json.loads((s.wsdir / unchanged.FILE).read_text())[s.report.view]["racy"]


def test_a_seed_that_outlasts_the_racy_window_trusts_the_files_it_read_to_their_metadata(kb, monkeypatch):
    repo, s = kb
    repo.record("dec-logs", title="Log as JSON lines", body="Every service writes YAML log lines.")
    _slow_reads(monkeypatch)
    assert _read_everything(s) and s.report.updated == ["dec-logs"]
    assert _racy(s) == []  # read again after its window: the bytes the seed read
    read = []
    real = unchanged.content
    monkeypatch.setattr(unchanged, "content", lambda p: read.append(p) or real(p))
    assert not _read_everything(s) and read == []  # the next no-op reads no file at all


def test_a_racy_file_rewritten_while_the_seed_ran_stays_compared_by_content(kb, monkeypatch):
    """The danger the window is for: an edit made after the seed read the file that its metadata cannot
    show (the same size, the same mtime; ctime not kept, as on some file systems)."""
    real = unchanged._meta

    def blind(path):
        meta, t = real(path)
        got = meta.split(" ")
        if len(got) >= 5:
            got[3] = "-"
        return " ".join(got), t

    monkeypatch.setattr(unchanged, "_meta", blind)
    repo, s = kb
    path = repo.record("dec-logs", title="Log as JSON lines", body="Every service writes YAML log lines.")
    before = blind(str(path))

    def rewrite():
        st = path.stat()
        repo.record("dec-logs", title="Log as JSON lines", body="Every service writes TOML log lines.")
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))

    undo = _slow_reads(monkeypatch, rewrite)
    assert _read_everything(s) and s.report.updated == ["dec-logs"]  # it indexed the YAML version
    assert blind(str(path)) == before and "TOML" in path.read_text()  # invisible to the metadata
    assert _racy(s) == ["knowledge/dec-logs.md"]  # its bytes are not the ones read: still compared by them
    undo()
    assert _read_everything(s) and s.report.updated == ["dec-logs"]  # the TOML version, seen by its bytes


def test_a_non_record_file_changed_just_now_is_not_remembered(kb):
    repo, s = kb
    repo.write("knowledge/diagram.txt", "the seed never reads this file's bytes")
    assert _read_everything(s)
    assert _read_everything(s)  # nothing to compare it by: read again, and remembered once it is old
    _age(repo.path)
    assert _read_everything(s) and not _read_everything(s)


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
    repo, s = kb
    _read_everything(s)
    stored = json.loads((s.wsdir / unchanged.FILE).read_text())
    assert list(stored) == [s.report.view] and stored[s.report.view]["report"]["records"] == s.report.records == 2
