"""The Chroma side of the index, embedded (PersistentClient) or a `chroma run` server (HttpClient).

The collection carries the vector identity in its metadata; opening it with another identity is refused
so vectors of two models are never mixed.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from urllib.parse import urlparse

import numpy as np

from ..embedding.specs import identity_hash


class IdentityMismatch(RuntimeError):
    def __init__(self, stored: dict, wanted: dict):
        self.stored, self.wanted = stored, wanted
        super().__init__(
            "the index was built with another embedding identity and cannot take these vectors.\n"
            f"  index:     {identity_hash(stored)} {json.dumps(_summary(stored))}\n"
            f"  requested: {identity_hash(wanted)} {json.dumps(_summary(wanted))}\n"
            "  rebuild it with `jgm seed --rebuild` (or select the index's model with JGM_MODEL / jgm.toml `model`)")


def _summary(identity: dict) -> dict:
    keys = ("model", "revision", "dimension", "pooling", "chunker")
    return {k: identity.get(k) for k in keys}


_clients: dict[str, object] = {}
_clients_lock = threading.Lock()
_current_at: dict[str, int] = {}  # location -> catalog generation its cached client is known to reflect


def _client(location: str):
    import chromadb

    with _clients_lock:
        c = _clients.get(location)
        if c is None:
            settings = chromadb.Settings(anonymized_telemetry=False, allow_reset=False)
            if location.startswith(("http://", "https://")):
                u = urlparse(location)
                c = chromadb.HttpClient(host=u.hostname or "127.0.0.1", port=u.port or (443 if u.scheme == "https" else 80),
                                        ssl=u.scheme == "https", settings=settings)
            else:
                Path(location).mkdir(parents=True, exist_ok=True)
                c = chromadb.PersistentClient(path=location, settings=settings)
            _clients[location] = c
        return c


def reset_clients(location: str | None = None) -> None:
    """Drop cached clients (one location, or all) so the next open re-reads what another process wrote.

    Only that location's Chroma system is forgotten: other workspaces served by the same process keep
    theirs, and objects still holding the old client stay usable until they reopen.
    """
    from chromadb.api.shared_system_client import SharedSystemClient as shared

    with _clients_lock:
        if location is None:
            _clients.clear()
            _current_at.clear()
            shared.clear_system_cache()
            return
        _clients.pop(location, None)
        _current_at.pop(location, None)
        if not location.startswith(("http://", "https://")):  # HttpClient systems are per client already
            shared._identifier_to_system.pop(location, None)
            shared._identifier_to_refcount.pop(location, None)


def mark_current(location: str, generation: int) -> None:
    """This process's cached client for `location` reflects the catalog at `generation` (it just wrote it)."""
    with _clients_lock:
        _current_at[location] = generation


def refresh_if_stale(location: str, generation: int) -> None:
    """Drop the cached client when the catalog moved past what it reflects, i.e. another process wrote.

    A client opened before another process's write keeps the old HNSW in memory: reading through it misses
    the new vectors, and writing through it clobbers them (fact-chroma-stale-writer-clobbers). Only a
    generation change forces a reopen, because every reopen leaks a little in long-lived servers. A
    `chroma run` server has no such cache."""
    if location.startswith(("http://", "https://")):
        return
    with _clients_lock:
        stale = _current_at.get(location) != generation
    if stale:
        reset_clients(location)
        mark_current(location, generation)


class VectorIndex:
    """One workspace's collection. Metadata per chunk: record_id, kind, status, path, commit, ordinal."""

    def __init__(self, location: str, collection: str, identity: dict):
        self.location = location
        self.name = collection
        self.identity = identity
        self.client = _client(location)
        self.col = self._open()
        self._count: int | None = None

    def _open(self):
        ident = identity_hash(self.identity)
        col = self.client.get_or_create_collection(
            self.name, embedding_function=None,
            metadata={"hnsw:space": "cosine", "jgm_identity": ident, "jgm_identity_json": json.dumps(self.identity, sort_keys=True)})
        meta = col.metadata or {}
        if meta.get("jgm_identity") != ident:
            stored = json.loads(meta.get("jgm_identity_json") or "{}")
            raise IdentityMismatch(stored, self.identity)
        return col

    @staticmethod
    def drop(location: str, collection: str) -> None:
        try:
            _client(location).delete_collection(collection)
        except Exception:  # not there: nothing to drop
            pass

    def ids(self) -> set[str]:
        out: set[str] = set()
        offset, page = 0, 5000
        while True:
            got = self.col.get(include=[], limit=page, offset=offset)["ids"]
            out.update(got)
            if len(got) < page:
                return out
            offset += page

    def count(self) -> int:
        """Cached: every recall needs it, and writes through this object reset it (other processes'
        writes bump the catalog generation, and readers then open a new VectorIndex)."""
        if self._count is None:
            self._count = self.col.count()
        return self._count

    def add(self, ids: list[str], vectors: np.ndarray, metadatas: list[dict]) -> None:
        self._count = None
        for i in range(0, len(ids), 1000):
            self.col.upsert(ids=ids[i : i + 1000], embeddings=vectors[i : i + 1000], metadatas=metadatas[i : i + 1000])

    def update_metadata(self, ids: list[str], metadatas: list[dict]) -> None:
        for i in range(0, len(ids), 1000):
            self.col.update(ids=ids[i : i + 1000], metadatas=metadatas[i : i + 1000])

    def delete(self, ids: list[str]) -> None:
        self._count = None
        for i in range(0, len(ids), 1000):
            self.col.delete(ids=ids[i : i + 1000])

    def query(self, vector: np.ndarray, n: int) -> list[tuple[str, float, dict]]:
        """[(chunk_id, cosine similarity, metadata)] best first, unfiltered: which chunks count depends on the
        view asking, so callers filter (recall.view_query; a `where` filter was ~6x slower locally anyway,
        fact-bench-chroma-filtered-query)."""
        res = self.col.query(query_embeddings=[vector], n_results=max(n, 1), include=["distances", "metadatas"])
        return [(i, 1.0 - float(d), m) for i, d, m in zip(res["ids"][0], res["distances"][0], res["metadatas"][0])]

    def vectors(self, ids: list[str]) -> dict[str, np.ndarray]:
        if not ids:
            return {}
        res = self.col.get(ids=ids, include=["embeddings"])
        return {i: np.asarray(e, dtype=np.float32) for i, e in zip(res["ids"], res["embeddings"])}

