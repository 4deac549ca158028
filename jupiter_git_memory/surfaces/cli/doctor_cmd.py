"""`jgm doctor [--repair] [--json]`: check that catalog, Chroma and record files agree."""

from __future__ import annotations

from pathlib import Path

import typer

from .common import emit_json, err, out, reported
from .options import JsonOpt, RepoOpt


def doctor(
    repo: Path | None = RepoOpt,
    repair: bool = typer.Option(False, "--repair", help="Reconcile by seeding and removing leftovers."),
    as_json: bool = JsonOpt,
):
    """Check the index against the record files. Exit 1 when inconsistent (and not repaired)."""
    from ...git.home import current_store
    from ...maintenance import doctor as doc
    from ...seed.report import summarize

    with reported(as_json):
        before = doc.diagnose(repo)
        done = None
        after = before
        if repair and not before.ok:
            done = doc.repair(repo)
            after = doc.diagnose(repo)
    store = current_store()
    if as_json:
        data = dict(before.to_json(), store=store)
        if done is not None:
            data.update(repaired=after.ok, repair=done, after=after.to_json())
        data["ok"] = after.ok
        emit_json(data)
    else:
        c = before.counts
        out.print(f"store {store['path']} (from {store['source']})", markup=False)
        out.print(
            f"workspace {before.workspace}: {c['records']} records, {c['chunks']} chunks, {c['vectors']} vectors, "
            f"{c['files']} record files",
            markup=False,
        )
        m = before.model
        if m:
            out.print(f"model {m['name']} ({m['source']}: {m['reason']})", markup=False)
            if m.get("advice"):
                err.print(f"advice: {m['advice']}", markup=False)
        if before.floor:
            out.print(before.floor["line"], markup=False)
        if c.get("drifted") or c.get("evidence_missing"):
            out.print(
                f"evidence: {c['drifted']} records drifted, {c['evidence_missing']} cite missing paths "
                "(`jgm drift` lists them)",
                markup=False,
            )
        for p in before.problems:
            err.print(p.render(), markup=False)
        if done is not None:
            out.print(
                f"repaired: seed {'(rebuilt) ' if done['rebuilt'] else ''}{summarize(done['seed'], detail=True)}; "
                f"{done['deleted_orphan_vectors']} orphan vectors deleted, {done['metadata_fixed']} metadata "
                f"fixed, {done['deleted_dangling_chunks']} dangling chunks deleted",
                markup=False,
            )
            for p in after.problems:
                err.print(f"still: {p.render()}", markup=False)
        out.print("consistent" if after.ok else f"INCONSISTENT: {len(after.problems)} problems", markup=False)
    raise typer.Exit(0 if after.ok else 1)


def register(app: typer.Typer) -> None:
    app.command("doctor")(doctor)
