"""Helpers for API/MCP/workspace tests: real seeded repos in a shared store, `jgm serve` as a subprocess."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path

import httpx
from conftest import Repo

JGM = str(Path(sys.executable).parent / "jgm")


def make_alpha(path: Path) -> Repo:
    """Team alpha: storage decisions with a supersede chain, facts (one false), history."""
    r = Repo(path)
    r.record(
        "dec-a-db",
        title="Use PostgreSQL as the primary database",
        tags="[db, storage]",
        source="ADR meeting 2026-03-02",
        supersedes="[dec-a-mysql]",
        body="All services store their primary data in PostgreSQL 16. We chose it for JSONB, "
        "transactional DDL and mature replication.",
    )
    r.record(
        "dec-a-mysql",
        title="Use MySQL as the primary database",
        tags="[db]",
        body="Services store their primary data in MySQL 5.7.",
    )
    r.record(
        "dec-a-cache",
        title="Cache user sessions in Memcached",
        tags="[cache]",
        body="User sessions are cached in Memcached with a 30 minute TTL.",
    )
    r.record(
        "dec-a-redis",
        status="proposed",
        title="Cache user sessions in Redis instead",
        tags="[cache]",
        supersedes="[dec-a-cache]",
        body="Proposal: move the session cache to Redis for persistence.",
    )
    r.record(
        "fact-a-port",
        kind="fact",
        status="verified",
        title="The API gateway listens on port 8443",
        tags="[network]",
        source="infra/gateway.yaml",
        body="The public API gateway terminates TLS on port 8443.",
    )
    r.record(
        "fact-a-old-port",
        kind="fact",
        status="false",
        title="The API gateway listens on port 80",
        tags="[network]",
        body="The gateway serves plain HTTP on port 80.",
    )
    r.record(
        "hist-a-2019",
        kind="history",
        status="historical",
        title="Split the monolith in 2019",
        tags="[db]",
        body="In 2019 the monolith was split into services, each with its own schema.",
    )
    r.commit("alpha knowledge")
    return r


def make_beta(path: Path) -> Repo:
    """Team beta: payments, nothing about databases."""
    r = Repo(path)
    r.record(
        "dec-b-payments",
        title="Stripe is the payment processor",
        tags="[payments]",
        source="contract 2025",
        body="Card payments and refunds go through Stripe; we never store card numbers.",
    )
    r.record(
        "fact-b-cents",
        kind="fact",
        status="verified",
        title="Money amounts are integers in cents",
        tags="[payments]",
        body="Every amount is stored as an integer number of cents, never as a float.",
    )
    r.commit("beta knowledge")
    return r


def seed_in_process(path: Path, home: Path) -> dict:
    from jupiter_git_memory.seed.seeder import Seeder

    report = Seeder(path, store_root=home).seed()
    assert not report.errors, report.errors
    return report.to_json()


def workspace_id(path: Path) -> str:
    from jupiter_git_memory.git.workspace import find_workspace

    return find_workspace(path).id


def first_line(proc: subprocess.Popen, timeout: float) -> str:
    """The process's first stdout line, or "" if it ends or `timeout` passes first (never blocks forever)."""
    box: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: box.put(proc.stdout.readline()), daemon=True).start()
    try:
        return box.get(timeout=timeout)
    except queue.Empty:
        proc.kill()
        return ""


def client_env(**extra: str) -> dict[str, str]:
    """What the MCP SDK's stdio client passes a server: its short allow-list (no JGM_HOME). PYTHONPATH is
    added only when set, so the server runs the package under test rather than another installed copy."""
    from mcp.client.stdio import get_default_environment

    env = get_default_environment()
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return {**env, **extra}


class Server:
    """A `jgm serve --port 0` subprocess: `url` from its first stdout line, the default token from the store."""

    def __init__(self, repos: list[Path], home: Path, extra_args: tuple[str, ...] = (), timeout: float = 180):
        args = [JGM, "serve", "--port", "0", *extra_args]
        for r in repos:
            args += ["--repo", str(r)]
        self.home = home
        self.stderr_lines: list[str] = []
        self.proc = subprocess.Popen(
            args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ, JGM_HOME=str(home))
        )
        threading.Thread(target=self._drain, daemon=True).start()
        line = first_line(self.proc, timeout)
        if not line:
            self.proc.wait(timeout=30)
            raise RuntimeError("jgm serve exited before binding:\n" + "".join(self.stderr_lines))
        self.info = json.loads(line)
        self.url = self.info["url"]
        self.token = Path(self.info["token_file"]).read_text().strip()
        self.check_ready()

    def _drain(self) -> None:
        for line in self.proc.stderr:
            self.stderr_lines.append(line)

    def check_ready(self) -> None:
        """The ready line is printed once the server accepts connections: the first request must succeed."""
        try:
            r = httpx.get(self.url + "/v1/health", timeout=30)
        except httpx.HTTPError as e:
            raise RuntimeError(
                f"jgm serve printed its ready line but refused a request ({e}):\n" + "".join(self.stderr_lines)
            ) from None
        assert r.status_code == 200, r.text

    def client(self, token: str | None = "default") -> httpx.Client:
        if token == "default":
            token = self.token
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=120)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def error_code(resp: httpx.Response) -> str:
    assert resp.headers["content-type"].startswith("application/json"), resp.text
    return resp.json()["error"]["code"]


def raw_get(base_url: str, path: str, token: str) -> tuple[int, dict]:
    """GET with the path sent byte for byte (httpx normalises `..` segments away before sending)."""
    import http.client
    from urllib.parse import urlsplit

    u = urlsplit(base_url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    try:
        conn.request("GET", path, headers={"Authorization": f"Bearer {token}"})
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read() or b"{}")
    finally:
        conn.close()


def mcp_run(session_fn, home: Path, repo: Repo):
    """Spawn `jgm mcp --home HOME --repo REPO` over stdio with the SDK's own client (and its environment
    allow-list) and run `session_fn(client)`."""
    import anyio
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=JGM, args=["mcp", "--home", str(home), "--repo", str(repo.path)], env=client_env()
    )

    async def main():
        with anyio.fail_after(600):
            # a Transport, not the parameters themselves: mcp 2.0 (our lower bound) takes only that
            async with Client(stdio_client(params), read_timeout_seconds=120) as client:
                return await session_fn(client)

    return anyio.run(main)


def mcp_tool_schemas(repo_path: Path) -> dict[str, dict]:
    """Each MCP tool's input schema, as the SDK's own client lists them from the real server object."""
    import anyio
    from mcp import Client

    from jupiter_git_memory.app.workspace_handle import WorkspaceHandle
    from jupiter_git_memory.surfaces.mcp.server import build_server

    handle = WorkspaceHandle.for_repo(repo_path)

    async def tools():
        async with Client(build_server(handle)) as client:
            return {t.name: t.input_schema for t in (await client.list_tools()).tools}

    try:
        return anyio.run(tools)
    finally:
        handle.close()
