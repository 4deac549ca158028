"""`jgm agent install|uninstall|status CLIENT` and `jgm hook CLIENT EVENT` (surfaces/agent/)."""

from __future__ import annotations

from pathlib import Path

import typer

from .common import answer, emit_json, out, reported
from .options import JsonOpt, RepoOpt

app = typer.Typer(
    help="Connect a coding agent to this repository's memory: MCP server and session/prompt hooks.",
    no_args_is_help=True,
)
ClientArg = typer.Argument(..., help="claude-code | codex | cursor")


@app.command()
def install(client: str = ClientArg, repo: Path | None = RepoOpt, as_json: bool = JsonOpt):
    """Write the client's project config (merged into yours; run again to update). Claude Code: `.mcp.json`
    and SessionStart/UserPromptSubmit/PreToolUse (edit) hooks in `.claude/settings.json`; Codex: `.codex/config.toml` and a
    managed block in `AGENTS.md` saying when to recall and write back; Cursor: `.cursor/mcp.json` and that
    guidance as a rule."""
    from ...base.store import store_root
    from ...git.home import record_home
    from ..agent.install import install as do_install

    with reported(as_json):
        res = do_install(repo, client)
        res["store_note"] = record_home(Path(res["repo"]), store_root())
    if as_json:
        emit_json(res)
        return
    done = ", ".join(res["changed"]) or "nothing to change"
    out.print(f"{client}: {done} (interpreter {res['python']})", markup=False)
    if res["store_note"]:
        out.print(f"note: {res['store_note']}", markup=False)


@app.command()
def uninstall(client: str = ClientArg, repo: Path | None = RepoOpt, as_json: bool = JsonOpt):
    """Take jgm out: files jgm has not seen edited are restored byte for byte (removed if jgm created them);
    from an edited file only jgm's entries are removed."""
    from ..agent.install import uninstall as do_uninstall

    with reported(as_json):
        res = do_uninstall(repo, client)
    if as_json:
        emit_json(res)
        return
    for key, verb in (("restored", "restored"), ("removed", "removed"), ("edited", "removed jgm's entries from")):
        for f in res[key]:
            out.print(f"{verb} {f}", markup=False)
    if not (res["restored"] or res["removed"] or res["edited"]):
        out.print(f"{client}: nothing installed", markup=False)


@app.command()
def status(
    client: str | None = typer.Argument(None, help="One client (default: all)."),
    repo: Path | None = RepoOpt,
    as_json: bool = JsonOpt,
):
    """Which client files hold jgm's entries, and whether they were edited since install."""
    from ..agent.install import status as do_status

    with reported(as_json):
        rows = do_status(repo, client)
    answer(as_json, {"clients": rows}, [f"{r['client']:<12} {r['file']:<24} {r['state']}" for r in rows])


def hook(
    client: str = typer.Argument(..., help="claude-code (edit also: codex | cursor | gemini)"),
    event: str = typer.Argument(..., help="session-start | prompt | edit"),
):
    """Run a client hook: reads the client's JSON on stdin, prints the memory in the client's form. Always
    exits 0 (fail open; errors go to the store log)."""
    from ..agent.hook import main as hook_main

    raise typer.Exit(hook_main([client, event]))


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="agent")
    root.command("hook", hidden=True)(hook)  # what the installed client hooks run (like `hooks run`), not typed by hand
