"""A team on one `chroma run` server (issue 39): what the first and the second clone's seeds cost, and recall.

    python bench/team_server.py --records 200,500,1000     # prints JSON; each size on a fresh server
    python bench/team_server.py --records 2000 --requests 100
    python bench/team_scale.py --chunks 100000             # the same server at 100,000 chunks (composed vectors)

Per size (synthetic records from bench/generate.py, one git repository, cloned once):
- `raw_embed`: the model alone over the same chunk texts (batches of 256): the embedding limit, chunks/s;
- `cold_seed` on the server (store A) and on the embedded client (store E): seconds, chunks/s, ratio to raw;
- `second_clone_seed`: store B's seed of the clone against the same server: seconds, embedded/fetched chunks,
  ratio to store A's;
- `noop_reseed`: store A again, nothing changed;
- `recall_api_ms`: warm `POST /recall` through `jgm serve` (bench/api_latency.py) on store B, p50/p99;
- sizes on disk (catalog, the server's data folder, the embedded store's Chroma folder) and peak RSS of each
  seed process and of the server.
Seeds run as `jgm seed --json` processes (peak RSS from wait4). Ratios compare figures of one run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tests"))

from api_latency import measure, pct  # noqa: E402
from chroma_helpers import start_chroma, stop  # noqa: E402
from generate import generate  # noqa: E402

JGM = str(Path(sys.executable).parent / "jgm")
RESULTS = HERE / "results" / "team_server.json"  # `real` (this script) and `scale` (bench/team_scale.py)


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def du(path: Path) -> int:
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file()) if Path(path).exists() else 0


# Runs the seed and writes its peak RSS and CPU seconds to $JGM_BENCH_USAGE. A child's ru_maxrss counts the
# forked copy of its parent (before exec), so a `jgm seed` started straight from this process, once it holds
# the model, would report at least this process's size: the small launcher forks the seed instead.
LAUNCH = (
    "import json, os, resource, subprocess, sys\n"
    "rc = subprocess.call(sys.argv[1:])\n"
    "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "open(os.environ['JGM_BENCH_USAGE'], 'w').write(json.dumps([u.ru_maxrss, u.ru_utime + u.ru_stime]))\n"
    "sys.exit(rc)\n"
)


def seed(repo: Path, home: Path, url: str | None) -> dict:
    """One `jgm seed --json` process: its counts, seconds, CPU seconds and peak RSS (MB)."""
    env = dict(os.environ, JGM_HOME=str(home))
    env.pop("JGM_CHROMA_URL", None)
    if url:
        env["JGM_CHROMA_URL"] = url
    la, t = load(), time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        env["JGM_BENCH_USAGE"] = usage = str(Path(tmp) / "usage.json")
        cmd = [sys.executable, "-c", LAUNCH, JGM, "seed", "--repo", str(repo), "--json"]
        p = subprocess.run(cmd, env=env, capture_output=True)
        seconds = time.perf_counter() - t
        if p.returncode not in (0, 1):
            raise RuntimeError(p.stderr.decode()[-2000:])
        maxrss_kb, cpu_s = json.loads(Path(usage).read_text())
    return {
        "seconds": round(seconds, 2),
        "counts": json.loads(p.stdout)["counts"],
        "cpu_s": round(cpu_s, 2),  # what it costs when nothing else competes
        "peak_rss_mb": round(maxrss_kb / 1024, 1),
        "loadavg": [la, load()],
    }


def raw_embed(repo: Path, home: Path) -> dict:
    """The model alone over the chunk texts store `home` holds for `repo`: the embedding limit."""
    from jupiter_git_memory.embedding.registry import load_embedder
    from jupiter_git_memory.seed.seeder import Seeder

    os.environ["JGM_HOME"] = str(home)
    os.environ.pop("JGM_CHROMA_URL", None)
    s = Seeder(repo)
    idx = s.open(write=False)
    try:
        texts = [c.text for c in idx.catalog.chunks().values()]
    finally:
        idx.close()
    embedder = load_embedder(s.embedder.spec.name)
    embedder.embed_passages(texts[:8])  # warm
    la, t = load(), time.perf_counter()
    for i in range(0, len(texts), 256):
        embedder.embed_passages(texts[i : i + 256])
    seconds = time.perf_counter() - t
    return {
        "chunks": len(texts),
        "seconds": round(seconds, 2),
        "chunks_per_s": round(len(texts) / seconds, 1),
        "loadavg": [la, load()],
    }


def vm_hwm_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return None


def one_size(n: int, tmp: Path, requests: int) -> dict:
    repo = tmp / f"repo-{n}"
    generate(repo, n)
    subprocess.run(["git", "-C", str(repo), "remote", "add", "origin", f"https://example.com/bench/team-{n}.git"])
    clone = tmp / f"clone-{n}"
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "remote", "set-url", "origin", f"https://example.com/bench/team-{n}.git"])
    data = tmp / f"chroma-{n}"
    url, server = start_chroma(data)
    homes = {k: tmp / f"home-{k}-{n}" for k in "abe"}
    try:
        first = seed(repo, homes["a"], url)
        second = seed(clone, homes["b"], url)
        noop = seed(repo, homes["a"], url)
        embedded = seed(repo, homes["e"], None)
        raw = raw_embed(repo, homes["e"])
        os.environ["JGM_CHROMA_URL"] = url
        la = load()
        lat, how = measure(clone, homes["b"], n=requests)
        lat_load = [la, load()]
        server_rss = vm_hwm_mb(server.pid)
    finally:
        os.environ.pop("JGM_CHROMA_URL", None)
        stop(server)
    chunks = raw["chunks"]

    def rate(s: dict) -> float:
        return round(chunks / s["seconds"], 1)

    return {
        "records": n,
        "chunks": chunks,
        "raw_embed": raw,
        "cold_seed_server": dict(first, chunks_per_s=rate(first), vs_raw=round(rate(first) / raw["chunks_per_s"], 3)),
        "cold_seed_embedded": dict(
            embedded, chunks_per_s=rate(embedded), vs_raw=round(rate(embedded) / raw["chunks_per_s"], 3)
        ),
        "second_clone_seed": dict(second, vs_first=round(second["seconds"] / first["seconds"], 3)),
        "noop_reseed": noop,
        "recall_api_ms": {
            "how": how,
            "n": len(lat),
            "p50": round(pct(lat, 50), 1),
            "p99": round(pct(lat, 99), 1),
            "loadavg": lat_load,
        },
        "disk_bytes": {
            "catalog_a": du(homes["a"] / "workspaces"),
            "server_data": du(data),
            "embedded_store": du(homes["e"] / "workspaces"),
        },
        "server_peak_rss_mb": server_rss,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--records", default="200", help="comma-separated sizes in records, e.g. 200,500,1000")
    p.add_argument("--requests", type=int, default=100, help="warm API recalls per size")
    p.add_argument("--out", type=Path, default=RESULTS, help="results file (its `real` section is replaced)")
    args = p.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="jgm-team-bench-"))
    try:
        sizes = [one_size(int(n), tmp, args.requests) for n in args.records.split(",")]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "cpus": os.cpu_count(), "sizes": sizes}
    print(json.dumps({"bench": "team_server", **report}, indent=2))
    kept = json.loads(args.out.read_text()) if args.out.is_file() else {}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(dict(kept, real=report), indent=2) + "\n")


if __name__ == "__main__":
    main()
