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
ClientArg = typer.Argument(..., help="claude-code | codex | cursor | gemini | vscode | cline")
ScopeOpt = typer.Option(
    "project",
    "--scope",
    help="project: portable entries (`jgm` on PATH) in files a team commits; local: this machine's interpreter "
    "in the client's uncommitted files (Claude Code only: .claude/settings.local.json, ~/.claude.json).",
)


@app.command()
def install(client: str = ClientArg, repo: Path | None = RepoOpt, scope: str = ScopeOpt, as_json: bool = JsonOpt):
    """Write the client's MCP server and its session, prompt and edit hooks into its own files (merged into
    yours; run again to update): Claude Code `.mcp.json`, `.claude/settings.json`; Codex `.codex/config.toml`,
    `.codex/hooks.json`; Cursor `.cursor/mcp.json`, `.cursor/hooks.json`; Gemini CLI `.gemini/settings.json`;
    VS Code `.vscode/mcp.json`, `.github/hooks/jupiter-git-memory.json`; Cline `.clinerules/hooks/*`. Then says
    what still stands between the client and jgm (see `jgm agent status`)."""
    from ...base.store import store_root
    from ...git.home import record_home
    from ..agent.install import install as do_install
    from ..agent.readiness import readiness

    with reported(as_json):
        res = do_install(repo, client, scope=scope)
        res["store_note"] = record_home(Path(res["repo"]), store_root())
        res["readiness"] = [r for r in readiness(res["repo"], client) if r["scope"] == scope]
    if as_json:
        emit_json(res)
        return
    done = ", ".join(res["changed"]) or "nothing to change"
    out.print(f"{client} ({scope} scope): {done} (runs `{res['command']}`)", markup=False)
    if res["store_note"]:
        out.print(f"note: {res['store_note']}", markup=False)
    for line in _steps(res["readiness"]):
        out.print(line, markup=False)


@app.command()
def uninstall(client: str = ClientArg, repo: Path | None = RepoOpt, scope: str = ScopeOpt, as_json: bool = JsonOpt):
    """Take jgm out: files jgm has not seen edited are restored byte for byte (removed if jgm created them);
    from an edited file only jgm's entries are removed."""
    from ..agent.install import uninstall as do_uninstall

    with reported(as_json):
        res = do_uninstall(repo, client, scope=scope)
    if as_json:
        emit_json(res)
        return
    for key, verb in (("restored", "restored"), ("removed", "removed"), ("edited", "removed jgm's entries from")):
        for f in res[key]:
            out.print(f"{verb} {f}", markup=False)
    if not (res["restored"] or res["removed"] or res["edited"]):
        out.print(f"{client}: nothing installed in the {scope} scope", markup=False)


@app.command()
def status(
    client: str | None = typer.Argument(None, help="One client (default: all)."),
    repo: Path | None = RepoOpt,
    as_json: bool = JsonOpt,
):
    """Which client files hold jgm's entries (edited since install?), then per client whether it will use them
    on this machine: installed, needs approval, untrusted project or command not found, each with its step."""
    from ..agent.readiness import readiness
    from ..agent.readiness import status as do_status

    with reported(as_json):
        rows = do_status(repo, client)
        ready = readiness(repo, client)
    lines = [f"{r['client']:<12} {r['file']:<28} {r['state']}" for r in rows]
    answer(as_json, {"clients": rows, "readiness": ready}, [*lines, "", *_steps(ready)])


def _steps(ready: list[dict]) -> list[str]:
    lines = []
    for r in ready:
        scope = f" ({r['scope']} scope)" if r["scope"] else ""
        lines.append(f"{r['client']}{scope}: {r['state']}")
        lines += [f"  - {p['state']}: {p['step']}" for p in r["problems"] if p["state"] != "not installed"]
        if r.get("note"):
            lines.append(f"  - {r['note']}")
    return lines


def hook(
    client: str = typer.Argument(..., help="claude-code | codex | cursor | gemini | vscode | cline"),
    event: str = typer.Argument(..., help="session-start | prompt | edit"),
):
    """Run a client hook: reads the client's JSON on stdin, prints the memory in the client's form. Always
    exits 0 (fail open; errors go to the store log)."""
    from ..agent.hook import main as hook_main

    raise typer.Exit(hook_main([client, event]))


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="agent")
    root.command("hook", hidden=True)(hook)  # what the installed client hooks run (like `hooks run`), not typed by hand
