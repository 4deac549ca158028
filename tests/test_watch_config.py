"""The watcher follows its config: `jgm.toml` / `[tool.jgm]` edits re-plan the watched roots and reseed."""

from __future__ import annotations

import queue
from pathlib import Path

from hooks_helpers import DEADLINE, assert_index_matches_files, atomic_write, next_reseed_with

from jupiter_git_memory.base.store import workspace_dir
from jupiter_git_memory.freshness.watch import Watcher
from jupiter_git_memory.git.workspace import find_workspace
from jupiter_git_memory.index.catalog import Catalog
from jupiter_git_memory.index.views import worktree_view


def indexed(repo: Path) -> set[str]:
    """Ids of file records in the worktree's view (read directly: `snapshot` would read the broken config)."""
    cat = Catalog(workspace_dir(find_workspace(repo).id) / "catalog.sqlite", worktree_view(repo))
    try:
        return set(cat.records(origin="file"))
    finally:
        cat.close()


def test_watcher_follows_roots_changes_and_survives_a_broken_config(repo):
    repo.write("jgm.toml", 'roots = ["knowledge"]\n')
    repo.record("k1", title="Knowledge one", body="Kept under knowledge/.")
    repo.record("n1", rel="notes/n1.md", title="Note one", body="Kept under notes/.")
    repo.commit("two folders")
    seeds: queue.Queue = queue.Queue()

    def next_with(path):
        return next_reseed_with(seeds, path)

    with Watcher(repo.path, on_reseed=seeds.put, debounce=0.1) as watcher:
        assert seeds.get(timeout=DEADLINE).trigger == "initial"
        assert indexed(repo.path) == {"k1"}

        atomic_write(repo.path / "jgm.toml", 'roots = ["notes"]\n')  # an editor's save
        r = next_with("jgm.toml")
        assert r.config == {"source": str(repo.path / "jgm.toml"), "roots": ["notes"], "error": None}
        assert r.to_json()["config"]["roots"] == ["notes"]
        assert indexed(repo.path) == {"n1"}  # what entered is seeded, what left is removed
        assert watcher.relevant("notes/n2.md", False) and not watcher.relevant("knowledge/k2.md", False)
        repo.record("n2", rel="notes/n2.md", title="Note two", body="Written after the roots changed.")
        next_with("notes/n2.md")  # the new root is watched
        assert indexed(repo.path) == {"n1", "n2"}

        (repo.path / "jgm.toml").write_text('roots = ["notes"\n', encoding="utf-8")  # broken TOML
        r = next_with("jgm.toml")
        assert r.config["error"] and "jgm.toml" in r.config["error"] and "last good config" in r.config["error"]
        assert r.config["roots"] == ["notes"]
        repo.record("n3", rel="notes/n3.md", title="Note three", body="The watch went on with the last good config.")
        next_with("notes/n3.md")
        assert indexed(repo.path) == {"n1", "n2", "n3"}

        (repo.path / "jgm.toml").unlink()  # now [tool.jgm] in pyproject.toml decides
        repo.write("pyproject.toml", '[project]\nname = "x"\n\n[tool.jgm]\nroots = ["knowledge", "notes"]\n')
        while (r := next_with("pyproject.toml")).config["roots"] != ["knowledge", "notes"]:
            pass
        assert r.config["source"].startswith(str(repo.path / "pyproject.toml")) and r.config["error"] is None
        assert indexed(repo.path) == {"k1", "n1", "n2", "n3"}
    assert_index_matches_files(repo.path)


def test_watcher_discovers_an_adr_folder_created_while_it_runs(repo):
    """No `roots` in the config: knowledge/ plus the ADR folders that exist. One created while the watch
    runs (here docs/decisions/, then one declared by `.adr-dir`) is indexed without a restart."""
    repo.record("k1", title="Knowledge one", body="Kept under knowledge/.")
    repo.commit("knowledge only")
    seeds: queue.Queue = queue.Queue()
    adr = "# 1. Use Postgres\n\nDate: 2024-01-02\n\n## Status\n\nAccepted\n\n## Context\n\nWe need a database.\n"
    with Watcher(repo.path, on_reseed=seeds.put, debounce=0.1) as watcher:
        assert seeds.get(timeout=DEADLINE).trigger == "initial"
        assert indexed(repo.path) == {"k1"}
        assert not watcher.relevant("notes/x.md", False)  # not a place discovery looks at
        (repo.path / "docs" / "decisions").mkdir(parents=True)
        repo.write("docs/decisions/0001-use-postgres.md", adr)
        while "docs/decisions" not in watcher.settings.roots:
            next_reseed_with(seeds, "docs")
        while len(indexed(repo.path)) < 2:
            seeds.get(timeout=DEADLINE)
        assert indexed(repo.path) == {"k1", "ADR-0001"}
        repo.write("records/0002-use-redis.md", adr.replace("1. Use Postgres", "2. Use Redis"))
        repo.write(".adr-dir", "records\n")  # adr-tools declares its folder
        while "records" not in watcher.settings.roots:
            next_reseed_with(seeds, ".adr-dir")
        while len(indexed(repo.path)) < 3:
            seeds.get(timeout=DEADLINE)
        assert indexed(repo.path) == {"k1", "ADR-0001", "ADR-0002"}


def test_watcher_finds_a_collection_started_in_a_new_folder_outside_the_conventional_ones(repo):
    """No `roots`: a folder created while the watch runs (here `proposals/`, no conventional name) is
    watched whole; once it holds enough numbered decision records, discovery takes it without a restart."""
    repo.record("k1", title="Knowledge one", body="Kept under knowledge/.")
    repo.commit("knowledge only")
    seeds: queue.Queue = queue.Queue()
    rfc = "# {n}. {title}\n\n* Status: **Accepted**\n\n## Motivation\n\n{why}\n\n## Detailed design\n\nIt is done.\n"
    topics = [("Use Postgres", "We need a database."), ("Use Redis", "We need a cache."), ("Use NATS", "A bus.")]
    with Watcher(repo.path, on_reseed=seeds.put, debounce=0.1) as watcher:
        assert seeds.get(timeout=DEADLINE).trigger == "initial"
        (repo.path / "proposals").mkdir()
        for i, (title, why) in enumerate(topics[:2], 1):  # two: not a collection yet (discovery needs three)
            repo.write(f"proposals/000{i}-x.md", rfc.format(n=i, title=title, why=why))
        next_reseed_with(seeds, "proposals")
        assert "proposals" not in watcher.settings.roots and watcher.relevant("proposals/0003-x.md", False)
        repo.write("proposals/0003-x.md", rfc.format(n=3, title=topics[2][0], why=topics[2][1]))
        while "proposals" not in watcher.settings.roots:
            next_reseed_with(seeds, "proposals/0003-x.md")
        while len(indexed(repo.path)) < 4:
            seeds.get(timeout=DEADLINE)
        assert indexed(repo.path) == {"k1", "ADR-0001", "ADR-0002", "ADR-0003"}
        assert not watcher.relevant("notes/x.md", False)  # an old folder nobody created during the watch
