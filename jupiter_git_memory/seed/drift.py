"""Evidence drift at seed time: the records a view holds in force, their citations and baselines, and the
states computed only when what they depend on changed (index/drift_git.drift_key)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..index import drift_git
from ..records.citations import citations_of
from ..records.drift import Cited, drift_states, path_citations
from ..records.model import IN_FORCE
from ..records.row import RecordRow


def cited_records(rows: dict[str, RecordRow]) -> list[Cited]:
    """The in-force file records of a view that cite repository paths."""
    out = []
    for rid, r in sorted(rows.items()):
        if r.origin != "file" or r.error or r.effective_status not in IN_FORCE:
            continue
        cites = tuple(path_citations(citations_of(r.data)))
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
) -> tuple[str, list[dict[str, Any]] | None]:
    """(drift key, the view's drift rows or None when `stored_key` says they are current). `status`: the
    worktree's `git status` when the caller already read it (the seed does, for its dirty paths)."""
    cited = cited_records(rows)
    st = (drift_git.status(root) if status is None else status) if worktree else None
    key = drift_git.drift_key(commit, cited, st)
    if key == stored_key:
        return key, None
    states = drift_states(cited, drift_git.history(root, commit, cited, st)) if cited else {}
    return key, [{"id": rid, **d} for rid, d in sorted(states.items())]
