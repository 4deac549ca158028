"""Evidence drift: whether the code an in-force record cites changed since the record was last committed. Pure.

States (one per in-force record that cites repository paths; others have none, `uncited`):
- `missing`: a cited file, folder or glob names nothing in the view (takes precedence);
- `drifted`: a commit after the last commit that changed the record's own file (one not among that
  commit's ancestors) changed a cited file, a file under a cited folder, or a file a cited glob matches;
  or, in a worktree view, such a file has uncommitted changes;
- `fresh`: neither. Re-committing the record (e.g. a `reviewed:` line) moves its baseline, so it is fresh.

The git plumbing that gathers `History` lives in git/drift.py; this module only decides. A record's
stored row carries a `basis` (the commit it was computed at, the record's state, the committed diffstat) so a
later computation can extend it by the commits since (`Prior`) instead of reading its whole history again.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .citations import classify, normalize_path
from .globs import compile_glob
from .text import inline

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
    commit: str | None = None  # the view's commit (stored with the rows: where a later seed extends them)


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
    """A sorted path list answering "which paths does this citation cover" (a glob only scans the paths
    under its literal prefix: every seed asks it of every cited glob, over every file of the view)."""

    def __init__(self, paths: Iterable[str]):
        self.sorted = sorted(set(paths))
        self._set = set(self.sorted)

    def _under(self, prefix: str) -> Iterator[str]:
        i = bisect.bisect_left(self.sorted, prefix)
        while i < len(self.sorted) and self.sorted[i].startswith(prefix):
            yield self.sorted[i]
            i += 1

    def _iter(self, ref: str) -> Iterator[str]:
        if classify(ref) == "glob":
            glob = compile_glob(ref)
            yield from (p for p in self._under(_LITERAL.split(ref, 1)[0]) if glob.match(p))
            return
        base = ref.rstrip("/")
        if base in self._set and not ref.endswith("/"):
            yield base
        yield from self._under(base + "/")

    def covered(self, ref: str) -> list[str]:
        return list(self._iter(ref))

    def names_any(self, ref: str) -> bool:
        """Whether the citation covers any path (a missing one covers none)."""
        return next(self._iter(ref), None) is not None


_LITERAL = re.compile(r"[*?\[]")  # a glob's first wildcard: what comes before it is every match's prefix


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


@dataclass
class Since:
    """A record's commits since its baseline (the committed part of its drift): what its row shows, and
    all that extending it to a later commit needs."""

    listed: list[dict[str, Any]] = field(default_factory=list)  # newest first, at most MAX_COMMITS
    count: int = 0  # how many there are in all
    files: set[str] = field(default_factory=set)  # the cited files they changed
    added: int = 0
    deleted: int = 0


@dataclass(frozen=True)
class Prior:
    """A view's stored drift rows, computed at `at` (an ancestor of the view's commit), and the commits
    `at..view commit` (newest first) that come before every commit at or below `at` in git's order."""

    at: str
    rows: dict[str, dict[str, Any]]
    commits: list[Commit]


def _add(since: Since, c: Commit, mine: list[str]) -> None:
    """Count commit `c`, which changed the record's cited files `mine`, after the ones already in `since`."""
    since.listed.append({"sha": c.sha, "author": c.author, "date": c.date, "subject": c.subject, "files": mine})
    since.count += 1
    since.files.update(mine)
    since.added += sum(c.files[f][0] for f in mine)
    since.deleted += sum(c.files[f][1] for f in mine)


def _covered(cited: list[str], paths: PathSet, own: str) -> set[str]:
    """The paths of `paths` the citations cover, but the record's own file (its changes never drift it)."""
    return {p for ref in cited for p in paths.covered(ref) if p != own}


def stored_since(row: dict[str, Any] | None, rec: Cited, at: str) -> Since | None:
    """The Since a stored row holds, when it was computed at `at` for this very record (same baseline,
    dirty flag, file and citations); None for anything else (another record state, an older row format)."""
    b = row.get("basis") if row else None
    if not isinstance(b, dict) or b.get("at") != at:
        return None
    if [b.get("commit"), b.get("dirty"), b.get("path"), b.get("citations")] != [
        rec.commit,
        rec.dirty,
        rec.path,
        list(rec.citations),
    ]:
        return None
    assert row is not None
    return Since(list(row["changed"]), int(row["commits"]), set(b["files"]), int(b["added"]), int(b["deleted"]))


def _kept(records: Iterable[Cited], prior: Prior | None) -> dict[str, Since]:
    if prior is None:
        return {}
    got = ((r.id, stored_since(prior.rows.get(r.id), r, prior.at)) for r in records)
    return {rid: s for rid, s in got if s is not None}


def reusable(records: Iterable[Cited], prior: Prior | None) -> set[str]:
    """The ids whose stored rows extend (the rest need their history read)."""
    return set(_kept(records, prior))


def _extend(since: Since, cited: list[str], rec: Cited, commits: list[Commit], touched: PathSet) -> Since:
    """`since` at an ancestor plus the later `commits`, all of which git lists before any of the stored ones:
    B..N = O..N ∪ B..O when the baseline B is an ancestor of O."""
    if rec.dirty or rec.commit is None:  # no committed drift while being edited, or never committed
        return since
    files = _covered(cited, touched, rec.path)
    out = Since()
    for c in commits:
        mine = sorted(f for f in c.files if f in files)
        if mine:
            _add(out, c, mine)
    out.listed = (out.listed + since.listed)[:MAX_COMMITS]
    out.count, out.files = out.count + since.count, out.files | since.files
    out.added, out.deleted = out.added + since.added, out.deleted + since.deleted
    return out


class _Walk:
    """What the full computation looks up in a History: each commit's parents, position and files."""

    def __init__(self, commits: list[Commit]):
        self.parents = {c.sha: c.parents for c in commits}
        self.order = {c.sha: i for i, c in enumerate(commits)}
        self.by_sha = {c.sha: c for c in commits}
        self.touched: dict[str, list[str]] = {}
        for c in commits:
            for f in c.files:
                self.touched.setdefault(f, []).append(c.sha)
        self.paths = PathSet(self.touched)
        self._anc: dict[str, set[str]] = {}

    def since(self, rec: Cited, cited: list[str]) -> Since:
        """The commits since the record's baseline: reachable from the view's commit, not from the baseline."""
        out = Since()
        if rec.dirty or rec.commit is None:
            return out
        if rec.commit not in self._anc:
            self._anc[rec.commit] = _ancestors(rec.commit, self.parents)
        before, files = self._anc[rec.commit], _covered(cited, self.paths, rec.path)
        shas = {sha for f in files for sha in self.touched.get(f, ()) if sha not in before}
        for sha in sorted(shas, key=lambda s: self.order[s]):
            c = self.by_sha[sha]
            _add(out, c, sorted(f for f in c.files if f in files))
        out.listed = out.listed[:MAX_COMMITS]
        return out


def drift_states(records: Iterable[Cited], history: History, prior: Prior | None = None) -> dict[str, dict[str, Any]]:
    """id -> {state, cited, changed: [{sha, author, date, subject, files}], commits, uncommitted, diffstat,
    missing, basis}. With `prior`, the records in `reusable(records, prior)` extend their stored rows by
    `prior.commits` (their history need not be in `history`); the rest come from `history`."""
    records = list(records)
    walk, kept = _Walk(history.commits), _kept(records, prior)
    later = PathSet(f for c in prior.commits for f in c.files) if prior else PathSet(())
    existing, dirty_paths = PathSet(history.paths), PathSet(history.dirty)
    out: dict[str, dict[str, Any]] = {}
    for rec in records:
        cited = path_citations(rec.citations)
        if not cited:
            continue
        if prior is not None and rec.id in kept:
            since = _extend(kept[rec.id], cited, rec, prior.commits, later)
        else:
            since = walk.since(rec, cited)
        out[rec.id] = _row(rec, cited, since, existing, dirty_paths, history)
    return out


def _row(
    rec: Cited, cited: list[str], since: Since, existing: PathSet, dirty_paths: PathSet, h: History
) -> dict[str, Any]:
    """The stored row: the committed part, plus what the view shows now (missing paths, uncommitted
    changes), which every computation derives afresh."""
    missing = [ref for ref in cited if not existing.names_any(ref)]
    dirty = sorted(_covered(cited, dirty_paths, rec.path)) if not rec.dirty and rec.commit is not None else []
    files = since.files | set(dirty)
    added = since.added + sum(h.dirty[f][0] for f in dirty)
    deleted = since.deleted + sum(h.dirty[f][1] for f in dirty)
    state = "missing" if missing else "drifted" if (since.count or dirty) else "fresh"
    return {
        "state": state,
        "cited": cited,
        "missing": missing,
        "changed": since.listed,
        "commits": since.count,
        "uncommitted": dirty,
        "diffstat": f"{len(files)} files, +{added} -{deleted}" if files else "",
        "basis": {
            "at": h.commit,
            "commit": rec.commit,
            "dirty": rec.dirty,
            "path": rec.path,
            "citations": list(rec.citations),
            "files": sorted(since.files),
            "added": since.added,
            "deleted": since.deleted,
        },
    }


def drift_weight(state: str | None, drifted: float, missing: float) -> float:
    """The factor a record's recall weight is multiplied by for its evidence state."""
    return drifted if state == "drifted" else missing if state == "missing" else 1.0


def evidence_line(r: dict[str, Any]) -> str:
    """` · evidence drifted: 2 commits since (src/a.py)` for a context pack's header; empty when fresh. The
    file names are anyone's (a download, an extracted archive): escaped onto the line (records.text.inline)."""
    ev = r.get("evidence") or {}
    if ev.get("state") == "drifted":
        files = sorted({f for c in ev.get("changed", []) for f in c["files"]} | set(ev.get("uncommitted", [])))
        n = ev.get("commits", 0)
        what = f"{n} commit{'s' if n != 1 else ''} since" if n else "uncommitted changes"
        return f" · evidence drifted: {what} to {', '.join(map(inline, files[:3]))}"
    if ev.get("state") == "missing":
        return f" · evidence missing: {', '.join(map(inline, ev.get('missing', [])[:3]))} no longer exist"
    return ""
