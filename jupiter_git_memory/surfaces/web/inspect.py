"""The recall inspector's second look: which nearby records recall left out, and why.

Why a second pass instead of instrumenting recall: the answer and its receipt must come from the same
`Recaller.recall` every surface uses. This pass asks the index again without the status/kind filters
(same candidate pool size as recall), then replays the contract's rules on each left-out record: a
filter, the floor, the corroboration margin, or simply ranking below k. It stores nothing.
"""

from __future__ import annotations

import contextlib
import copy
from typing import Any

from ...base.store import workspace_lock
from ...recall.ranking import rank
from ...records.model import ALL_EFFECTIVE

MAX_CUTS = 15


class _QueryMemo:
    """The recaller's embedder, remembering query vectors: the inspector's two passes embed the question once."""

    def __init__(self, embedder):
        self._embedder, self._memo = embedder, {}

    def embed_query(self, text: str):
        if text not in self._memo:
            self._memo[text] = self._embedder.embed_query(text)
        return self._memo[text]

    def __getattr__(self, name):
        return getattr(self._embedder, name)


@contextlib.contextmanager
def embed_once(recaller):
    """Inside `handle.reading()` (exclusive use of the recaller): one query embedding for recall + cuts."""
    real = recaller.embedder
    recaller.embedder = _QueryMemo(real)
    try:
        yield
    finally:
        recaller.embedder = real


def floor_info(recaller) -> dict[str, Any]:
    """{floor, source, warnings, ...} from `Recaller.floor()`, whatever extra provenance it carries."""
    f = recaller.floor()
    if isinstance(f, dict):
        return dict(f)
    if isinstance(f, (tuple, list)):
        out: dict[str, Any] = {
            "floor": f[0],
            "source": f[1] if len(f) > 1 else None,
            "warnings": f[2] if len(f) > 2 else [],
        }
        for extra in f[3:]:
            if isinstance(extra, dict):
                out.update(extra)
        return out
    return {"floor": getattr(f, "floor", f), "source": getattr(f, "source", None), "warnings": []}


def _reason(h, statuses, kinds, floor, mode, margin) -> str | None:
    if h.status not in statuses:
        return f"filter: status {h.status} was not asked for"
    if kinds and h.kind not in kinds:
        return f"filter: kind {h.kind} was not asked for"
    if mode == "lexical":
        return None if h.lexical > 0 else "no lexical match (lexical mode)"
    if h.cos <= floor:
        return f"floor: cosine {h.cos:.3f} ≤ floor {floor:.3f}"
    if mode == "hybrid" and margin > 0 and h.cos <= floor + margin and h.lexical <= 0:
        return f"corroboration: cosine {h.cos:.3f} is within {margin} of the floor and no word matched"
    return None


def cuts(
    recaller, query: str, k: int, kinds: list[str] | None, statuses: list[str], mode: str, returned: list[str]
) -> list[dict[str, Any]]:
    """Records near the question that recall did not return, nearest first, each with the rule that cut it."""
    s = recaller.settings
    floor = float(floor_info(recaller)["floor"])
    with workspace_lock(recaller.wsdir, exclusive=False):
        index = recaller.index()
        hits = recaller.hits(index, query, list(ALL_EFFECTIVE), None, max(30, k * 6), mode != "dense")
        rows = index.catalog.records_by_ids([h.record_id for h in hits if h.record_id not in returned])
    margin = s.corroborate_margin
    allowed = [copy.copy(h) for h in hits if h.status in statuses and (not kinds or h.kind in kinds)]
    order = {
        h.record_id: i + 1
        for i, h in enumerate(rank(allowed, floor, recaller.weights, len(allowed) or 1, mode, s.lexical_weight, margin))
    }
    out = []
    for h in sorted(hits, key=lambda h: (-h.cos, h.record_id)):
        if h.record_id in returned or h.record_id not in rows:
            continue
        why = _reason(h, statuses, kinds, floor, mode, margin)
        if why is None:
            why = (
                f"ranked {order[h.record_id]} of {len(order)}, below k = {k}" if h.record_id in order else "not ranked"
            )
        row = rows[h.record_id]
        out.append(
            {
                "id": h.record_id,
                "title": row.title,
                "kind": h.kind,
                "status": h.status,
                "origin": row.origin,
                "cos": round(h.cos, 4),
                "lexical": round(h.lexical, 3),
                "why": why,
            }
        )
    return out[:MAX_CUTS]
