"""Open a workspace's index (catalog + vectors) under one vector identity."""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from ..base.store import workspace_dir
from ..chunking.chunker import CHUNKER_VERSION
from ..embedding.specs import ModelSpec, identity_hash
from ..git.workspace import Workspace
from .catalog import Catalog
from .failures import chroma_failures
from .recovery import ChromaUnavailable, move_chroma_aside, open_catalog
from .server_auth import refusal
from .shared import ContentVectors, open_content
from .vectors import MEMORY, IdentityMismatch, VectorIndex, is_server, leased_client, refresh_if_stale, reset_clients
from .views import worktree_view


def vector_identity(spec: ModelSpec) -> dict:
    return dict(spec.identity(), chunker=CHUNKER_VERSION)


def collection_name(wsid: str, owner: str = "") -> str:
    """The workspace's first collection; a `--rebuild` writes a fresh one beside it (see `active_collection`).
    On a server, `owner` (the store's tag, `store_owner`) makes it this store's alone: other clones of the same
    repository use the same server, and nothing of theirs may be replaced or dropped by this one."""
    if owner:
        return f"jgm-{wsid}"[:43] + f"-{owner}"
    return f"jgm-{wsid}"[:63]


OWNER_FILE = "store-id"


def store_owner(store: Path, create: bool) -> str:
    """The store's tag on a server (`s` + 8 hex digits, from the store's `store-id` file, made by its first
    writer): what the names of its collections end with. Never `r…`, so no older jgm's cleanup of `jgm-<ws>-r…`
    rebuild leftovers can take it for its own."""
    path = store / OWNER_FILE
    try:
        got = path.read_text(encoding="ascii").strip()
    except OSError:
        got = ""
    if not got and create:
        got = secrets.token_hex(16)
        tmp = path.with_name(f"{OWNER_FILE}.{os.getpid()}.tmp")
        tmp.write_text(got + "\n", encoding="ascii")
        try:
            os.link(tmp, path)  # first writer wins: a concurrent one reads the winner's
        except FileExistsError:
            got = path.read_text(encoding="ascii").strip()
        finally:
            tmp.unlink(missing_ok=True)
    return f"s{got[:8]}" if got else "s-none"


ACTIVE_COLLECTION = "collection"  # catalog meta: the collection the catalog's chunks are in


def active_collection(wsid: str, catalog: Catalog) -> str:
    """The collection this catalog's vectors live in. A rebuild embeds into a new collection and switches
    this pointer in its catalog transaction, so until that commit readers keep answering from the old
    vectors, and a rebuild killed midway leaves the index as it was (dec-rebuild-beside-the-old-vectors)."""
    return catalog.get_meta(ACTIVE_COLLECTION) or collection_name(wsid)


def _rebuild_collection(wsid: str, owner: str = "") -> str:
    return f"{collection_name(wsid, owner)[:52]}-r{secrets.token_hex(4)}"


def _is_ours(name: str, wsid: str, owner: str = "") -> bool:
    """Whether `name` is one of this store's collections of the workspace (on a server: with its owner tag)."""
    base = collection_name(wsid, owner)
    return name == base or name.startswith(f"{base[:52]}-r")


@dataclass
class Index:
    workspace: Workspace
    wsdir: Path
    catalog: Catalog
    vectors: VectorIndex
    identity: dict
    recovered_from: Path | None = None  # a corrupt catalog this open moved aside (see index.recovery)
    replaces: str | None = None  # a rebuild: the collection its catalog write retires
    chroma_moved: Path | None = None  # a corrupt Chroma directory this open moved aside
    content: ContentVectors | None = None  # on a server: the team's vectors by content (index.shared)
    owner: str = ""  # on a server: this store's tag in its collections' names

    @property
    def missing_vectors(self) -> int:
        """Chunks the catalog lists that Chroma does not hold. Every write keeps the counts equal (orphans
        only ever make Chroma's larger), so a positive number means lost vectors: an answer read from this
        index may be missing records, and an empty one must not be reported as "no match"."""
        return max(0, self.catalog.stored_chunk_count() - self.vectors.count())

    @property
    def identity_hash(self) -> str:
        return identity_hash(self.identity)

    def close(self) -> None:
        """Close the SQLite connection and give back the Chroma lease (a retired client then stops)."""
        self.catalog.close()
        self.vectors.close()
        if self.content is not None:
            self.content.close()


def owns(index: Index, name: str) -> bool:
    """Whether the collection `name` is this store's to drop (locally every one of the workspace is)."""
    return not index.owner or _is_ours(name, index.workspace.id, index.owner)


def location_for(wsdir: Path, chroma_url: str | None) -> str:
    return chroma_url or str(wsdir / "chroma")


def open_index(
    ws: Workspace,
    identity: dict,
    chroma_url: str | None = None,
    rebuild: bool = False,
    store_root: Path | None = None,
    view: str | None = None,
    recover: bool = False,
    write: bool = False,
) -> Index:
    """Open under the workspace lock; `Index.close()` gives everything back. Chroma is reopened if another
    process wrote since this process last saw the index (the old client stops once its last reader closes).
    Opening writes nothing to the catalog; a writer (`write`, holding the exclusive lock) creates or migrates
    it, and its writes (index.writer.apply_plan) record the identity and workspace. `rebuild` opens a new,
    empty collection beside the active one; the seed's write then clears and re-chunks the catalog and points
    it at the new collection in one transaction, and the old collection is dropped after that commit. A different stored
    identity raises IdentityMismatch (unless rebuilding). The catalog reads through `view` (default: the view
    of the worktree `ws.repo_root`). A corrupt catalog raises CatalogCorrupt, or with `recover` (writers) is moved
    aside and rebuilt by the caller's seed; so is a corrupt local Chroma directory (the seed re-embeds)."""
    wsdir = workspace_dir(ws.id, store_root, create=write)
    catalog, moved = open_catalog(wsdir / "catalog.sqlite", recover, view or worktree_view(ws.repo_root), write=write)
    loc = location_for(wsdir, chroma_url)
    if not write and catalog.blank and not chroma_url:  # nobody wrote this store: create nothing on disk
        loc = MEMORY + loc
    owner = store_owner(wsdir.parent.parent, create=write) if is_server(loc) else ""
    active = active_collection(ws.id, catalog)
    if owner and write and not _is_ours(active, ws.id, owner):  # another store's name (an older jgm shared one)
        active = collection_name(ws.id, owner)  # ours from now on; theirs is left alone
    content = None
    try:
        refresh_if_stale(loc, catalog.stamp())
        stored = catalog.get_meta("identity")
        if not rebuild and stored and json.loads(stored) != identity and catalog.stored_chunk_ids():
            raise IdentityMismatch(json.loads(stored), identity)
        chroma_moved = None
        try:
            if write:
                drop_leftovers(loc, ws.id, keep=active, owner=owner)
            vectors = VectorIndex(loc, _rebuild_collection(ws.id, owner) if rebuild else active, identity, write)
        except ChromaUnavailable as e:
            if not (recover and write and e.corrupt):
                raise
            reset_clients(loc)  # stop our client of the damaged files before moving them
            chroma_moved = move_chroma_aside(loc)
            vectors = VectorIndex(loc, _rebuild_collection(ws.id) if rebuild else active, identity)
        try:
            content = open_content(loc, identity, write)
        except BaseException:
            vectors.close()
            raise
    except BaseException:
        catalog.close()
        raise
    replaces = active if rebuild else None
    return Index(ws, wsdir, catalog, vectors, identity, moved, replaces, chroma_moved, content, owner)


def drop_leftovers(location: str, wsid: str, keep: str, owner: str = "") -> list[str]:
    """Drop this store's collections of the workspace other than `keep`: what a rebuild killed before its
    catalog write (or after it, before it dropped the old collection) left behind. Call as the writer. On a
    server only names with this store's `owner` tag count: other clones' collections are theirs."""
    with leased_client(location) as client:
        try:
            names = [getattr(c, "name", c) for c in client.list_collections()]
        except chroma_failures() as e:  # a damaged chroma.sqlite3 shows here first
            raise (refusal(e, location) or ChromaUnavailable(location, e)) from e
    gone = [n for n in names if n != keep and _is_ours(n, wsid, owner)]
    for n in gone:
        VectorIndex.drop(location, n)
    return gone


def index_meta(index: Index) -> dict[str, str]:
    """What every write records about the index it writes: the vector identity and the workspace."""
    ws = index.workspace
    return {
        "identity": json.dumps(index.identity, sort_keys=True),
        "workspace": json.dumps({"id": ws.id, "name": ws.name, "root": str(ws.repo_root), "key": ws.key}),
        ACTIVE_COLLECTION: index.vectors.name,
    }
