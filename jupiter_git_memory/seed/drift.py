"""Evidence drift at seed time: the records a view holds in force, their citations and baselines, and the
states computed only when what they depend on changed (git/drift.drift_key): incrementally from the
stored rows when the view's commit moved forward (git/drift.commits_since), else in full."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..git import drift as drift_git
from ..records.citations import citations_of
from ..records.drift import Cited, Prior, drift_states, reusable
from ..records.model import IN_FORCE
from ..records.row import RecordRow


def cited_records(rows: dict[str, RecordRow]) -> list[Cited]:
    """The in-force file records of a view that cite anything (repository paths, regions, external evidence)."""
    out = []
    for rid, r in sorted(rows.items()):
        if r.origin != "file" or r.error or r.effective_status not in IN_FORCE:
            continue
        cites = tuple(citations_of(r.data))
        if cites:
            out.append(Cited(rid, r.path, r.commit_sha, bool(r.dirty), cites))
    return out


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
    key = drift_git.drift_key(commit, cited, st) + (f":shallow={shallow}" if shallow else "")
    if key == stored_key:
        return key, None
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
