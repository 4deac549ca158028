"""`jgm serve`: the local HTTP API (FastAPI on uvicorn), bound to 127.0.0.1 by default."""

from __future__ import annotations

from pathlib import Path

import typer

from .common import err, esc, fail


def _loopback(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Interface to bind (loopback by default)."),
    port: int = typer.Option(8765, "--port", min=0, max=65535, help="Port (0 picks a free one)."),
    repo: list[Path] = typer.Option([], "--repo", help="Repository to serve (repeatable; default: the current one)."),
    max_body: int = typer.Option(256 * 1024, "--max-body", min=1024, help="Largest request body in bytes."),
    allow_host: list[str] = typer.Option(
        [],
        "--allow-host",
        help="Also answer requests whose Host header is this name (repeatable); loopback names and --host "
        "always are. Any other Host gets 421 (DNS-rebinding defence).",
    ),
    log_level: str = typer.Option("warning", "--log-level", help="uvicorn log level."),
):
    """Serve recall, records, receipts and seeding over HTTP. Prints one JSON line (url, token file, store) once
    it accepts connections."""
    import socket

    from ...base.memory import limit_arenas

    limit_arenas()  # before any thread starts: a server's RSS stays flat across reopens (base/memory.py)
    import uvicorn

    from ...base.store import store_root
    from ..api.app import build_state, create_app
    from ..api.hosts import allowed_hosts
    from .common import reported
    from .ready import ReadyServer

    with reported(False):
        state = build_state(repo or [Path(".")])
    if not _loopback(host):
        err.print(
            f"[yellow]warning:[/] binding {esc(host)}: the API is reachable from other machines; "
            "anyone with a token can read the granted workspaces; a name other machines use to reach it "
            "needs --allow-host NAME",
            markup=True,
        )
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        fail(f"cannot bind {host}:{port}: {e.strerror}; pick another --port (0 picks a free one)", 2)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    app = create_app(state=state, max_body=max_body, hosts=allowed_hosts(host, allow_host))
    info = {
        "url": f"http://{shown}:{bound}",
        "workspaces": sorted(state.handles),
        "token_file": str(store_root() / "api-token"),
        "docs": f"http://{shown}:{bound}/docs",
        "ui": f"http://{shown}:{bound}/ui/",
        "store": str(store_root()),
    }
    config = uvicorn.Config(app, log_level=log_level, timeout_graceful_shutdown=5, server_header=False)
    ReadyServer(config, info).run(sockets=[sock])  # prints `info` once it accepts connections


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
