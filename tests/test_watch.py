"""`jgm watch`: the real CLI as a subprocess and the Watcher class in-process, against real repos."""

from __future__ import annotations

import os
import queue
import shutil
import signal

import pytest
from conftest import record_text
from hooks_helpers import (
    DEADLINE,
    WatchProcess,
    assert_index_matches_files,
    atomic_write,
    next_reseed_with,
    snapshot,
    wait_for,
)

from jupiter_git_memory.freshness.watch import Watcher

pytestmark = pytest.mark.e2e


def is_seed(event) -> bool:
    return event["event"] == "seed"


def test_watch_cli_follows_saves_moves_deletes_folders_and_broken_files(repo):
    repo.record("w1", title="Retry policy", body="Retry three times with backoff.")
    repo.record("w2", kind="fact", status="verified", title="Timeout", body="Requests time out after 10s.")
    repo.write("knowledge/README.md", "# Our knowledge\n")
    repo.commit("start")
    k = repo.path / "knowledge"
    w = WatchProcess(repo.path)
    try:
        assert w.next_event(lambda e: e["event"] == "ready")["roots"] == ["knowledge"]
        initial = w.next_event(is_seed)
        assert initial["trigger"] == "initial" and initial["counts"]["added"] == 2

        # an editor's atomic save of a new record (temp file + rename), with noise that is no record
        (k / "notes.txt").write_text("not a record")
        atomic_write(k / "w3.md", record_text("w3", title="Queue choice", body="We use SQS for jobs."))
        ev = w.next_event(lambda e: is_seed(e) and "knowledge/w3.md" in e["paths"])
        assert ev["counts"]["added"] == 1 and not ev["errors"]
        assert all(p.endswith(".md") for p in ev["paths"]) and "knowledge/notes.txt" not in ev["paths"]
        assert set(snapshot(repo.path).records) == {"w1", "w2", "w3"}

        # an atomic save over an existing record
        atomic_write(k / "w1.md", record_text("w1", title="Retry policy", body="Retry five times with jitter."))
        w.next_event(lambda e: is_seed(e) and "knowledge/w1.md" in e["paths"])
        assert "jitter" in snapshot(repo.path).records["w1"].data["body"]

        # a new folder, then a move into it
        (k / "ops").mkdir()
        os.rename(k / "w2.md", k / "ops" / "w2.md")
        w.next_event(lambda e: is_seed(e) and "knowledge/ops/w2.md" in e["paths"])
        assert snapshot(repo.path).records["w2"].path == "knowledge/ops/w2.md"

        # a whole folder arriving at once (moved in from outside the roots)
        staging = repo.path / "staging"
        staging.mkdir()
        (staging / "w4.md").write_text(record_text("w4", title="Feature flags", body="Use the flag service."))
        os.rename(staging, k / "imported")
        w.next_event(lambda e: is_seed(e) and "knowledge/imported" in e["paths"])
        assert snapshot(repo.path).records["w4"].path == "knowledge/imported/w4.md"

        # a delete
        os.remove(k / "w3.md")
        w.next_event(lambda e: is_seed(e) and "knowledge/w3.md" in e["paths"])
        assert "w3" not in snapshot(repo.path).records

        # a broken file is reported with its path and line; the watch goes on and picks up the fix
        atomic_write(k / "w5.md", "---\nid: w5\nkind: decision\nstatus: accepted\n---\nno title\n")
        bad = w.next_event(lambda e: is_seed(e) and "knowledge/w5.md" in e["paths"])
        assert [(e["path"], e["line"]) for e in bad["errors"]] == [("knowledge/w5.md", 2)]
        assert "title" in bad["errors"][0]["message"]
        atomic_write(k / "w5.md", record_text("w5", title="Now valid", body="Fixed."))
        fixed = w.next_event(lambda e: is_seed(e) and "knowledge/w5.md" in e["paths"])
        assert fixed["errors"] == [] and fixed["counts"]["added"] == 1

        snap = assert_index_matches_files(repo.path)
        assert set(snap.records) == {"w1", "w2", "w4", "w5"}
        assert w.stop(signal.SIGTERM) == 0
        assert w.events[-1] == {"event": "stopped"}
        assert all(e.get("error") is None for e in w.events if is_seed(e))
        assert "Traceback" not in w.stderr
    finally:
        w.kill()


def test_watch_cli_stops_on_sigint_even_during_its_first_seed(repo):
    repo.record("s1", title="Something", body="Anything.")
    w = WatchProcess(repo.path)
    try:
        w.next_event(lambda e: e["event"] == "ready")
        assert w.stop(signal.SIGINT) == 0
        assert w.events[-1] == {"event": "stopped"}
    finally:
        w.kill()


def test_watcher_class_waits_for_a_missing_root_and_follows_it_being_replaced(repo):
    repo.write("src/main.py", "print('hi')\n")
    repo.commit("no knowledge yet")
    seeds: queue.Queue = queue.Queue()
    with Watcher(repo.path, on_reseed=seeds.put, debounce=0.1) as watcher:
        first = seeds.get(timeout=DEADLINE)
        assert first.trigger == "initial" and first.report.records == 0

        def next_with(path):
            return next_reseed_with(seeds, path)

        repo.record("n1", title="First record", body="The root did not exist when the watch began.")
        next_with("knowledge")
        wait_for(lambda: set(snapshot(repo.path).records) == {"n1"}, what="n1 in the index")

        shutil.rmtree(repo.path / "knowledge")  # e.g. a branch without knowledge
        next_with("knowledge")
        assert snapshot(repo.path).records == {}
        repo.record("n2", title="Second record", body="The root came back.")
        next_with("knowledge")
        atomic_write(repo.path / "knowledge/n3.md", record_text("n3", title="Third", body="Watched again."))
        next_with("knowledge/n3.md")
        assert set(snapshot(repo.path).records) == {"n2", "n3"}
        assert watcher.relevant("knowledge/sub/x.md", False) and not watcher.relevant("src/x.md", False)
    assert_index_matches_files(repo.path)
