"""A resident reader's stale check (seed/stale_watch.py, issue 39): after its first recalls it looks at the
record files again only when the kernel reported an event in their folders, and still names an in-place
edit, a file in a folder made after the seed, and a deletion on the next recall. Where events could miss a
change (a symlinked or hard-linked record file, a missing root) it keeps looking in full. Real git, model,
Chroma and seeds; the spy on seed/stale.py `changes` only counts the full looks."""

from __future__ import annotations

import os

import pytest
from cli_helpers import jgm_in

from jupiter_git_memory.config import Settings
from jupiter_git_memory.recall.freshness import STALE
from jupiter_git_memory.seed import stale
from jupiter_git_memory.seed.stale_watch import arm

pytestmark = pytest.mark.integration

QUESTION = "Which port does the billing service listen on?"


def _stale(warnings: list[str]) -> list[str]:
    return [w for w in warnings if w.startswith(STALE)]


@pytest.mark.unit
def test_the_watch_sees_edits_in_place_and_files_of_new_folders(tmp_path):
    (tmp_path / "knowledge").mkdir()
    (tmp_path / "knowledge/a.md").write_text("one")
    w = arm(tmp_path, Settings(roots=["knowledge"]), ["knowledge/a.md"])
    assert w is not None and not w.moved()
    with open(tmp_path / "knowledge/a.md", "a") as f:  # no folder metadata moves
        f.write("two")
    assert w.moved() and not w.moved()
    (tmp_path / "knowledge/team").mkdir()
    assert w.moved()
    (tmp_path / "knowledge/team/b.md").write_text("three")  # in a folder the seed never walked
    assert w.moved()
    w.close()


@pytest.mark.unit
def test_no_watch_where_events_could_miss_a_change(tmp_path):
    s = Settings(roots=["knowledge"])
    assert arm(tmp_path, s, []) is None  # the root is missing: its creation would show in no watched folder
    (tmp_path / "knowledge").mkdir()
    (tmp_path / "elsewhere.md").write_text("x")
    os.symlink(tmp_path / "elsewhere.md", tmp_path / "knowledge/link.md")
    assert arm(tmp_path, s, ["knowledge/link.md"]) is None  # its target's writes land in another folder
    (tmp_path / "knowledge/link.md").unlink()
    os.link(tmp_path / "elsewhere.md", tmp_path / "knowledge/hard.md")
    assert arm(tmp_path, s, ["knowledge/hard.md"]) is None  # so do a second name's
    (tmp_path / "knowledge/plain.md").write_text("y")
    w = arm(tmp_path, s, ["knowledge/plain.md"])
    assert w is not None
    w.close()


def test_a_resident_reader_looks_again_only_after_an_event_and_misses_no_edit(repo, monkeypatch):
    from jupiter_git_memory.app.recall import RecallRequest, recall
    from jupiter_git_memory.app.workspace_handle import WorkspaceHandle

    repo.record("dec-port", title="Billing listens on port 8080", body="The billing service listens on port 8080.")
    repo.record("dec-logs", title="Log as JSON lines", body="Every service writes JSON log lines to stdout.")
    repo.write("jgm.toml", 'roots = ["knowledge"]\nreseed_on_recall = 0\n')  # warn, never reseed
    repo.commit("records")
    assert jgm_in("seed", cwd=repo.path).returncode == 0
    looks = []
    real = stale.changes
    monkeypatch.setattr(stale, "changes", lambda *a: looks.append(1) or real(*a))
    h = WorkspaceHandle.for_repo(repo.path)

    def warned() -> list[str]:
        return _stale(h.read(lambda r: recall(r, RecallRequest(query=QUESTION))).warnings)

    try:
        assert not warned() and not warned() and len(looks) == 2  # the second recall sets the watch up
        assert not warned() and not warned() and len(looks) == 2  # nothing moved: no look at all
        with open(repo.path / "knowledge/dec-logs.md", "a") as f:
            f.write("More.\n")
        assert any("knowledge/dec-logs.md (edited)" in w for w in warned()) and len(looks) == 3
        assert any("knowledge/dec-logs.md (edited)" in w for w in warned())  # a found change is looked at again
        (repo.path / "knowledge/team").mkdir()
        assert not [w for w in warned() if "team" in w]  # an empty new folder: watched from now on
        repo.record("dec-deep", "knowledge/team/dec-deep.md", title="Deep", body="A record in a new folder.")
        assert any("knowledge/team/dec-deep.md (added)" in w for w in warned())
        (repo.path / "knowledge/dec-port.md").unlink()
        assert any("knowledge/dec-port.md (deleted)" in w for w in warned())
        assert jgm_in("seed", cwd=repo.path).returncode == 0  # a new kept look: a new watch, quiet again
        assert not warned() and not warned()
        n = len(looks)
        assert not warned() and len(looks) == n
        repo.record("dec-deep", "knowledge/team/dec-deep.md", title="Deep", body="Rewritten in place.")
        assert any("knowledge/team/dec-deep.md (edited)" in w for w in warned())
    finally:
        h.close()
