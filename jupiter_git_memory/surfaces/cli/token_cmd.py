"""`jgm token list | create | rotate | grant | revoke`: API tokens and their workspace grants."""

from __future__ import annotations

import time

import typer

from .common import answer, emit_json, err, out, reported
from .options import JsonOpt

app = typer.Typer(help="API tokens: each reads only the workspaces it is granted.", no_args_is_help=True)


def _store():
    from ..api.tokens import TokenStore

    return TokenStore()


def _warn_unknown(ids: list[str]) -> None:
    from ...app.workspaces import list_workspaces

    known = {w["id"] for w in list_workspaces()}
    for w in ids:
        if w not in known:
            err.print(f"warning: no workspace {w!r} in this store yet (`jgm workspaces` lists them)", markup=False)


@app.command("list")
def list_(as_json: bool = JsonOpt):
    """Token names and their granted workspaces (secrets are stored hashed and never shown)."""
    from ...base import error_codes as E
    from ..api.tokens import TokenError

    with reported(as_json, recode={TokenError: E.TOKEN_UNREADABLE}):
        rows = [
            {"name": n, "workspaces": t.get("workspaces", []), "created_at": t.get("created_at")}
            for n, t in sorted(_store().tokens().items())
        ]
    if as_json:
        emit_json({"tokens": rows})
        return
    for r in rows:
        when = time.strftime("%Y-%m-%d", time.localtime(r["created_at"] or 0))
        out.print(f"{r['name']:<20} created {when}  {', '.join(r['workspaces']) or '(no workspaces)'}", markup=False)


def _done(as_json: bool, text: str, **data) -> None:
    answer(as_json, data, text)


@app.command()
def create(
    name: str,
    workspace: list[str] = typer.Option([], "--workspace", "-w", help="Grant this workspace id (repeatable)."),
    as_json: bool = JsonOpt,
):
    """Create a token and print its secret once."""
    from ...base import error_codes as E
    from ..api.tokens import TokenError

    _warn_unknown(workspace)
    with reported(as_json, recode={TokenError: E.TOKEN_ERROR}):
        secret = _store().create(name, workspace)
    _done(as_json, secret, name=name, secret=secret, workspaces=list(workspace))


@app.command()
def rotate(name: str, as_json: bool = JsonOpt):
    """Give a token a new secret (grants kept); the old secret stops working at once."""
    from ...base import error_codes as E
    from ..api.tokens import TokenError

    with reported(as_json, recode={TokenError: E.TOKEN_ERROR}):
        secret = _store().create(name, replace=True)
    _done(as_json, secret, name=name, secret=secret)


@app.command()
def grant(name: str, workspace: list[str] = typer.Argument(..., help="Workspace ids."), as_json: bool = JsonOpt):
    """Let a token read more workspaces."""
    from ...base import error_codes as E
    from ..api.tokens import TokenError

    _warn_unknown(workspace)
    with reported(as_json, recode={TokenError: E.TOKEN_ERROR}):
        now = _store().grant(name, workspace)
    _done(as_json, f"{name}: {', '.join(now)}", name=name, workspaces=list(now))


@app.command()
def revoke(
    name: str,
    workspace: list[str] = typer.Argument(None, help="Workspace ids (none: delete the token)."),
    as_json: bool = JsonOpt,
):
    """Withdraw grants, or delete the token when no workspace is given."""
    from ...base import error_codes as E
    from ..api.tokens import TokenError

    with reported(as_json, recode={TokenError: E.TOKEN_ERROR}):
        _store().revoke(name, list(workspace) if workspace else None)
    _done(
        as_json,
        f"{name}: {'revoked ' + ', '.join(workspace) if workspace else 'deleted'}",
        name=name,
        revoked=list(workspace or []),
        deleted=not workspace,
    )


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="token")
