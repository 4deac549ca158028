"""`jgm relations ID`: what a record supersedes or amends, and what supersedes or amends it (read from the
catalog; no model is loaded)."""

from __future__ import annotations

from pathlib import Path

import typer

from .common import emit_json, fail, out, reported
from .options import JsonOpt, RepoOpt


def relations(
    record_id: str = typer.Argument(..., help="Record id, e.g. ADR-0012."),
    repo: Path | None = RepoOpt,
    as_json: bool = JsonOpt,
):
    """Supersede and amend relations of a record, and the in-force record(s) to read instead."""
    from ...app.records_ops import relations as rel_of
    from ...base import error_codes as E
    from ...base.store import workspace_dir, workspace_lock
    from ...index.catalog import Catalog
    from ...index.views import worktree_view
    from ...index.workspace import find_workspace

    with reported(as_json):
        ws = find_workspace(repo)
        wsdir = workspace_dir(ws.id, create=False)
        if not (wsdir / "catalog.sqlite").exists():
            fail(f"workspace {ws.id} has no index yet: run `jgm seed`", 4, as_json, E.MEMORY_NOT_SEEDED)
        with workspace_lock(wsdir, exclusive=False):
            cat = Catalog(wsdir / "catalog.sqlite", worktree_view(ws.repo_root))  # this worktree's view
            try:
                rel = rel_of(cat, record_id, ws.id)
            finally:
                cat.close()
    if as_json:
        from ...app.record_answers import Relations
        from ...recall.answers import dump

        emit_json(dump(Relations, dict(rel, workspace=ws.id)))
        return
    out.print(f"{rel['id']}: {rel['title']} ({rel['kind']}/{rel['status']})", markup=False)
    for key, label in (
        ("supersedes", "supersedes"),
        ("superseded_by", "superseded by"),
        ("amends", "amends"),
        ("amended_by", "amended by"),
    ):
        for e in rel[key]:
            what = "missing" if e["missing"] else f"{e['title']} ({e['status']})"
            note = " — retires it" if e.get("retires") and key.startswith("supersede") else ""
            out.print(f"  {label} {e['id']}: {what}{note}", markup=False)
    if rel["current"] != [rel["id"]]:
        out.print(f"  read instead: {', '.join(rel['current'])}", markup=False)


def register(app: typer.Typer) -> None:
    app.command("relations")(relations)
