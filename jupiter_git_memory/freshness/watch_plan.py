"""What `jgm watch` watches, and which changes matter: the watch set planned from the settings.

Why this shape: the watcher watches only the knowledge roots (recursively), never the whole repository, so
a build tree or `.git` churn costs nothing. A missing root is awaited by a flat (non-recursive) watch on its
nearest existing parent; the top folder is watched flat for the config files. Each watched folder is
planned with its inode, so a root deleted and recreated (a branch switch) is a new plan and is watched
again. Without `roots` in the config the places discovery looks at are watched the same way, and a folder
created during the watch is watched whole until it becomes a root: a Markdown file there re-runs discovery.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from watchfiles import Change

from ..config import CONFIG_FILES, Settings
from ..config.discover import CONVENTIONAL, DISCOVERY_FILES, MAX_DEPTH, SKIP_DIRS, tool_roots
from ..seed.sources import is_record_path

Target = tuple[Path, int]  # a folder to watch and its inode when planned (-1: gone)


@dataclass(frozen=True)
class WatchTargets:
    """The folders to watch: `recursive` ones (roots, new folders) and `flat` ones (their top entries only)."""

    recursive: frozenset[Target]
    flat: frozenset[Target]


class WatchPlan:
    """The watch set and the relevance rules, for one repository and its current settings. The settings and
    the new folders are replaced, never mutated, so the watch threads can read them while the worker plans."""

    def __init__(self, top: Path, settings: Settings):
        self.top = top
        self.settings = settings
        self.fresh: frozenset[str] = frozenset()  # folders created during the watch (roots discovered)

    # -- relevance --------------------------------------------------------------------------------
    def candidates(self) -> tuple[str, ...]:
        """Folders that would become roots if created: discovery's places, when `roots` is not configured."""
        return () if self.settings.roots_configured else (*CONVENTIONAL, *tool_roots(self.top))

    def in_fresh(self, rel: str) -> bool:
        return any(rel == f or rel.startswith(f + "/") for f in self.fresh)

    def could_hold_collection(self, rel: str) -> bool:
        """A new folder discovery would read (roots discovered): not hidden, no dependency or test folder,
        within discovery's depth, not inside a root already."""
        parts = PurePosixPath(rel).parts
        return (
            not self.settings.roots_configured
            and 0 < len(parts) <= MAX_DEPTH
            and not any(p.startswith((".", "_")) or p in SKIP_DIRS for p in parts)
            and not any(on_the_way(parts, r) and len(parts) >= len(PurePosixPath(r).parts) for r in self.settings.roots)
        )

    def relevant(self, rel: str, is_dir: bool) -> bool:
        """A record file, the config, or a folder that is, holds or lies on the way to a knowledge root; with
        roots discovered, also a folder created during the watch and the Markdown files in it."""
        if not is_dir:
            return (
                rel in CONFIG_FILES
                or is_record_path(rel, self.settings)
                or (rel in DISCOVERY_FILES and not self.settings.roots_configured)
                or (rel.lower().endswith((".md", ".markdown")) and self.in_fresh(rel))
            )
        if self.in_fresh(rel):
            return True
        parts = PurePosixPath(rel).parts
        if any(p.startswith(".") for p in parts):
            return False
        return any(on_the_way(parts, root) for root in (*self.settings.roots, *self.candidates()))

    def replans(self, rel: str) -> bool:
        """Would this path change the roots? A config file, or (roots discovered) a discovery file, a folder on
        the way to a place discovery looks at (created or deleted), or a folder created during the watch and
        the Markdown files in it."""
        if rel in CONFIG_FILES:
            return True
        if self.settings.roots_configured:
            return False
        if self.in_fresh(rel):
            return True  # a new folder, or a Markdown file in one: discovery may find a collection there
        parts = PurePosixPath(rel).parts
        return rel in DISCOVERY_FILES or any(
            on_the_way(parts, c) and len(parts) <= len(PurePosixPath(c).parts) for c in self.candidates()
        )

    def rel(self, path: str) -> str | None:
        """The repo-relative POSIX path of an absolute one, or None outside the top folder (or the top itself)."""
        rel = os.path.relpath(path, self.top)
        return None if rel.startswith("..") or rel == "." else Path(rel).as_posix()

    def matters(self, change: Change, path: str) -> bool:
        """watchfiles' filter: does this change lead to a reseed? A folder's own `modified` (its metadata) does
        not: the files in it report themselves. A deleted path no longer says whether it was a folder (a
        folder moved out of a root reports only itself), so it counts when either reading is relevant."""
        rel = self.rel(path)
        if rel is None:
            return False
        if change == Change.deleted:
            return self.relevant(rel, False) or self.relevant(rel, True)
        is_dir = os.path.isdir(path)
        if is_dir and change == Change.modified:
            return False
        return self.relevant(rel, is_dir) or (is_dir and self.could_hold_collection(rel))

    def note_new_folders(self, changes: set[tuple[Change, str]]) -> None:
        """Remember the folders created during the watch that a collection could grow in (roots discovered)."""
        new = {
            rel
            for change, path in changes
            if change == Change.added
            and (rel := self.rel(path)) is not None
            and os.path.isdir(path)
            and self.could_hold_collection(rel)
        }
        if new:
            self.fresh = self.fresh | new

    def paths_of(self, changes: set[tuple[Change, str]]) -> list[str]:
        """A batch's repo-relative paths. A folder that arrived brings the record files in it: they may have
        landed before the OS watched the new folder, in which case only the folder reported itself."""
        out: set[str] = set()
        for change, path in changes:
            rel = self.rel(path)
            if rel is not None:
                out.add(rel)
                if change == Change.added and os.path.isdir(path):
                    out.update(self._records_in(path))
        return sorted(out)

    def _records_in(self, folder: str, limit: int = 10_000) -> list[str]:
        """The record files under a new folder; a huge tree is cut short (the seed reads it all anyway)."""
        found: list[str] = []
        seen = 0
        for dirpath, dirnames, filenames in os.walk(folder):  # symlinks not followed
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            for name in filenames:
                rel = self.rel(os.path.join(dirpath, name))
                if rel is not None and self.relevant(rel, False):
                    found.append(rel)
            seen += len(filenames) + len(dirnames)
            if seen >= limit:
                break
        return found

    # -- the watch set ----------------------------------------------------------------------------
    def targets(self) -> WatchTargets:
        """Each existing root recursively, else the nearest existing parent of a missing one; discovery's
        places likewise; new folders recursively; the top folder flat (the config files)."""
        wanted: dict[Path, bool] = {}
        for root in self.settings.roots:
            p = self.top / root
            if p.is_dir():
                wanted[p] = True
            else:
                wanted.setdefault(_nearest_existing(self.top, p), False)
        for cand in self.candidates():
            p = _nearest_existing(self.top, self.top / cand)
            if p != self.top / cand:
                wanted.setdefault(p, False)
        self.fresh = frozenset(f for f in self.fresh if (self.top / f).is_dir() and self.could_hold_collection(f))
        for f in self.fresh:  # new folders: watched whole, so a collection growing there is seen
            wanted.setdefault(self.top / f, True)
        wanted.setdefault(self.top, False)
        deep = [p for p, rec in wanted.items() if rec]
        flat = [p for p, rec in wanted.items() if not rec and not any(p == d or d in p.parents for d in deep)]
        return WatchTargets(frozenset((p, _inode(p)) for p in deep), frozenset((p, _inode(p)) for p in flat))


def on_the_way(parts: tuple[str, ...], root: str) -> bool:
    """`parts` is the root, lies inside it, or is a folder on the way to it."""
    rparts = PurePosixPath(root).parts
    n = min(len(parts), len(rparts))
    return parts[:n] == rparts[:n]


def _nearest_existing(top: Path, p: Path) -> Path:
    while p != top and not p.is_dir():
        p = p.parent
    return p


def _inode(path: Path) -> int:
    try:
        return os.stat(path).st_ino
    except OSError:
        return -1
