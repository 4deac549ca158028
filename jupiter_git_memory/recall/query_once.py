"""One find's memory of its own question, and the word holders it reads ahead while its lexical worker runs.

Why: default recall may search twice, in force and then proposed (recall/fallback.py), with the same query.
The second search reuses the first's query vector, Chroma answers, chunk vectors, FTS window and word
holders. The holders, which corroboration weighs, are read in a background thread on the catalog's second
connection (Catalog.prefetch_holders) while the first runs the FTS query: the very read corroboration
makes, so answers are identical whether it went ahead or not (tests/test_find_memo.py). Nothing here
outlives the question, so no answer comes from an earlier one.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from ..index.failures import index_failures


def _lower() -> None:
    """A read ahead may turn out unneeded (no band to corroborate): it yields the cores to the lexical worker
    and the answer's own thread (measured at 100,000 chunks: ~2 ms off the API p50). Only Linux takes a
    thread's id for PRIO_PROCESS; elsewhere that id could name another process, so the thread keeps its
    priority there."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError):
            tid = threading.get_native_id()
            os.setpriority(os.PRIO_PROCESS, tid, min(os.getpriority(os.PRIO_PROCESS, tid) + 10, 19))  # 10 nicer


_AHEAD = ThreadPoolExecutor(max_workers=2, thread_name_prefix="jgm-ahead", initializer=_lower)  # not the lexical pool
# The question's own embedding, started before the view is prepared: it is on every answer's critical path, so
# its thread keeps the normal priority (two workers: two answers at once in a server).
_EARLY = ThreadPoolExecutor(max_workers=2, thread_name_prefix="jgm-embed")


class Fetched:
    """The vector index as view_query reads it, keeping the last (widest) batch it fetched. With `memo` (one
    find's: `QueryOnce.searched`), a search asked again with the same vector and size is answered from the
    first: a fallback search repeats the in-force search's Chroma queries, and a server round trip costs
    3-20 ms at 100,000 chunks. Only identical questions: HNSW's best n are not a prefix of its best 4n."""

    def __init__(self, vectors: Any, memo: dict[tuple[bytes, int], list[tuple[str, float]]] | None = None):
        self._vectors = vectors
        self._memo = memo
        self.last: list[tuple[str, float]] = []

    def count(self) -> int:
        return int(self._vectors.count())

    def query(self, vector: Any, n: int) -> list[tuple[str, float]]:
        key = (vector.tobytes(), n)
        if self._memo is not None and key in self._memo:
            self.last = self._memo[key]
        else:
            self.last = list(self._vectors.query(vector, n))
            if self._memo is not None:
                self._memo[key] = self.last
        return self.last


class QueryOnce:
    """An embedder that embeds each query once and keeps what one find read: its Chroma queries
    (`searched`, see Fetched), the chunk vectors it fetched (`stored`), its lexical window (`matched`, see
    retrieval.lexical) and the records holding each word (`held`, see retrieval.corroborate). `prefetch`,
    set by find, is started by the first search (retrieval.hits) once.

    With `early`, that question's embedding starts now in a worker, while the answer's thread prepares the
    view, reads the floor and the view map (~1 ms, more on a stale view) and starts the lexical query; the
    first search waits for it. The vector is the embedder's own, so answers are identical; an embedding error
    is raised where the search asks for the vector, as before."""

    def __init__(self, embedder: Any, early: str | None = None, started: Future[Any] | None = None):
        self._embedder = embedder
        self.spec = embedder.spec
        self._vectors: dict[str, Any] = {}
        self._early: dict[str, Future[Any]] = {}
        if early is not None:  # `started`: that embedding, already begun (embed_ahead)
            self._early[early] = started or embed_ahead(embedder, early)
        self.searched: dict[tuple[bytes, int], list[tuple[str, float]]] = {}
        self.stored: dict[str, Any] = {}
        self.matched: dict[tuple[str, int], list[tuple[str, float]]] = {}
        self.held: dict[str, Any] = {}
        self.prefetch: Callable[[], None] | None = None  # the word holders, read beside the lexical worker
        self._prefetched: Future[None] | None = None

    def embed_query(self, query: str) -> Any:
        if query not in self._vectors:
            started = self._early.pop(query, None)
            self._vectors[query] = started.result() if started is not None else self._embedder.embed_query(query)
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


def embed_ahead(embedder: Any, query: str) -> Future[Any]:
    """`query`'s vector, embedded in the early workers from now (two at a time)."""
    return _EARLY.submit(embedder.embed_query, query)


def _quietly(fn: Callable[[], None]) -> None:
    """Run a read ahead; if the catalog fails it, corroboration reads what it needs itself and meets the error
    there (a bug is not caught: `ready_held` raises it in the answer's thread)."""
    with contextlib.suppress(sqlite3.Error, OSError, *index_failures()):
        fn()
