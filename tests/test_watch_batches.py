"""The watcher's batching and restarts (watchfiles underneath): a burst is one seed, a change made during a
seed is seeded next even when the watch set was just restarted, and a watch that fails is logged and
restarted without losing what changed meanwhile."""

from __future__ import annotations

import ast
import os
import queue
import tomllib
from pathlib import Path

import pytest
from conftest import record_text
from hooks_helpers import DEADLINE, assert_index_matches_files, next_reseed_with, snapshot, wait_for

from jupiter_git_memory.base.store import log_path
from jupiter_git_memory.freshness import watch_feed
from jupiter_git_memory.freshness.watch import Watcher

pytestmark = [pytest.mark.unit, pytest.mark.plumbing]


def test_a_burst_of_changes_is_one_seed(repo):
    """Twenty records moved in one after another: watchfiles' quiet time (`debounce`, 1 s here, far longer
    than twenty renames) ends one batch, so one seed adds them all."""
    repo.record("b0", title="Start", body="Before the burst.")
    repo.commit("start")
    staging = repo.path / "staging"
    staging.mkdir()
    for i in range(1, 21):
        (staging / f"b{i}.md").write_text(record_text(f"b{i}", title=f"Burst {i}", body=f"Record {i}."))
    seeds: queue.Queue = queue.Queue()
    with Watcher(repo.path, on_reseed=seeds.put, debounce=1.0, max_delay=30.0) as watcher:
        assert seeds.get(timeout=DEADLINE).trigger == "initial"
        for i in range(1, 21):
            os.rename(staging / f"b{i}.md", repo.path / "knowledge" / f"b{i}.md")
        r = next_reseed_with(seeds, "knowledge/b1.md")
        assert {f"knowledge/b{i}.md" for i in range(1, 21)} <= set(r.paths)
        assert len(r.report.added) == 20 and seeds.empty()
        assert watcher.relevant("knowledge/b21.md", False)
    assert_index_matches_files(repo.path)


def test_a_change_made_during_a_seed_leads_to_another_seed_after_a_restart(repo):
    """The config adds a root, so the recursive watch is restarted before the seed; a record written in the
    new root while that seed runs (after it read the tree) is seen by the new watch and seeded next."""
    repo.write("jgm.toml", 'roots = ["knowledge"]\n')
    repo.record("k1", title="Knowledge one", body="Kept under knowledge/.")
    repo.record("n1", rel="notes/n1.md", title="Note one", body="Kept under notes/.")
    repo.commit("two folders")
    seeds: queue.Queue = queue.Queue()
    with Watcher(repo.path, on_reseed=seeds.put, debounce=0.1) as watcher:
        assert seeds.get(timeout=DEADLINE).trigger == "initial"
        real_seed, armed = watcher.seeder.seed, []

        def seed_then_write(**kw):
            report = real_seed(**kw)
            if armed and armed.pop():  # the seed has read the tree: this file is news to the next one
                repo.record("late", rel="notes/late.md", title="Late note", body="Written during a seed.")
            return report

        watcher.seeder.seed = seed_then_write
        armed.append(True)
        (repo.path / "jgm.toml").write_text('roots = ["knowledge", "notes"]\n', encoding="utf-8")
        r = next_reseed_with(seeds, "jgm.toml")
        assert r.config["roots"] == ["knowledge", "notes"] and "late" not in r.report.added
        r = next_reseed_with(seeds, "notes/late.md")
        assert r.report.added == ["late"]
    assert set(assert_index_matches_files(repo.path).records) == {"k1", "n1", "late"}


def test_a_watch_that_fails_is_logged_and_restarted_and_nothing_is_lost(repo, monkeypatch):
    """The OS refuses the roots' watch once (an inotify limit, say): the error goes to the store's log, the
    watch is restarted, and a record written while it was down is seeded by the seed that follows."""
    repo.record("f1", title="First", body="Before the watch.")
    repo.commit("start")
    real_watch, failures = watch_feed.watchfiles.watch, []

    def flaky_watch(*paths, recursive=True, **kw):
        if recursive and not failures:
            failures.append(paths)
            raise OSError("inotify watch limit reached")
        return real_watch(*paths, recursive=recursive, **kw)

    monkeypatch.setattr(watch_feed.watchfiles, "watch", flaky_watch)
    seeds: queue.Queue = queue.Queue()
    with Watcher(repo.path, on_reseed=seeds.put, debounce=0.1):
        assert seeds.get(timeout=DEADLINE).trigger == "initial"
        repo.record("f2", title="Second", body="Written while the roots were not watched.")
        wait_for(lambda: "f2" in snapshot(repo.path).records, what="f2 seeded after the restart")
        repo.record("f3", title="Third", body="Written once the watch was back.")
        next_reseed_with(seeds, "knowledge/f3.md")
    assert failures and set(assert_index_matches_files(repo.path).records) == {"f1", "f2", "f3"}
    assert "inotify watch limit reached" in log_path().read_text(encoding="utf-8")


def test_the_watcher_depends_on_watchfiles_and_nothing_imports_watchdog():
    """watchdog and its hand-written debounce were replaced (dec-watch-on-watchfiles): no module of the
    package imports it, and the dependencies name watchfiles instead."""
    root = Path(__file__).resolve().parents[1]
    importers = []
    for f in (root / "jupiter_git_memory").rglob("*.py"):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            names += [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            if any(n.split(".")[0] == "watchdog" for n in names):
                importers.append(str(f.relative_to(root)))
    assert importers == []
    deps = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    names = {d.split(">")[0].split("=")[0].strip() for d in deps}
    assert "watchfiles" in names and "watchdog" not in names
