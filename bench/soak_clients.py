"""The soak benchmark's instruments: /proc readings, API and MCP clients, steady recall streams, `jgm watch`."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path

import httpx
from api_latency import JGM, QUERIES, _Server


def proc_stats(pid: int) -> dict:
    """RSS, fds and threads; Chroma's SQLite pool (one fd + one thread per connection, opened on demand) apart."""
    status = dict(line.split(":", 1) for line in open(f"/proc/{pid}/status"))
    targets, names = [], []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            targets.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except OSError:
            pass
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            names.append(open(f"/proc/{pid}/task/{tid}/comm").read().strip())
        except OSError:
            pass
    pool = sum(t.endswith("chroma.sqlite3") for t in targets)
    return {
        "rss_mb": round(int(status["VmRSS"].split()[0]) / 1024, 1),
        "fds": len(targets) - pool,
        "threads": sum(not n.startswith("sqlx-sqlite") for n in names),
        "chroma_pool": pool,
    }


class Mcp:
    """A minimal streamable-HTTP MCP client (JSON-RPC over POST; answers as JSON or one SSE event)."""

    def __init__(self, url: str, token: str):
        self.url, self.n = url, 0
        self.c = httpx.Client(
            timeout=120, headers={"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
        )
        r = self._post(
            "initialize",
            {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "jgm-soak", "version": "1"}},
        )
        self.c.headers["mcp-session-id"] = r.headers["mcp-session-id"]
        self.c.headers["mcp-protocol-version"] = self._message(r)["result"]["protocolVersion"]
        self.c.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _post(self, method: str, params: dict) -> httpx.Response:
        self.n += 1
        r = self.c.post(self.url, json={"jsonrpc": "2.0", "id": self.n, "method": method, "params": params})
        if r.status_code != 200:
            raise RuntimeError(f"MCP HTTP {r.status_code}: {r.text[:300]}")
        return r

    @staticmethod
    def _message(r: httpx.Response) -> dict:
        if r.headers.get("content-type", "").startswith("application/json"):
            return r.json()
        data = [line[5:].strip() for line in r.text.splitlines() if line.startswith("data:")]
        return json.loads(data[-1])

    def recall(self, query: str, k: int = 5) -> list[str]:
        msg = self._message(self._post("tools/call", {"name": "recall", "arguments": {"query": query, "k": k}}))
        if "error" in msg:
            raise RuntimeError(f"MCP error {msg['error']}")
        res = msg["result"]
        if res.get("isError"):
            raise RuntimeError(res["content"][0]["text"])
        out = res.get("structuredContent") or json.loads(res["content"][0]["text"])
        out = out.get("result", out)
        return [r["id"] for r in out["records"]]

    def close(self) -> None:
        self.c.close()


class Api:
    def __init__(self, server: _Server):
        self.c, self.path = server.client(), f"/v1/workspaces/{server.workspace}/recall"
        self.non_json_5xx = 0

    def recall(self, query: str, k: int = 5) -> tuple[list[str], int]:
        r = self.c.post(self.path, json={"query": query, "k": k})
        if r.status_code != 200:
            if r.status_code >= 500 and not (
                r.headers.get("content-type", "").startswith("application/json") and "code" in r.json().get("error", {})
            ):
                self.non_json_5xx += 1
            raise RuntimeError(f"API HTTP {r.status_code}: {r.text[:300]}")
        body = r.json()
        return [x["id"] for x in body["results"]], body["receipt"]["index"]["generation"]

    def close(self) -> None:
        self.c.close()


class Stream(threading.Thread):
    """Steady recalls against one server; latencies are collected per sampling window."""

    def __init__(self, name: str, call, interval: float):
        super().__init__(name=f"soak-{name}", daemon=True)
        self.call, self.interval = call, interval
        self.halt = threading.Event()
        self.lock = threading.Lock()
        self.window: list[float] = []
        self.errors: list[str] = []
        self.count = 0

    def run(self) -> None:
        i = 0
        while not self.halt.is_set():
            t = time.perf_counter()
            try:
                self.call(QUERIES[i % len(QUERIES)] + f" {i}")
                with self.lock:
                    self.window.append((time.perf_counter() - t) * 1000)
                    self.count += 1
            except Exception as e:
                self.errors.append(f"{type(e).__name__}: {e}"[:300])
            i += 1
            self.halt.wait(self.interval)

    def take(self) -> list[float]:
        with self.lock:
            out, self.window = self.window, []
        return out


class WatchProc:
    """`jgm watch --json` with its events collected (receive time attached)."""

    def __init__(self, repo: Path, env: dict):
        self.proc = subprocess.Popen(
            [JGM, "watch", "--json", "--repo", str(repo), "--debounce", "0.3"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
        )
        self.events: list[dict] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            try:
                self.events.append(json.loads(line))
            except ValueError:
                pass

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
