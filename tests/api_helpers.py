"""Helpers for API/MCP/workspace tests: run `jgm serve` as a real subprocess and talk HTTP to it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

JGM = str(Path(sys.executable).parent / "jgm")


class Server:
    """A `jgm serve --port 0` subprocess; `url` from its first stdout line, token from the store."""

    def __init__(self, repos: list[Path], home: Path, extra_args: tuple[str, ...] = (), timeout: float = 180):
        args = [JGM, "serve", "--port", "0", *extra_args]
        for r in repos:
            args += ["--repo", str(r)]
        self.stderr_lines: list[str] = []
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=dict(os.environ, JGM_HOME=str(home)))
        threading.Thread(target=self._drain, daemon=True).start()
        line = self.proc.stdout.readline()
        if not line:
            self.stop()
            raise RuntimeError("jgm serve exited before binding:\n" + "".join(self.stderr_lines))
        self.info = json.loads(line)
        self.url = self.info["url"]
        self.token = Path(self.info["token_file"]).read_text().strip()
        self.wait_ready(timeout)

    def _drain(self) -> None:
        for line in self.proc.stderr:
            self.stderr_lines.append(line)

    def wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("jgm serve died:\n" + "".join(self.stderr_lines))
            try:
                if httpx.get(self.url + "/v1/health", timeout=5).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError("jgm serve did not become ready:\n" + "".join(self.stderr_lines))

    def client(self, token: str | None = "default") -> httpx.Client:
        headers = {}
        if token == "default":
            token = self.token
        if token:
            headers["Authorization"] = f"Bearer {token}"
        return httpx.Client(base_url=self.url, headers=headers, timeout=120)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def seed(repo_path: Path, home: Path) -> dict:
    out = subprocess.run([JGM, "seed", "--repo", str(repo_path), "--json"], capture_output=True, text=True,
                         env=dict(os.environ, JGM_HOME=str(home)))
    assert out.returncode == 0, out.stderr + out.stdout
    return json.loads(out.stdout)


def workspace_id(repo_path: Path) -> str:
    from jupiter_git_memory.index.workspace import find_workspace

    return find_workspace(repo_path).id
