"""The Chroma side of the index, embedded (PersistentClient) or a `chroma run` server (HttpClient).

The collection carries the vector identity in its metadata; opening it with another identity is refused
so vectors of two models are never mixed.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import weakref
from collections.abc import Hashable, Iterator
from pathlib import Path
from urllib.parse import urlparse

import numpy as np

from ..base import error_codes as E
from ..base.errors import JgmError, StoreFull, store_failures, store_problem
from ..base.memory import give_back
from ..base.store import private_dir
from ..embedding.specs import identity_hash
from .failures import chroma_failures


class IdentityMismatch(JgmError, RuntimeError):
    entry = E.INDEX_IDENTITY_MISMATCH

    def __init__(self, stored: dict, wanted: dict):
        self.stored, self.wanted = stored, wanted
        super().__init__(
            "the index was built with another embedding identity and cannot take these vectors.\n"
            f"  index:     {identity_hash(stored)} {json.dumps(_summary(stored))}\n"
            f"  requested: {identity_hash(wanted)} {json.dumps(_summary(wanted))}\n"
            f"  rebuild it for the requested model with `jgm seed --rebuild` (or `jgm model use {_name(wanted)}`), "
            f"or answer with the index's model: `jgm model use {_name(stored)}` / JGM_MODEL / jgm.toml `model`"
        )


def _name(identity: dict) -> str:
    """The shipped spec name of an identity's model, or its model id."""
    from ..embedding.specs import shipped_name

    return shipped_name(identity.get("model")) or str(identity.get("model"))


def _summary(identity: dict) -> dict:
    keys = ("model", "revision", "dimension", "pooling", "chunker")
    return {k: identity.get(k) for k in keys}


class _Chroma:
    """One opened Chroma system for a location (an epoch), with the number of readers still using it.

    Why: a client opened before another process wrote keeps a stale HNSW in memory, so readers switch to
    a new epoch when the catalog generation moves. The old epoch cannot be stopped while a request thread
    is still inside a query through it, and dropping it without stopping leaks its Rust runtime (threads,
    SQLite and HNSW file descriptors, memory) until a full GC, if ever. So the old epoch is retired: it is
    stopped when its last user releases it."""

    def __init__(self, location: str, client, system, token: str | None = None):
        self.location, self.client, self.system, self.token = location, client, system, token
        self.users = 0
        self.retired = self.stopped = False

    def stop(self) -> None:  # called with _clients_lock held, once no user is left
        if not self.stopped:
            self.stopped = True
            _live.discard(self)
            try:
                self.system.stop()
            except Exception:  # a half-started system: nothing more we can release
                pass
            give_back()  # its HNSW and Rust buffers were freed into malloc arenas: hand the pages back


MEMORY = "memory:"  # location prefix: an empty in-memory Chroma for a reader of a store nobody has written
_clients: dict[str, _Chroma] = {}  # location -> current epoch
_live: set[_Chroma] = set()  # epochs not stopped yet (current and retired)
_clients_lock = threading.RLock()  # re-entrant: a lease's finalizer may run in a GC pass under it
_current_at: dict[str, Hashable] = {}  # location -> catalog stamp (Catalog.stamp) its current epoch reflects


def is_server(location: str) -> bool:
    return location.startswith(("http://", "https://"))


def _open_epoch(location: str) -> _Chroma:
    """A new Chroma system for `location`, owned by us rather than by chromadb's per-path system cache (that
    cache would hand the stale system back, and its refcount cannot tell our epochs apart)."""
    import chromadb
    from chromadb.api.shared_system_client import SharedSystemClient as shared

    from .server_auth import chroma_token, client_settings, refusal

    token = chroma_token() if is_server(location) else None
    settings = chromadb.Settings(anonymized_telemetry=False, allow_reset=False, **client_settings(token))
    if location.startswith(MEMORY):
        c = chromadb.EphemeralClient(settings=settings)
    elif is_server(location):
        u = urlparse(location)
        try:
            c = chromadb.HttpClient(
                host=u.hostname or "127.0.0.1",
                port=u.port or (443 if u.scheme == "https" else 80),
                ssl=u.scheme == "https",
                settings=settings,
            )
        except chroma_failures() as e:  # a gate that refused the token already answers the client's first request
            _forget_failed(shared, location)
            refused = refusal(e, location)
            if refused is not None:
                raise refused from None
            raise
    else:
        try:
            private_dir(Path(location))
            c = chromadb.PersistentClient(path=location, settings=settings)
            private_tree(location)
        except chroma_failures() as e:  # e.g. a read-only directory: say so instead of a Rust traceback
            from .recovery import ChromaUnavailable

            _forget_failed(shared, location)
            full = store_problem(e, location)
            raise (full if isinstance(full, StoreFull) else ChromaUnavailable(location, e)) from e
    system = c._system
    for ident in {c._identifier, c._admin_client._identifier}:  # the cache forgets it; we stop it ourselves
        if shared._identifier_to_system.get(ident) is system:
            shared._identifier_to_system.pop(ident, None)
            shared._identifier_to_refcount.pop(ident, None)
    epoch = _Chroma(location, c, system, token)
    _live.add(epoch)
    return epoch


def _forget_failed(shared, location: str) -> None:
    """chromadb caches a system before starting it: a start that failed (damaged files) would be handed back,
    broken, to the next open of the same path, e.g. after the damaged directory was moved aside."""
    for ident, system in list(shared._identifier_to_system.items()):
        if getattr(system.settings, "persist_directory", None) == location:
            shared._identifier_to_system.pop(ident, None)
            shared._identifier_to_refcount.pop(ident, None)
            with contextlib.suppress(Exception):
                system.stop()


def _current(location: str) -> _Chroma:
    """The current epoch (opened on first use). Call with _clients_lock held."""
    epoch = _clients.get(location)
    if epoch is not None and is_server(location):
        from .server_auth import chroma_token

        if epoch.token != chroma_token():  # the token changed (a new JGM_CHROMA_TOKEN): a client that sends it
            _retire(_clients.pop(location))
            epoch = None
    if epoch is None:
        epoch = _clients[location] = _open_epoch(location)
    return epoch


def acquire(location: str) -> _Chroma:
    """Lease the current epoch of `location`; every lease is given back with `release`."""
    with _clients_lock:
        epoch = _current(location)
        epoch.users += 1
        return epoch


def release(epoch: _Chroma) -> None:
    with _clients_lock:
        epoch.users -= 1
        if epoch.location.startswith(MEMORY) and epoch.users <= 0 and _clients.get(epoch.location) is epoch:
            _retire(_clients.pop(epoch.location))  # an empty stand-in: not worth keeping for a later reader
        elif epoch.retired and epoch.users <= 0:
            epoch.stop()


@contextlib.contextmanager
def leased_client(location: str) -> Iterator:
    """A Chroma client for a short use (doctor, drop) that a concurrent reopen cannot stop under it."""
    epoch = acquire(location)
    try:
        yield epoch.client
    finally:
        release(epoch)


def _client(location: str):
    """The current client without a lease (tests and one-shot tools that retire it themselves)."""
    with _clients_lock:
        return _current(location).client


def _retire(epoch: _Chroma) -> None:  # with _clients_lock held
    epoch.retired = True
    if epoch.users <= 0:
        epoch.stop()


def reset_clients(location: str | None = None) -> None:
    """Retire the current clients (one location, or all) so the next open re-reads what another process
    wrote. Objects still holding an old client keep it until they close; then it is stopped. Other
    workspaces served by the same process keep theirs."""
    with _clients_lock:
        locations = list(_clients) if location is None else [location]
        for loc in locations:
            epoch = _clients.pop(loc, None)
            _current_at.pop(loc, None)
            if epoch is not None:
                _retire(epoch)
        if location is None:
            _current_at.clear()


def open_epochs() -> int:
    """Epochs not stopped yet, current and retired (a leak shows here first)."""
    return len(_live)


def mark_current(location: str, generation: Hashable) -> None:
    """This process's current client for `location` reflects the catalog at `generation` (Catalog.stamp: it
    just wrote it)."""
    with _clients_lock:
        _current_at[location] = generation


def refresh_if_stale(location: str, generation: Hashable) -> None:
    """Retire the current client when the catalog moved past what it reflects, i.e. another process wrote.

    A client opened before another process's write keeps the old HNSW in memory: reading through it misses
    the new vectors, and writing through it clobbers them (fact-chroma-stale-writer-clobbers). Only a
    generation change forces a reopen: opening a Chroma system costs ~20 ms and a few threads. A
    `chroma run` server has no such cache."""
    if location.startswith(("http://", "https://")):
        return
    with _clients_lock:
        if _current_at.get(location) == generation:
            return
        epoch = _clients.pop(location, None)
        if epoch is not None:
            _retire(epoch)
        _current_at[location] = generation


def private_tree(location: str) -> None:
    """Chroma creates its folders and files with the process umask (0755/0644): take group and other access
    away, as the catalog has none (chmod only: no file is opened, see index.recovery._private_file)."""
    if location.startswith((MEMORY, "http://", "https://")):
        return
    for top, dirs, files in os.walk(location):
        for name, mode in [(d, 0o700) for d in dirs] + [(f, 0o600) for f in files]:
            with contextlib.suppress(OSError):  # gone meanwhile, or not ours to change
                path = os.path.join(top, name)
                if os.lstat(path).st_mode & 0o077:
                    os.chmod(path, mode)


class VectorIndex:
    """One workspace's collection. Metadata per chunk: its record_id only (index/plan.py `chunk_meta`); what
    differs between views (status, path, commit) lives in the catalog."""

    def __init__(self, location: str, collection: str, identity: dict, write: bool = True):
        self.location = location
        self.write = write
        self.name = collection
        self.identity = identity
        epoch = acquire(location)
        self._release = weakref.finalize(self, release, epoch)  # close(), or at the latest garbage collection
        self.client = epoch.client
        try:
            self.col = self._open()
        except IdentityMismatch:
            self.close()
            raise
        except chroma_failures() as e:  # e.g. a damaged chroma.sqlite3 found on first use: name it, not a Rust error
            self.close()
            from .recovery import ChromaUnavailable
            from .server_auth import refusal

            raise (refusal(e, location) or ChromaUnavailable(location, e)) from e
        except BaseException:
            self.close()
            raise
        self._count: int | None = None

    def close(self) -> None:
        """Give the client back: if a reopen retired it meanwhile and this was its last user, it stops."""
        self._release()

    def _open(self):
        ident = identity_hash(self.identity)
        if not self.write and is_server(self.location):  # a reader asks first: its token may not create
            with contextlib.suppress(*chroma_failures()):
                col = self.client.get_collection(self.name, embedding_function=None)
                return self._checked(col, ident)
        col = self.client.get_or_create_collection(
            self.name,
            embedding_function=None,
            metadata={
                "hnsw:space": "cosine",
                "jgm_identity": ident,
                "jgm_identity_json": json.dumps(self.identity, sort_keys=True),
            },
        )
        return self._checked(col, ident)

    def _checked(self, col, ident: str):
        meta = col.metadata or {}
        if meta.get("jgm_identity") != ident:
            stored = json.loads(meta.get("jgm_identity_json") or "{}")
            raise IdentityMismatch(stored, self.identity)
        return col

    @staticmethod
    def drop(location: str, collection: str) -> None:
        with leased_client(location) as client:
            try:
                client.delete_collection(collection)
            except chroma_failures():  # not there (NotFoundError): nothing to drop
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

    @contextlib.contextmanager
    def _writing(self) -> Iterator[None]:
        """A Chroma write that failed on a full or read-only disk says so (Chroma reports it as a plain error);
        the files a write made are private like the rest of the store."""
        if is_server(self.location):
            from .server_auth import refusal

            try:
                yield
            except chroma_failures() as e:
                refused = refusal(e, self.location)
                if refused is not None:
                    raise refused from e
                raise
            return
        if self.location.startswith(MEMORY):
            yield
            return
        with store_failures(self.location, Exception):
            yield
        private_tree(self.location)

    def add(self, ids: list[str], vectors: np.ndarray, metadatas: list[dict]) -> None:
        self._count = None
        with self._writing():
            for i in range(0, len(ids), 1000):
                self.col.upsert(
                    ids=ids[i : i + 1000], embeddings=vectors[i : i + 1000], metadatas=metadatas[i : i + 1000]
                )

    def update_metadata(self, ids: list[str], metadatas: list[dict]) -> None:
        with self._writing():
            for i in range(0, len(ids), 1000):
                self.col.update(ids=ids[i : i + 1000], metadatas=metadatas[i : i + 1000])

    def delete(self, ids: list[str]) -> None:
        self._count = None
        with self._writing():
            for i in range(0, len(ids), 1000):
                self.col.delete(ids=ids[i : i + 1000])

    def query(self, vector: np.ndarray, n: int) -> list[tuple[str, float]]:
        """[(chunk_id, cosine similarity)] best first, unfiltered: which chunks count depends on the view
        asking, so callers filter (recall.view_query; a `where` filter was ~6x slower locally anyway,
        fact-bench-chroma-filtered-query). Ids and distances only: the catalog holds what a chunk is, and
        each metadata fetched was bytes a server sent on every recall for nobody."""
        res = self.col.query(query_embeddings=[vector], n_results=max(n, 1), include=["distances"])
        return [(i, 1.0 - float(d)) for i, d in zip(res["ids"][0], res["distances"][0])]

    def vectors(self, ids: list[str]) -> dict[str, np.ndarray]:
        if not ids:
            return {}
        res = self.col.get(ids=ids, include=["embeddings"])
        return {i: np.asarray(e, dtype=np.float32) for i, e in zip(res["ids"], res["embeddings"])}
