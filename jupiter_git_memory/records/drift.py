"""Evidence drift: whether the code an in-force record cites changed since the record was last committed. Pure.

States (one per in-force record that cites repository paths; others have none, `uncited`):
- `missing`: a cited file, folder or glob names nothing in the view (takes precedence);
- `drifted`: a commit after the last commit that changed the record's own file (one not among that
  commit's ancestors) changed a cited file, a file under a cited folder, or a file a cited glob matches;
  or, in a worktree view, such a file has uncommitted changes;
- `fresh`: neither. Re-committing the record (e.g. a `reviewed:` line) moves its baseline, so it is fresh.

The git plumbing that gathers `History` lives in index/drift_git.py; this module only decides.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .citations import classify, glob_regex, normalize_path

STATES = ("fresh", "drifted", "missing")
UNCITED = "uncited"
PATH_TYPES = ("file", "folder", "glob")
MAX_COMMITS = 20  # commits listed per drifted record (the count says how many there were)


@dataclass(frozen=True)
class Commit:
    sha: str
    parents: tuple[str, ...]
    author: str
    date: str
    subject: str
    files: dict[str, tuple[int, int]]  # path -> (lines added, lines deleted); binary files count 0


@dataclass
class History:
    """What a view's drift is decided from: the commits since the oldest baseline (newest first), the paths
    that exist in the view, and (worktree views) the paths with uncommitted changes."""

    commits: list[Commit]
    paths: list[str]  # every file of the view
    dirty: dict[str, tuple[int, int]] = field(default_factory=dict)


@dataclass(frozen=True)
class Cited:
    id: str
    path: str  # the record's own file (its changes never drift it)
    commit: str | None  # the last commit that changed that file; None for a record never committed
    dirty: bool  # the record's file itself has uncommitted changes (it is being edited: the new baseline)
    citations: tuple[str, ...]


def path_citations(refs: Iterable[str]) -> list[str]:
    """The citations that name repository paths (files, folders, globs), normalized."""
    out: list[str] = []
    for ref in refs:
        p = _repo_path(ref)
        if p and p not in out:
            out.append(p)
    return out


@functools.lru_cache(maxsize=1 << 16)
def _repo_path(ref: str) -> str | None:
    """`ref` as a normalized repository path, or None when it names none (pure: every seed asks it of every
    citation of every in-force record)."""
    if classify(ref) in PATH_TYPES and not ref.lower().startswith("www."):
        p = normalize_path(ref)
        if p and not p.startswith("../"):
            return p
    return None


class PathSet:
    """A sorted path list answering "which paths does this citation cover"."""

    def __init__(self, paths: Iterable[str]):
        self.sorted = sorted(set(paths))
        self._set = set(self.sorted)
        self._globs: dict[str, re.Pattern[str]] = {}

    def covered(self, ref: str) -> list[str]:
        if classify(ref) == "glob":
            rx = self._globs.setdefault(ref, glob_regex(ref))
            return [p for p in self.sorted if rx.match(p)]
        base = ref.rstrip("/")
        out = [base] if base in self._set and not ref.endswith("/") else []
        prefix = base + "/"
        i = bisect.bisect_left(self.sorted, prefix)
        while i < len(self.sorted) and self.sorted[i].startswith(prefix):
            out.append(self.sorted[i])
            i += 1
        return out


def _ancestors(start: str, parents: dict[str, tuple[str, ...]]) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        sha = todo.pop()
        if sha in seen or sha not in parents:
            continue
        seen.add(sha)
        todo.extend(parents[sha])
    return seen


def drift_states(records: Iterable[Cited], history: History) -> dict[str, dict[str, Any]]:
    """id -> {state, cited, changed: [{sha, author, date, subject, files}], commits, diffstat, missing}."""
    parents = {c.sha: c.parents for c in history.commits}
    order = {c.sha: i for i, c in enumerate(history.commits)}
    touched: dict[str, list[str]] = {}
    for c in history.commits:
        for f in c.files:
            touched.setdefault(f, []).append(c.sha)
    by_sha = {c.sha: c for c in history.commits}
    existing, changed_paths = PathSet(history.paths), PathSet([*touched, *history.dirty])
    anc_cache: dict[str, set[str]] = {}
    out: dict[str, dict[str, Any]] = {}
    for rec in records:
        cited = path_citations(rec.citations)
        if not cited:
            continue
        missing = [ref for ref in cited if not existing.covered(ref)]
        files: set[str] = set()
        for ref in cited:
            files.update(p for p in changed_paths.covered(ref) if p != rec.path)
        since: set[str] = set()
        dirty: list[str] = []
        if not rec.dirty and rec.commit is not None:
            if rec.commit not in anc_cache:
                anc_cache[rec.commit] = _ancestors(rec.commit, parents)
            before = anc_cache[rec.commit]
            since = {sha for f in files for sha in touched.get(f, ()) if sha not in before}
            dirty = sorted(f for f in files if f in history.dirty)
        commits = sorted(since, key=lambda s: order[s])
        added = deleted = 0
        diff_files: set[str] = set()
        listed = []
        for sha in commits:
            c = by_sha[sha]
            mine = sorted(f for f in c.files if f in files)
            diff_files.update(mine)
            for f in mine:
                added, deleted = added + c.files[f][0], deleted + c.files[f][1]
            listed.append({"sha": c.sha, "author": c.author, "date": c.date, "subject": c.subject, "files": mine})
        for f in dirty:
            diff_files.add(f)
            added, deleted = added + history.dirty[f][0], deleted + history.dirty[f][1]
        state = "missing" if missing else "drifted" if (commits or dirty) else "fresh"
        out[rec.id] = {
            "state": state,
            "cited": cited,
            "missing": missing,
            "changed": listed[:MAX_COMMITS],
            "commits": len(commits),
            "uncommitted": dirty,
            "diffstat": f"{len(diff_files)} files, +{added} -{deleted}" if diff_files else "",
        }
    return out


def drift_weight(state: str | None, drifted: float, missing: float) -> float:
    """The factor a record's recall weight is multiplied by for its evidence state."""
    return drifted if state == "drifted" else missing if state == "missing" else 1.0


def evidence_line(r: dict[str, Any]) -> str:
    """` · evidence drifted: 2 commits since (src/a.py)` for a context pack's header; empty when fresh."""
    ev = r.get("evidence") or {}
    if ev.get("state") == "drifted":
        files = sorted({f for c in ev.get("changed", []) for f in c["files"]} | set(ev.get("uncommitted", [])))
        n = ev.get("commits", 0)
        what = f"{n} commit{'s' if n != 1 else ''} since" if n else "uncommitted changes"
        return f" · evidence drifted: {what} to {', '.join(files[:3])}"
    if ev.get("state") == "missing":
        return f" · evidence missing: {', '.join(ev.get('missing', [])[:3])} no longer exist"
    return ""
