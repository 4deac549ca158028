"""Evidence drift: whether what an in-force record cites changed since the record was last committed. Pure.

States (one per in-force record with citations; records without any have none, `uncited`):
- `missing`: something a citation named at the record's baseline is gone (a file, a folder or glob now
  matching nothing, a symbol found nowhere). Takes precedence;
- `drifted`: what a citation names changed since the baseline at its granularity (records/drift_judge.py:
  a symbol's or range's own text; a file, folder or glob by the size rule of records/regions.py), by
  commits after the baseline or, in a worktree view, by uncommitted changes;
- `fresh`: neither. Re-committing the record (e.g. a `reviewed:` line) moves its baseline, so it is fresh;
- `external`: every citation is evidence outside the repository (URLs, tickets, commits, prose, reports).
A path that never existed (at the baseline or now) in a folder the repository has is `unresolved`: no
drift, `jgm check` reports it.

The git plumbing that gathers `History` (and reads texts) lives in git/drift.py; this module only decides.
A record's stored row carries a `basis` (the commit it was computed at, the record's state, the committed
files changed) so a later computation can extend it by the commits since (`Prior`) instead of reading its
whole history again; the texts are judged afresh each time, so both ways give the same row.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .citations import REGION_KINDS, Citation, parse
from .drift_judge import Texts, judge, needs, parsed
from .pathset import PathSet
from .text import inline

STATES = ("fresh", "drifted", "missing", "external")
# What the states mean (the grammar, the judging, the size rule): part of every view's drift key, so rows a
# jgm with other rules stored are recomputed on the next seed even when nothing else changed.
RULES = 2
UNCITED = "uncited"
__all__ = ["PathSet"]
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
    texts: Texts | None = None  # reads the cited files' texts; git/drift.history always gives one


@dataclass(frozen=True)
class Cited:
    id: str
    path: str  # the record's own file (its changes never drift it)
    commit: str | None  # the last commit that changed that file; None for a record never committed
    dirty: bool  # the record's file itself has uncommitted changes (it is being edited: the new baseline)
    citations: tuple[str, ...]


def path_citations(refs: Iterable[str]) -> list[str]:
    """The repository paths the citations name (files, folders, globs; a region's file), normalized."""
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
    c = parse(ref)
    return None if c.external or not c.path else c.path


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
    """id -> {state, cited, citations: [verdict per citation], external, unresolved, changed: [{sha, author,
    date, subject, files}], commits, uncommitted, diffstat, missing, basis}. With `prior`, the records in
    `reusable(records, prior)` extend their stored rows by `prior.commits` (their history need not be in
    `history`); the rest come from `history`. The texts of every changed cited file are read in one batch."""
    records = list(records)
    walk, kept = _Walk(history.commits), _kept(records, prior)
    later = PathSet(f for c in prior.commits for f in c.files) if prior else PathSet(())
    existing, dirty_paths = PathSet(history.paths), PathSet(history.dirty)
    plans = []
    for rec in records:
        repo, external = parsed(rec.citations)
        if not repo and not external:
            continue
        cited = path_citations(c.ref for c in repo)
        if prior is not None and rec.id in kept:
            since = _extend(kept[rec.id], cited, rec, prior.commits, later)
        else:
            since = walk.since(rec, cited)
        plans.append(_Plan(rec, repo, external, cited, since, existing, dirty_paths))
    assert history.texts is not None, "a History is read with its texts (git/drift.history)"
    history.texts.prefetch(spec for p in plans for spec in needs(p.repo, p.covered, p.changed, p.base))
    out: dict[str, dict[str, Any]] = {}
    for p in plans:
        row = _row(p, history)
        if row is not None:
            out[p.rec.id] = row
    return out


class _Plan:
    """One record's citations against the view: what each covers, and what changed since its baseline."""

    def __init__(
        self,
        rec: Cited,
        repo: list[Citation],
        external: list[str],
        cited: list[str],
        since: Since,
        existing: PathSet,
        dirty_paths: PathSet,
    ):
        self.rec, self.repo, self.external, self.cited, self.since = rec, repo, external, cited, since
        editing = rec.dirty or rec.commit is None  # being edited, or never committed: now is its baseline
        self.base = None if editing else rec.commit
        self.dirty = [] if editing else sorted(_covered(cited, dirty_paths, rec.path))
        self.changed = since.files | set(self.dirty)
        self.gone = {f for f in self.changed if not existing.has(f)}
        self.covered: dict[str, list[str]] = {
            c.ref: ([c.path] if c.path and existing.has(c.path) else [])
            if c.kind in REGION_KINDS
            else [f for f in existing.covered(c.path or "") if f != rec.path]
            for c in repo
        }


def _row(p: _Plan, h: History) -> dict[str, Any] | None:
    """The stored row: the committed part, plus what the view shows now (the texts of the cited code,
    uncommitted changes), which every computation derives afresh. None for a record whose citations are
    all unresolved (`jgm check` reports them)."""
    rec, since = p.rec, p.since
    assert h.texts is not None
    verdicts = [v.public() for v in judge(p.repo, p.covered, p.changed, p.gone, p.base, h.texts)]
    external = p.external + [v["ref"] for v in verdicts if v["state"] == "external"]
    checked = [v for v in verdicts if v["state"] not in ("external", "unresolved")]
    states = {v["state"] for v in checked}
    if not checked and not external:
        return None
    state = (
        "missing" if "missing" in states else "drifted" if "drifted" in states else "fresh" if checked else "external"
    )
    missing = [_shown(v["ref"]) for v in checked if v["state"] == "missing"]
    added = since.added + sum(h.dirty[f][0] for f in p.dirty)
    deleted = since.deleted + sum(h.dirty[f][1] for f in p.dirty)
    files = since.files | set(p.dirty)
    return {
        "state": state,
        "cited": path_citations(v["ref"] for v in checked),
        "citations": verdicts,
        "external": external,
        "unresolved": [v["ref"] for v in verdicts if v["state"] == "unresolved"],
        "missing": missing,
        "changed": since.listed,
        "commits": since.count,
        "uncommitted": p.dirty,
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


def _shown(ref: str) -> str:
    """A missing citation as listed: the path for a whole path (as before), the citation for a region."""
    c = parse(ref)
    return c.path if c.kind in ("file", "folder", "glob") and c.path else ref


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
