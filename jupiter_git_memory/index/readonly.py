"""A catalog read without opening it for use: `mode=ro`, no migration, no lock, nothing created.

Why not Catalog: listing the store's workspaces must work while a seed holds the write lock and must never
create or migrate a catalog (app/workspaces.py).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from .views import worktree_view

CatalogError = sqlite3.Error  # what an unreadable catalog file raises here


def _counts(db: sqlite3.Connection, view: str) -> tuple[dict[int, int], int]:
    """({1: file records, 0: candidates}, views) as seen from `view`; a store not yet migrated has one view."""
    if not db.execute("SELECT 1 FROM sqlite_master WHERE name='view_records'").fetchone():
        return dict(db.execute("SELECT origin = 'file', COUNT(*) FROM records GROUP BY origin = 'file'").fetchall()), 1
    counts = db.execute(
        "SELECT origin = 'file', COUNT(*) FROM view_records WHERE view IN ('*', ?) "
        "AND origin != 'promotion' GROUP BY origin = 'file'",
        (view,),
    ).fetchall()  # a view's own row
    # for a shared candidate (a promotion) is not one more candidate
    return dict(counts), db.execute("SELECT COUNT(*) FROM views").fetchone()[0]


def catalog_summary(catalog_path: Path, root: Path | str | None = None) -> tuple[dict[str, str], dict[int, int], int]:
    """(meta, {1: file records, 0: candidates}, views) of a catalog, counted as the worktree `root` sees it
    (default: the worktree that last opened the store). Raises CatalogError when the file is unreadable."""
    db = sqlite3.connect(f"file:{catalog_path}?mode=ro", uri=True, timeout=10)
    try:
        meta = {k: v for k, v in db.execute("SELECT key, value FROM meta")}
        worktree = root or json.loads(meta.get("workspace") or "{}").get("root") or "?"
        counts, views = _counts(db, worktree_view(worktree))
    finally:
        db.close()
    return meta, counts, views
