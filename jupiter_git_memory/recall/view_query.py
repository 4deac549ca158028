"""Dense search restricted to one view's chunks.

Chroma holds the vectors of every view (content-addressed, shared), but a view holds only some of them, at
its own statuses, so the filter cannot live in Chroma's metadata. Searching unfiltered and filtering here
is also the fast path (a `where` filter made local Chroma ~6x slower; fact-bench-chroma-filtered-query):
fetch OVERFETCH x n, keep the view's chunks, and widen the search only when too few pass.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..index.vectors import VectorIndex

OVERFETCH = 4


def view_query(
    vectors: VectorIndex, vector: np.ndarray, n: int, keep: Callable[[str], bool]
) -> list[tuple[str, float]]:
    """[(chunk id, cosine)] of the best `n` chunks passing `keep`, best first."""
    total = vectors.count()
    if not total:
        return []
    n = max(n, 1)
    fetch = min(n * OVERFETCH, total)
    while True:
        got = vectors.query(vector, fetch)
        kept = [(cid, cos) for cid, cos, _ in got if keep(cid)]
        if len(kept) >= n or len(got) < fetch or fetch >= total:
            return kept[:n]
        fetch = min(fetch * OVERFETCH, total)
