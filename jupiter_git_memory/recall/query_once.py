"""One find's memory of its own question, and what it reads ahead while its lexical worker runs.

Why: default recall may search twice, in force and then proposed (recall/fallback.py), with the same query.
The second search reuses the first's query vector, Chroma answers, chunk vectors, FTS window and word
holders. Two reads go ahead in background threads, both the very reads a later step makes, so answers are
identical whether they went ahead or not (tests/test_find_memo.py):
- the words' holders, which corroboration weighs, on the catalog's second connection (Catalog.prefetch_holders)
  while the first runs the FTS query;
- when the first search's dense results already show that nothing in force will pass the floor, the
  fallback's own Chroma queries (proposed chunks are rare among the nearest, so it widens 4× a time).
Nothing here outlives the question, so no answer comes from an earlier one.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from ..index.view_query import view_query


def _lower() -> None:
    """Work asked ahead may turn out unneeded: it yields the cores to the lexical worker and the answer's own
    thread (measured at 100,000 chunks: ~2 ms off the API p50). Linux takes a thread's id here."""
    with contextlib.suppress(OSError, AttributeError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)


_AHEAD = ThreadPoolExecutor(
    max_workers=2, thread_name_prefix="jgm-ahead", initializer=_lower
)  # apart from the lexical workers
_LOCK = threading.Lock()

Key = tuple[bytes, int]


class Fetched:
    """The vector index as view_query reads it, keeping the last (widest) batch it fetched. With `memo` (one
    find's: `QueryOnce.searched`), a search asked again with the same vector and size is answered from the
    first, or waits for it when it is still on its way (asked ahead): a server round trip costs 3-20 ms at
    100,000 chunks. Only identical questions: HNSW's best n are not a prefix of its best 4n."""

    def __init__(self, vectors: Any, memo: dict[Key, Future[list[tuple[str, float]]]] | None = None):
        self._vectors = vectors
        self._memo = memo
        self.last: list[tuple[str, float]] = []

    def count(self) -> int:
        return int(self._vectors.count())

    def query(self, vector: Any, n: int) -> list[tuple[str, float]]:
        if self._memo is None:
            self.last = list(self._vectors.query(vector, n))
            return self.last
        key = (vector.tobytes(), n)
        with _LOCK:
            asked = self._memo.get(key)
            mine = asked is None
            if asked is None:
                asked = self._memo[key] = Future()
        if mine:
            try:
                asked.set_result(list(self._vectors.query(vector, n)))
            except BaseException as e:  # whoever waits for this query sees its error, as if it had asked
                asked.set_exception(e)
                raise
        self.last = asked.result()
        return self.last


class QueryOnce:
    """An embedder that embeds each query once and keeps what one find read: its Chroma queries
    (`searched`, see Fetched), the chunk vectors it fetched (`stored`), its lexical window (`matched`, see
    retrieval.lexical) and the records holding each word (`held`, see retrieval.corroborate). `ahead`, set
    by find, is taken by the first search's dense results (retrieval.hits) once."""

    def __init__(self, embedder: Any):
        self._embedder = embedder
        self.spec = embedder.spec
        self._vectors: dict[str, Any] = {}
        self.searched: dict[Key, Future[list[tuple[str, float]]]] = {}
        self.stored: dict[str, Any] = {}
        self.matched: dict[tuple[str, int], list[tuple[str, float]]] = {}
        self.held: dict[str, Any] = {}
        self.ahead: Callable[[Any, float], None] | None = None
        self.prefetch: Callable[[], None] | None = None  # the word holders, read beside the lexical worker
        self._prefetched: Future[None] | None = None

    def embed_query(self, query: str) -> Any:
        if query not in self._vectors:
            self._vectors[query] = self._embedder.embed_query(query)
        return self._vectors[query]

    def searching(self) -> None:
        """The first search starts: read what `prefetch` reads in the background, once."""
        prefetch, self.prefetch = self.prefetch, None
        if prefetch is not None:
            self._prefetched = _AHEAD.submit(_quietly, prefetch)

    def ready_held(self) -> dict[str, Any]:
        """`held`, once the holders read ahead are in (a failed read ahead leaves them to corroboration)."""
        if self._prefetched is not None:
            self._prefetched.result()
        return self.held

    def dense_seen(self, qvec: Any, best: float) -> None:
        """The first search's dense results are in (`best`: their best cosine): start what `ahead` asks."""
        ahead, self.ahead = self.ahead, None
        if ahead is not None:
            ahead(qvec, best)


def fallback_ahead(
    once: QueryOnce, vectors: Any, keep: Callable[[str], bool], n: int, likely: float
) -> Callable[[Any, float], None]:
    """What `once.ahead` does for a find that may fall back: when no in-force chunk the dense search found
    reaches `likely` (the floor, plus the margin where hits need corroboration), ask the fallback's widening Chroma queries (`n` chunks passing `keep`) in the
    background; the fallback search then finds them in `once.searched`. A recall that does not fall back
    after all only spent the server's time on them."""

    def start(qvec: Any, best: float) -> None:
        if best <= likely:
            _AHEAD.submit(_quietly, view_query, Fetched(vectors, once.searched), qvec, n, keep)

    return start


def _quietly(fn: Callable[..., Any], *args: Any) -> None:
    """Run a query asked ahead; its error reaches the fallback through the memo's future, if it asks."""
    with contextlib.suppress(Exception):
        fn(*args)
