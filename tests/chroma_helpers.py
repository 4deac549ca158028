"""A real `chroma run` server for tests, and the token gate in front of it (jupiter_git_memory.surfaces.chroma_gate)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_up(url: str, proc: subprocess.Popen, what: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} ended with {proc.returncode}")
        try:
            if httpx.get(f"{url}/api/v2/heartbeat", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError(f"{what} did not start")


def start_chroma(data: Path) -> tuple[str, subprocess.Popen]:
    exe = shutil.which("chroma") or str(Path(sys.executable).parent / "chroma")
    port = free_port()
    proc = subprocess.Popen(
        [exe, "run", "--path", str(data), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    wait_up(url, proc, "chroma run")
    return url, proc


def start_gate(upstream: str, tokens: Path) -> tuple[str, subprocess.Popen]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupiter_git_memory.surfaces.chroma_gate", "--upstream", upstream]
        + ["--tokens", str(tokens), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    wait_up(url, proc, "the chroma gate")
    return url, proc


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=20)


def server_collections(url: str, token: str | None = None) -> dict[str, int]:
    """What the server holds: collection name -> number of vectors."""
    import chromadb

    from jupiter_git_memory.index.server_auth import client_settings

    u = httpx.URL(url)
    client = chromadb.HttpClient(host=u.host, port=u.port, settings=chromadb.Settings(**client_settings(token)))
    return {c.name: c.count() for c in client.list_collections()}
