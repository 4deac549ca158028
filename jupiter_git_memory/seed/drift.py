"""Evidence drift at seed time: the records a view holds in force, their citations and baselines, and the
states computed only when what they depend on changed (git/drift.drift_key): incrementally from the
stored rows when the view's commit moved forward (git/drift.commits_since), else in full."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..git import drift as drift_git
from ..git import revisions
from ..records.citations import citations_of
from ..records.drift import Cited, Prior, drift_states, reusable
from ..records.formats.reviewed import reviewed_commit
from ..records.model import IN_FORCE, Issue, Record
from ..records.row import RecordRow


def cited_records(rows: dict[str, RecordRow], confirmed: dict[str, str] | None = None) -> list[Cited]:
    """The in-force file records of a view that cite anything (repository paths, regions, external evidence).
    `confirmed`: id -> the commit a person last confirmed the record at (`reviewed_baselines`), its baseline
    instead of its file's commit."""
    out = []
    for rid, r in sorted(rows.items()):
        if r.origin != "file" or r.error or r.effective_status not in IN_FORCE:
            continue
        cites = tuple(citations_of(r.data))
        if cites:
            out.append(Cited(rid, r.path, (confirmed or {}).get(rid, r.commit_sha), bool(r.dirty), cites))
    return out


def reviewed(cited: list[Cited], rows: dict[str, RecordRow]) -> dict[str, str]:
    """id -> the commit its `reviewed` value names, for the committed, unedited records that have one (an
    edited record is its own baseline until committed)."""
    out = {}
    for r in cited:
        sha = reviewed_commit(rows[r.id].data) if r.commit and not r.dirty else None
        if sha:
            out[r.id] = sha
    return out


def reviewed_baselines(root: Path, commit: str, named: dict[str, str]) -> dict[str, str]:
    """The baseline rule (dec-drift-confirm): a confirmed record counts its drift from the commit it was
    confirmed at, when that commit is in the view's history; a `reviewed` value naming no commit there (a
    typo, a rebased or squashed-away branch, beyond a shallow clone) leaves the file's last commit, and
    `jgm check` warns about it."""
    found = revisions.in_history(root, list(named.values()), commit)
    return {rid: found[sha] for rid, sha in named.items() if sha in found}


def _digest(items: list) -> str:
    return hashlib.sha256(json.dumps(items).encode()).hexdigest()[:16]


def view_drift(
    root: Path,
    commit: str | None,
    worktree: bool,
    rows: dict[str, RecordRow],
    stored_key: str,
    status: bytes | None = None,
    stored: Callable[[], dict[str, dict[str, Any]]] | None = None,
) -> tuple[str, list[dict[str, Any]] | None]:
    """(drift key, the view's drift rows or None when `stored_key` says they are current). `status`: the
    worktree's `git status` when the caller already read it (the seed does, for its dirty paths); `stored`:
    reads the view's stored rows (id -> row), which a changed key extends where it can; pass "" and None to
    compute every state afresh (`seed --rebuild`)."""
    cited = cited_records(rows)
    st = (drift_git.status(root) if status is None else status) if worktree else None
    shallow = drift_git.shallow_marker(root)
    named = reviewed(cited, rows)  # in the key as written: resolved only when the key moved
    confirmed = ":reviewed=" + _digest(sorted(named.items())) if named else ""
    key = drift_git.drift_key(commit, cited, st) + confirmed + (f":shallow={shallow}" if shallow else "")
    if key == stored_key:
        return key, None
    if named and commit:
        cited = cited_records(rows, reviewed_baselines(root, commit, named))
    if stored_key.partition(":shallow=")[2] != shallow:
        stored = None  # computed against other history (before an unshallow): nothing of it extends
    states = compute(root, commit, cited, st, stored() if stored else {}) if cited else {}
    return key, [{"id": rid, **d} for rid, d in sorted(states.items())]


def compute(
    root: Path, commit: str | None, cited: list[Cited], status: bytes | None, stored: dict[str, dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    """The drift of `cited` at `commit`, equal to a full computation: the `stored` rows that extend (same
    record state, computed at an ancestor) by the commits since, the others from their own history."""
    prior = _prior(root, commit, stored)
    keep = reusable(cited, prior)
    return drift_states(cited, drift_git.history(root, commit, [r for r in cited if r.id not in keep], status), prior)


def _prior(root: Path, commit: str | None, rows: dict[str, dict[str, Any]]) -> Prior | None:
    """The stored rows with the commits since they were computed, when they extend to `commit`."""
    ats = {(d.get("basis") or {}).get("at") for d in rows.values()}
    old = ats.pop() if len(ats) == 1 else None
    if not (commit and isinstance(old, str) and old):
        return None
    later = drift_git.commits_since(root, old, commit)
    return None if later is None else Prior(old, rows, later)


def reviewed_warnings(root: Path, records: Iterable[Record]) -> list[Issue]:
    """`jgm check`: a warning per record whose `reviewed` value names a commit that is not in HEAD's history
    (its drift then counts from its file's last commit, as if it had never been confirmed)."""
    named = {r.id: (r, sha) for r in records if (sha := reviewed_commit({"metadata": r.metadata}))}
    head = revisions.head_commit(root) if named else None
    if not head:
        return []
    found = revisions.in_history(root, [sha for _, sha in named.values()], head)
    return [
        Issue(
            r.path,
            f"`reviewed:` names {sha[:12]}, which is not a commit in this branch's history (a typo, or a "
            "rebased or squashed-away commit): its drift counts from the file's last commit instead",
            f"run `jgm drift confirm {r.id}` to confirm it at the current commit",
            severity="warning",
            line=next((n for k, n in r.lines.items() if k.lower() == "reviewed"), None),
            record_id=r.id,
        )
        for r, sha in named.values()
        if sha not in found
    ]
