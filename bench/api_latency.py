"""Warm recall latency through the local HTTP API (`jgm serve` as a real process, keep-alive HTTP client).

    python bench/api_latency.py                      # synthetic 1,000-record repo, 200 recalls, prints JSON
    python bench/api_latency.py --records 1000 --requests 200 --concurrency 4

What is measured: client-observed wall time of `POST /v1/workspaces/{ws}/recall` (hybrid, k=5) after a
warm-up pass, so model loading and first index open are excluded; the figure includes HTTP, JSON,
auth, embedding the query, Chroma + FTS5 retrieval, ranking and storing the receipt.
`measure()` is also used by bench/run.py for its recall section.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

JGM = str(Path(sys.executable).parent / "jgm")
QUERIES = [
    "why does the connection pool time out under bursty traffic",
    "how should retries back off after partial network failures",
    "what batch size does the ingest worker use",
    "how do we run a schema migration without downtime",
    "which idempotency key do payment webhooks use",
    "why was the cache layer rewritten",
    "what limits the rate limiter applies per tenant",
    "how are expired credentials handled by the auth gateway",
    "what is the timeout for the deploy script",
    "how does the search indexer handle out-of-order events",
]


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q / 100 * (len(s) - 1))))]


class _Server:
    def __init__(self, repo: Path, home: Path):
        self.proc = subprocess.Popen(
            [JGM, "serve", "--port", "0", "--repo", str(repo)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=dict(os.environ, JGM_HOME=str(home)),
        )
        threading.Thread(target=self.proc.stderr.read, daemon=True).start()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("jgm serve exited before binding")
        info = json.loads(line)
        self.url, self.workspace = info["url"], info["workspaces"][0]
        self.token = Path(info["token_file"]).read_text().strip()
        deadline = time.monotonic() + 300
        while True:
            try:
                if httpx.get(self.url + "/v1/health", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError("jgm serve did not become ready")
            time.sleep(0.2)

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, headers={"Authorization": f"Bearer {self.token}"}, timeout=120)

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


LAST: dict = {}  # what the last `measure` saw beside latencies: the server's CPU per recall (Linux)


def _cpu_s(pid: int) -> float | None:
    """utime + stime of a process, from /proc (None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _query(queries: list[str], i: int) -> str:
    return queries[i % len(queries)] + ("" if i < len(queries) else f" {i}")  # no two identical requests


def measure(
    repo: Path, home: Path, queries: list[str] = QUERIES, n: int = 200, concurrency: int = 1
) -> tuple[list[float], str]:
    """Latencies (ms) of `n` warm API recalls against an already seeded `repo` in store `home`."""
    server = _Server(Path(repo), Path(home))
    try:
        path = f"/v1/workspaces/{server.workspace}/recall"
        with server.client() as c:
            for q in queries:  # warm-up: model, index, caches, connection
                c.post(path, json={"query": q, "k": 5}).raise_for_status()

        def one(i: int, c: httpx.Client) -> float:
            t = time.perf_counter()
            r = c.post(path, json={"query": _query(queries, i), "k": 5})
            dt = (time.perf_counter() - t) * 1000
            r.raise_for_status()
            return dt

        cpu0 = _cpu_s(server.proc.pid)
        if concurrency <= 1:
            with server.client() as c:
                lat = [one(i, c) for i in range(n)]
        else:
            clients = [server.client() for _ in range(concurrency)]
            with ThreadPoolExecutor(concurrency) as pool:
                lat = list(pool.map(lambda i: one(i, clients[i % concurrency]), range(n)))
            for c in clients:
                c.close()
        cpu1 = _cpu_s(server.proc.pid)
        # what a recall costs the server in CPU: on cores shared with other work, wall time is mostly waiting
        LAST["server_cpu_ms_per_recall"] = None if cpu0 is None or cpu1 is None else round(1000 * (cpu1 - cpu0) / n, 2)
    finally:
        server.stop()
    return lat, f"warm HTTP API recall (POST /recall, hybrid, k=5, keep-alive, concurrency {concurrency})"


def in_process(repo: Path, home: Path, queries: list[str], n: int) -> list[float]:
    """The same recalls without HTTP (Recaller in this process): the API's overhead is the difference."""
    os.environ["JGM_HOME"] = str(home)
    from jupiter_git_memory.recall.service import Recaller

    rec = Recaller(repo)
    for q in queries:
        rec.recall(q, k=5)
    lat = []
    for i in range(n):
        t = time.perf_counter()
        rec.recall(_query(queries, i), k=5)
        lat.append((time.perf_counter() - t) * 1000)
    rec.close()
    return lat


def summary(lat: list[float]) -> dict:
    return {
        "p50_ms": round(pct(lat, 50), 2),
        "p95_ms": round(pct(lat, 95), 2),
        "p99_ms": round(pct(lat, 99), 2),
        "mean_ms": round(statistics.fmean(lat), 2),
        "max_ms": round(max(lat), 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=1000)
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--concurrency", type=int, default=1)
    ap.add_argument("--repo", type=Path, help="An existing repo to serve (default: generate a synthetic one).")
    ap.add_argument(
        "--work",
        type=Path,
        help="Keep the generated repo and store here; a re-run reuses them "
        "(the seed is then a no-op) to measure again cheaply.",
    )
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="jgm-api-bench-") as tmp:
        work = args.work or Path(tmp)
        home = work / "home"
        home.mkdir(parents=True, exist_ok=True)
        repo = args.repo
        if repo is None:
            from generate import generate

            repo = work / "repo"
            if not (repo / ".git").is_dir():
                generate(repo, args.records)
        t = time.perf_counter()
        seeded = subprocess.run(
            [JGM, "seed", "--repo", str(repo), "--json"],
            capture_output=True,
            text=True,
            env=dict(os.environ, JGM_HOME=str(home)),
        )
        if seeded.returncode != 0:
            raise SystemExit(seeded.stderr)
        seed_s = time.perf_counter() - t
        report = json.loads(seeded.stdout)
        lat, label = measure(repo, home, QUERIES, args.requests, args.concurrency)
        base = in_process(repo, home, QUERIES, args.requests)
    print(
        json.dumps(
            {
                "measured": label,
                "records": report["records"],
                "chunks": report["chunks"],
                "seed_s": round(seed_s, 2),
                "requests": len(lat),
                "api": summary(lat),
                "in_process": summary(base),
                "api_overhead_p50_ms": round(pct(lat, 50) - pct(base, 50), 2),
                "concurrency": args.concurrency,
                "cpus": os.cpu_count(),
                "load_avg_1m": round(os.getloadavg()[0], 2),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
