"""Open a workspace's index (catalog + vectors) under one vector identity."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..base.store import workspace_dir
from ..chunking.chunker import CHUNKER_VERSION
from ..embedding.specs import ModelSpec, identity_hash
from .catalog import Catalog
from .recovery import open_catalog
from .vectors import MEMORY, IdentityMismatch, VectorIndex, refresh_if_stale, reset_clients
from .views import worktree_view
from .workspace import Workspace


def vector_identity(spec: ModelSpec) -> dict:
    return dict(spec.identity(), chunker=CHUNKER_VERSION)


def collection_name(wsid: str) -> str:
    return f"jgm-{wsid}"[:63]


@dataclass
class Index:
    workspace: Workspace
    wsdir: Path
    catalog: Catalog
    vectors: VectorIndex
    identity: dict
    recovered_from: Path | None = None  # a corrupt catalog this open moved aside (see index.recovery)

    @property
    def identity_hash(self) -> str:
        return identity_hash(self.identity)

    def close(self) -> None:
        """Close the SQLite connection and give back the Chroma lease (a retired client then stops)."""
        self.catalog.close()
        self.vectors.close()


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
    it, and its writes (index.writer.apply_plan) record the identity and workspace. `rebuild` drops the
    vectors; the seed's write then clears and re-chunks the catalog in one transaction. A different stored
    identity raises IdentityMismatch (unless rebuilding). The catalog reads through `view` (default: the view
    of the worktree `ws.repo_root`). A corrupt catalog raises CatalogCorrupt, or with `recover` (writers) is moved
    aside and rebuilt by the caller's seed."""
    wsdir = workspace_dir(ws.id, store_root, create=write)
    catalog, moved = open_catalog(wsdir / "catalog.sqlite", recover, view or worktree_view(ws.repo_root), write=write)
    loc = location_for(wsdir, chroma_url)
    if not write and catalog.blank and not chroma_url:  # nobody wrote this store: create nothing on disk
        loc = MEMORY + loc
    name = collection_name(ws.id)
    try:
        if rebuild:
            VectorIndex.drop(loc, name)
            reset_clients(loc)
        refresh_if_stale(loc, catalog.stamp())
        stored = catalog.get_meta("identity")
        if not rebuild and stored and json.loads(stored) != identity and catalog.stored_chunk_ids():
            raise IdentityMismatch(json.loads(stored), identity)
        vectors = VectorIndex(loc, name, identity)
    except BaseException:
        catalog.close()
        raise
    return Index(ws, wsdir, catalog, vectors, identity, moved)


def index_meta(index: Index) -> dict[str, str]:
    """What every write records about the index it writes: the vector identity and the workspace."""
    ws = index.workspace
    return {
        "identity": json.dumps(index.identity, sort_keys=True),
        "workspace": json.dumps({"id": ws.id, "name": ws.name, "root": str(ws.repo_root), "key": ws.key}),
    }
