"""`jgm workspaces`: the workspaces in the store (one per repository), read from their catalogs."""

from __future__ import annotations

import time

import typer

from .common import emit_json, esc, out
from .options import JsonOpt


def workspaces(as_json: bool = JsonOpt):
    """List workspaces: id, name, root, records, last seeded commit, global flag."""
    from ...app.workspaces import list_workspaces
    from ...git.home import current_store

    store = current_store()
    rows = list_workspaces()
    if as_json:
        emit_json({"store": store, "workspaces": rows})
        return
    out.print(f"store {store['path']} (from {store['source']})", markup=False)
    if not rows:
        out.print("no workspaces in this store yet: run `jgm seed` in a repository (or pass --home DIR)", markup=False)
        return
    for w in rows:
        if w["error"]:
            out.print(f"{esc(w['id'])}  [red]{esc(w['error'])}[/]", markup=True)
            continue
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(w["last_seed_at"])) if w["last_seed_at"] else "never"
        flags = " ".join(
            f
            for f, on in (("global", w["global"]), ("dirty", w["dirty"]), ("root-missing", not w["root_exists"]))
            if on
        )
        out.print(
            f"{w['id']:<28} {w['records']:>6} records {w['views']:>4} views  "
            f"{(w['last_seeded_commit'] or '-')[:12]:<12} "
            f"seeded {when}  {w['root'] or '?'}  {flags}".rstrip(),
            markup=False,
        )


def register(app: typer.Typer) -> None:
    app.command("workspaces")(workspaces)
