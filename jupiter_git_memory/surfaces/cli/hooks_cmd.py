"""`jgm hooks install | uninstall | status | run`."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from .common import emit_json, err, esc, out, reported
from .options import JsonOpt, RepoOpt

app = typer.Typer(help="Git hooks that reindex after merges, checkouts, rebases and amends.", no_args_is_help=True)


def _reported(as_json: bool):
    """A hook file we cannot read or write is named (exit 2, hooks/io-error), not a traceback."""
    from ...base import error_codes as E

    return reported(as_json, recode={OSError: E.HOOKS_IO_ERROR})


def _print_actions(actions: list[dict], as_json: bool) -> None:
    if as_json:
        emit_json({"hooks": actions})
        return
    for a in actions:
        out.print(f"{a['hook']:<21} {a['action']}  [dim]{esc(a['path'])}[/]", markup=True)


@app.command()
def install(
    repo: Path | None = RepoOpt,
    as_json: bool = JsonOpt,
    force: bool = typer.Option(False, "--force", help="Install even where that modifies tracked hook files."),
):
    """Install post-merge, post-checkout, post-rewrite, post-commit and reference-transaction hooks (existing
    hooks are chained, not replaced)."""
    from ...base.store import store_root
    from ...freshness import githooks
    from ...git.home import record_home
    from ...git.workspace import find_workspace

    with _reported(as_json):
        actions = githooks.install(repo, force=force)
        noted = record_home(find_workspace(repo).repo_root, store_root())  # hooks run without our JGM_HOME
    if noted and not as_json:
        err.print(f"note: {noted}", markup=False)
    _print_actions(actions, as_json)


@app.command()
def uninstall(repo: Path | None = RepoOpt, as_json: bool = JsonOpt):
    """Remove jgm's hooks and restore the hooks they chained."""
    from ...freshness import githooks

    with _reported(as_json):
        actions = githooks.uninstall(repo)
    _print_actions(actions, as_json)


@app.command()
def status(repo: Path | None = RepoOpt, as_json: bool = JsonOpt):
    """Show which hooks are installed, the last hook-triggered reseed and any still running."""
    from ...freshness import githooks

    with _reported(as_json):
        st = githooks.status(repo)
    if as_json:
        emit_json(st)
        return
    out.print(f"hooks in {st['hooks_dir']}", markup=False)
    for h in st["hooks"]:
        extra = f" (chains {h['hook']}.jgm-chained)" if h["chained"] else ""
        out.print(f"  {h['hook']:<21} {h['state']}{extra}", markup=False)
    last = st["last_run"]
    if last:
        out.print(
            f"last run: {last['hook']} {'ok' if last.get('ok') else 'FAILED'}: {last.get('summary', '')}", markup=False
        )
    if st["running"]:
        out.print(f"running: pid {', '.join(map(str, st['running']))}", markup=False)
    out.print(f"log: {st['log']}", markup=False)


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True}, hidden=True)
def run(
    hook: str = typer.Argument(
        ..., help="post-merge | post-checkout | post-rewrite | post-commit | reference-transaction"
    ),
    args: list[str] | None = typer.Argument(None, help="The arguments git passed to the hook."),
):
    """What the hook shims call (git's arguments follow; post-rewrite and reference-transaction read stdin).
    Always exits 0."""
    from ...freshness import hook_paths, hook_run

    if hook not in hook_paths.HOOKS:
        err.print(f"jgm: unknown hook {hook!r}; expected one of {', '.join(hook_paths.HOOKS)}")
        raise typer.Exit(0)
    stdin = sys.stdin.read() if hook in hook_paths.STDIN_HOOKS and not sys.stdin.isatty() else ""
    raise typer.Exit(hook_run.run_hook(hook, list(args or []), stdin))


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="hooks")
