"""`jgm daemon status|stop`: the store's resident recall process (surfaces/daemon/)."""

from __future__ import annotations

import time
from pathlib import Path

import typer

from .common import answer, emit_json, out
from .options import JsonOpt, repo_option

app = typer.Typer(
    help="The resident recall process that answers recall, recall-task, context and the client hooks warm. "
    "It starts on demand and exits when idle (daemon_idle_seconds); JGM_NO_DAEMON=1 answers in process.",
    no_args_is_help=True,
)
RepoOpt = repo_option("Repository path whose store is meant (default: the current one).")


def _store() -> Path:
    from ...base.store import store_path

    return store_path().absolute()


@app.command()
def status(repo: Path | None = RepoOpt, as_json: bool = JsonOpt):
    """Whether the store's daemon runs: pid, socket, uptime, requests, workspaces served. Exit 1 when it does
    not run (a socket file left by a killed one is reported as stale; the next call replaces it)."""
    from ..daemon.client import control
    from ..daemon.paths import socket_path

    store = _store()
    res = control("status", store) or {
        "running": False,
        "socket": str(socket_path(store)),
        "store": str(store),
        "stale_socket": socket_path(store).exists(),
    }
    if as_json:
        emit_json(res)
    elif res["running"]:
        out.print(
            f"running: pid {res['pid']} on {res['socket']} · up {res['uptime_seconds']}s · {res['requests']} "
            f"requests · exits after {res['idle_seconds']:g}s idle",
            markup=False,
        )
        for w in res["workspaces"]:
            out.print(f"  serving {w}", markup=False)
    else:
        stale = " (stale socket file left; the next call replaces it)" if res["stale_socket"] else ""
        out.print(f"not running for store {store}{stale}", markup=False)
    raise typer.Exit(0 if res["running"] else 1)


@app.command()
def stop(repo: Path | None = RepoOpt, as_json: bool = JsonOpt):
    """Stop the store's daemon (it finishes the request in hand); the next recall starts a new one."""
    from ..daemon.client import control
    from ..daemon.paths import socket_path

    store = _store()
    res = control("stop", store)
    stopped = False
    if res is not None:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and control("status", store) is not None:
            time.sleep(0.05)
        stopped = control("status", store) is None
    data = {"was_running": res is not None, "stopped": stopped, "socket": str(socket_path(store))}
    answer(as_json, data, "stopped" if stopped else ("did not stop" if res else "not running"))
    raise typer.Exit(0 if stopped or res is None else 1)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="daemon")
