"""The recall inspector's second look: which nearby records recall left out, and why.

Why a second pass instead of instrumenting recall: the answer and its receipt must come from the same
`Recaller.recall` every surface uses. This pass asks the index again without the status/kind filters
(same candidate pool size as recall) and ranks what the filters allow with the same `rank`, which records
on each hit the rule that cut it (the floor, the corroboration margin) or its place below k. It stores nothing.
"""

from __future__ import annotations

import contextlib
import copy
from typing import Any

from ...base.store import workspace_lock
from ...recall.ranking import cut_reason, floor_of, rank, relevance
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


def _filtered(h, statuses, kinds) -> str | None:
    if h.status not in statuses:
        return f"filter: status {h.status} was not asked for"
    if kinds and h.kind not in kinds:
        return f"filter: kind {h.kind} was not asked for"
    return None


def cuts(
    recaller, query: str, k: int, kinds: list[str] | None, statuses: list[str], mode: str, returned: list[str]
) -> list[dict[str, Any]]:
    """Records near the question that recall did not return, nearest first, each with the rule that cut it:
    a filter, or the verdict `rank` itself recorded on the hit (ranking.exclusion), never a re-derivation.
    Scores are comparable: `relevance` is the dense relevance above the floor, `lexical` the record's bm25
    as a share of the best one here (raw bm25 has no scale), `corroboration` the IDF mass the band needs."""
    s = recaller.settings
    info = recaller.floor_info(query)  # the question's own floor and gates, as recall held it to them
    floor, margin = info.value, s.corroborate_margin
    with workspace_lock(recaller.wsdir, exclusive=False):
        index = recaller.index()
        pair = info.cross_floor if mode != "lexical" else None  # as recall: the other language's beyond the pool
        hits = recaller.hits(index, query, list(ALL_EFFECTIVE), None, max(30, k * 6), mode != "dense", pair)
        recaller.weigh(index, query, hits, mode, info)  # as recall does: pair floors, measured corroboration
        rows = index.catalog.records_by_ids([h.record_id for h in hits if h.record_id not in returned])
    allowed = [copy.copy(h) for h in hits if _filtered(h, statuses, kinds) is None]
    w = recaller.weights
    ranked = rank(allowed, floor, w, len(allowed) or 1, mode, s.lexical_weight, margin, gate=info.gate)
    order = {h.record_id: i + 1 for i, h in enumerate(ranked)}
    verdict = {h.record_id: h for h in allowed}
    top_lexical = max((h.lexical for h in hits), default=0.0)
    out = []
    for h in sorted(hits, key=lambda h: (-h.cos, h.record_id)):
        if h.record_id in returned or h.record_id not in rows:
            continue
        why = _filtered(h, statuses, kinds)
        judged = verdict.get(h.record_id)
        if why is None and judged is not None:
            why = cut_reason(judged, floor, margin)
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
                "relevance": round(relevance(h.cos, floor_of(h, floor)), 4),
                "lexical": round(h.lexical / top_lexical, 3) if top_lexical > 0 else 0.0,
                "corroboration": None if h.corroboration is None else round(h.corroboration, 3),
                "rule": judged.cut if judged is not None else "filter",
                "why": why,
            }
        )
    return out[:MAX_CUTS]
