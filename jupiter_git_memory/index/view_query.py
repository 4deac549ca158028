"""Dense search restricted to one view's chunks.

Chroma holds the vectors of every view (content-addressed, shared), but a view holds only some of them, at
its own statuses, so the filter cannot live in Chroma's metadata. Searching unfiltered and filtering here
is also the fast path (a `where` filter made local Chroma ~6x slower; fact-bench-chroma-filtered-query):
fetch OVERFETCH x n, keep the view's chunks, and widen the search only when too few pass and a wider one
could still find a chunk that counts (`beyond`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .handle import Index
from .vectors import VectorIndex

OVERFETCH = 4


def view_query(
    vectors: VectorIndex,
    vector: np.ndarray,
    n: int,
    keep: Callable[[str], bool],
    beyond: Callable[[float], bool] | None = None,
) -> list[tuple[str, float]]:
    """[(chunk id, cosine)] of the best `n` chunks passing `keep`, best first. `beyond(cos)`: whether no chunk
    at or below that cosine can count (recall: nothing at or below the floor is admitted). Once the farthest
    chunk fetched is beyond and at least one chunk passed (an empty answer still names the best one), a
    wider search would only add chunks that cannot count: the proposed fallback, whose chunks are rare among
    the nearest, used to widen 4x and 16x for them (two more Chroma round trips at 100,000 chunks)."""
    total = vectors.count()
    if not total:
        return []
    n = max(n, 1)
    fetch = min(n * OVERFETCH, total)
    while True:
        got = vectors.query(vector, fetch)
        kept = [(cid, cos) for cid, cos in got if keep(cid)]
        if len(kept) >= n or len(got) < fetch or fetch >= total:
            return kept[:n]
        if beyond is not None and kept and beyond(got[-1][1]):
            return kept
        fetch = min(fetch * OVERFETCH, total)


def lost_vectors(index: Index) -> str | None:
    """Why this index cannot be trusted to say "no match", or None. The catalog lists chunks that Chroma lacks
    (vectors lost, e.g. to a store restored in part or a collection dropped by hand): recall then raises
    instead of answering empty, and warns that a non-empty answer may be partial."""
    missing = index.missing_vectors
    if not missing:
        return None
    return (
        f"the index is incomplete: {missing} of {index.catalog.stored_chunk_count()} chunks in the catalog have "
        "no vector in Chroma; run `jgm seed` (or `jgm doctor --repair`) to re-embed them"
    )
