"""The workspaces a store holds, read from each catalog's meta (no model, no Chroma, no writes).

Read-only on purpose: listing must work while a seed holds the write lock and must never create a
catalog, so each catalog is read with `mode=ro` (index/readonly.py) instead of through Catalog/open_index.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..base.errors import store_problem
from ..base.store import store_path
from ..index.readonly import CatalogError, catalog_summary


def describe(catalog_path: Path, root: Path | str | None = None) -> dict[str, Any]:
    """One workspace's summary, its record count as the worktree `root` sees it (default: the worktree that
    last opened the store); `error` set (and the rest best-effort) when its catalog is unreadable."""
    folder_id = catalog_path.parent.name
    info: dict[str, Any] = {
        "id": folder_id,
        "name": None,
        "root": None,
        "records": 0,
        "candidates": 0,
        "views": 0,
        "last_seeded_commit": None,
        "last_seed_at": None,
        "dirty": False,
        "global": False,
        "generation": 0,
        "root_exists": False,
        "error": None,
    }
    try:
        meta, counts, views = catalog_summary(catalog_path, root)
    except CatalogError as e:
        problem = store_problem(e, catalog_path)  # a full or read-only disk is not a reason to reseed
        info["error"] = (
            problem.message
            if problem
            else f"{catalog_path}: unreadable catalog ({e}); reseed with `jgm seed --repo ROOT`"
        )
        return info
    ws = json.loads(meta.get("workspace") or "{}")
    info.update(
        id=ws.get("id") or folder_id,
        name=ws.get("name"),
        root=ws.get("root"),
        records=int(counts.get(1, 0)),
        candidates=int(counts.get(0, 0)),
        last_seeded_commit=meta.get("last_seeded_commit") or None,
        last_seed_at=float(meta["last_seed_at"]) if meta.get("last_seed_at") else None,
        dirty=meta.get("dirty") == "true",
        generation=int(meta.get("generation") or 0),
    )
    info["global"] = meta.get("global") == "true"
    info["views"] = views
    info["root_exists"] = bool(info["root"]) and Path(info["root"]).is_dir()
    return info


def list_workspaces(root: Path | None = None) -> list[dict[str, Any]]:
    base = (root or store_path()) / "workspaces"  # a listing creates nothing
    if not base.is_dir():
        return []
    return [describe(p) for p in sorted(base.glob("*/catalog.sqlite"))]
