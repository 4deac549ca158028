"""`jgm mcp`: serve the memory to MCP clients over stdio (default) or streamable HTTP (`--http`)."""

from __future__ import annotations

from pathlib import Path

import typer

from .common import fail
from .options import RepoOpt


def mcp(
    repo: Path | None = RepoOpt,
    http: bool = typer.Option(False, "--http", help="Serve streamable HTTP at /mcp instead of stdio."),
    host: str = typer.Option("127.0.0.1", "--host", help="With --http: interface to bind."),
    port: int = typer.Option(8766, "--port", min=0, max=65535, help="With --http: port (0 picks a free one)."),
):
    """MCP tools: recall, recall_for_task, get_record, list_records, get_relations, context (+ candidate tools).

    stdio keeps stdout for the protocol; with --http one JSON line (url, token file, store) is printed once it
    accepts connections, and requests
    need `Authorization: Bearer <token>` granted this workspace (the default token is granted it)."""
    import socket

    from ...base.memory import limit_arenas

    limit_arenas()  # before any thread starts (base/memory.py)
    from ...app.workspace_handle import WorkspaceHandle
    from ..mcp.server import build_server, http_app, warm
    from .common import reported

    with reported(False):
        handle = WorkspaceHandle.for_repo(repo)
    warm(handle)
    if not http:
        build_server(handle).run("stdio")
        return
    import uvicorn

    from ...base.store import store_root
    from ..api.tokens import DEFAULT, TokenStore
    from .ready import ReadyServer

    tokens = TokenStore()
    tokens.ensure_default()
    tokens.grant(DEFAULT, [handle.id])
    server = build_server(handle, tokens)
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        fail(f"cannot bind {host}:{port}: {e.strerror}; pick another --port (0 picks a free one)", 2)
    url = f"http://{host}:{sock.getsockname()[1]}/mcp"
    ready = {
        "url": url,
        "workspace": handle.id,
        "token_file": str(store_root() / "api-token"),
        "store": str(store_root()),
    }
    ReadyServer(uvicorn.Config(http_app(server, handle, tokens, host), log_level="warning", lifespan="on"), ready).run(
        sockets=[sock]
    )  # prints `ready` once it accepts connections


def register(app: typer.Typer) -> None:
    app.command("mcp")(mcp)
