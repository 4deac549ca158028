"""`jgm relations ID`: what a record supersedes or amends, and what supersedes or amends it (read from the
catalog; no model is loaded)."""

from __future__ import annotations

from pathlib import Path

import typer

from .common import emit_json, out, reported
from .options import JsonOpt, RepoOpt


def relations(
    record_id: str = typer.Argument(..., help="Record id, e.g. ADR-0012."),
    repo: Path | None = RepoOpt,
    as_json: bool = JsonOpt,
):
    """Supersede and amend relations of a record, and the in-force record(s) to read instead."""
    from ...app.record_requests import RecordRef
    from ...app.record_requests import relations as rel_of
    from ...app.records_ops import worktree_catalog

    req = RecordRef.model_construct(id=record_id)  # the operation checks the id and says what to fix
    with reported(as_json), worktree_catalog(repo) as (ws, cat):
        rel = rel_of(cat, req, ws.id)
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
