"""A team server at 100,000 chunks (issue 39): recall, sizes, RSS, no-op reseed and a second clone's fetch.

    python bench/team_scale.py --chunks 5000               # prints JSON, merges into bench/results/team_server.json
    python bench/team_scale.py --chunks 100000 --requests 200 --workdir /tmp/scale

Embedding 100,000 chunks for real takes ~1.5 hours at ~20 chunks/s on two shared cores, so the stores here are
filled as bench/model_costs.py's `fill` mode does: bench/ui_pages.py's TopicPassages composes each passage
vector from the model's real embeddings of the generator's topic phrases, under the model's own identity.
Everything else is real: the generated git repository and its clone, parsing, chunking with the model's
tokenizer, the catalogs, a `chroma run` server (and the embedded client), the content collection the
server shares, and every query's embedding by the real model in `jgm serve`. Only the stored vectors'
values are synthetic. Per size:
- `fill_server` / `fill_embedded`: store A's seed on the server, store E's on the embedded client (one child
  process each; seconds, peak RSS): what a cold seed costs beside embedding;
- `second_clone_seed`: store B's `jgm seed` of the clone against the same server: it fetches every vector
  and embeds none (real process, real model loaded); compared with the cold seed of as many chunks
  extrapolated from bench/team_server.py's real runs (`real` in the results file: a least-squares line of
  seconds over chunks through its measured sizes);
- `noop_reseed_server` / `noop_reseed_embedded`: `jgm seed` again, nothing changed;
- `recall_api_server` / `recall_api_embedded`: warm `POST /recall` through `jgm serve` (bench/api_latency.py),
  p50/p99, on store B (server) and store E (embedded);
- sizes on disk (catalogs, the server's data folder, the embedded store) and the server's peak RSS.
Every figure carries the load average at its start and end (other jobs share the machine).
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
sys.path.insert(0, str(HERE))

from generate import generate  # noqa: E402
from team_server import RESULTS, du, load, measure, pct, seed, start_chroma, stop, vm_hwm_mb  # noqa: E402

RECORDS_PER_10K_CHUNKS = 4020  # bench/generate.py records per 10,000 MiniLM chunks (bench/model_costs.py)
TARGETS = {"recall_p50_ms": 50.0, "recall_p99_ms": 150.0, "second_over_first": 0.10, "seed_peak_rss_mb": 1536}


def child_fill(repo: Path) -> dict:
    """In a fresh process (JGM_HOME, and JGM_CHROMA_URL for the server, set): seed with composed vectors."""
    from ui_pages import TopicPassages

    from jupiter_git_memory.seed.seeder import Seeder

    seeder = Seeder(repo)
    seeder.embedder = TopicPassages(seeder.embedder)  # type: ignore[assignment]
    la, t, c = load(), time.perf_counter(), time.process_time()
    rep = seeder.seed()
    seconds, cpu_s = time.perf_counter() - t, time.process_time() - c
    if rep.errors:
        raise SystemExit(f"seed reported errors: {rep.errors[:3]}")
    return {
        "seconds": round(seconds, 2),
        "cpu_s": round(cpu_s, 2),
        "counts": rep.to_json()["counts"],
        "chunks": rep.chunks,
        "peak_rss_mb": vm_hwm_mb(os.getpid()),
        "loadavg": [la, load()],
    }


def fill(repo: Path, home: Path, url: str | None) -> dict:
    env = dict(os.environ, JGM_HOME=str(home))
    env.pop("JGM_CHROMA_URL", None)
    if url:
        env["JGM_CHROMA_URL"] = url
    p = subprocess.run([sys.executable, __file__, "--child", str(repo)], env=env, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"fill failed ({p.returncode}): {p.stderr[-3000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def recall(repo: Path, home: Path, url: str | None, requests: int) -> dict:
    os.environ.pop("JGM_CHROMA_URL", None)
    if url:
        os.environ["JGM_CHROMA_URL"] = url
    try:
        la = load()
        lat, how = measure(repo, home, n=requests)
    finally:
        os.environ.pop("JGM_CHROMA_URL", None)
    return {
        "how": how,
        "n": len(lat),
        "p50": round(pct(lat, 50), 1),
        "p99": round(pct(lat, 99), 1),
        "loadavg": [la, load()],
    }


def extrapolated_cold_seed(real: list[dict], chunks: int) -> dict | None:
    """Seconds of a real cold seed on the server at `chunks`, from the measured sizes (least squares)."""
    pts = [(s["chunks"], s["cold_seed_server"]["seconds"]) for s in real]
    if len(pts) < 2:
        return None
    n = len(pts)
    mx, my = sum(x for x, _ in pts) / n, sum(y for _, y in pts) / n
    slope = sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)
    return {
        "from_chunks": [x for x, _ in pts],
        "seconds": round(my + slope * (chunks - mx), 1),
        "seconds_per_1000_chunks": round(1000 * slope, 1),
    }


def say(what: str, row: dict) -> None:
    print(f"{what}: {json.dumps(row)}", file=sys.stderr, flush=True)


def one_size(chunks: int, work: Path, requests: int, real: list[dict]) -> dict:
    records = round(chunks * RECORDS_PER_10K_CHUNKS / 10000)
    repo, clone = work / f"repo-{records}", work / f"clone-{records}"
    t = time.perf_counter()
    if not (repo / ".git").is_dir():
        generate(repo, records)
        subprocess.run(
            ["git", "-C", str(repo), "remote", "add", "origin", f"https://example.com/bench/scale-{records}.git"]
        )
    if not (clone / ".git").is_dir():
        subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True)
    origin = f"https://example.com/bench/scale-{records}.git"
    subprocess.run(["git", "-C", str(clone), "remote", "set-url", "origin", origin], check=True)
    out: dict = {"records": records, "generate_s": round(time.perf_counter() - t, 1)}
    data = work / f"chroma-{records}"
    homes = {k: work / f"home-{k}-{records}" for k in "abe"}
    for p in [data, *homes.values()]:
        shutil.rmtree(p, ignore_errors=True)
    url, server = start_chroma(data)
    try:
        out["fill_server"] = fill(repo, homes["a"], url)
        say("fill_server", out["fill_server"])
        out["chunks"] = out["fill_server"]["chunks"]
        second = seed(clone, homes["b"], url)
        out["second_clone_seed"] = second
        say("second_clone_seed", second)
        out["noop_reseed_server"] = seed(repo, homes["a"], url)
        say("noop_reseed_server", out["noop_reseed_server"])
        out["recall_api_server"] = recall(clone, homes["b"], url, requests)
        say("recall_api_server", out["recall_api_server"])
        out["server_peak_rss_mb"] = vm_hwm_mb(server.pid)
    finally:
        stop(server)
    out["fill_embedded"] = fill(repo, homes["e"], None)
    say("fill_embedded", out["fill_embedded"])
    out["noop_reseed_embedded"] = seed(repo, homes["e"], None)
    out["recall_api_embedded"] = recall(repo, homes["e"], None, requests)
    say("recall_api_embedded", out["recall_api_embedded"])
    out["disk_bytes"] = {
        "catalog_a": du(homes["a"] / "workspaces"),
        "catalog_b": du(homes["b"] / "workspaces"),
        "server_data": du(data),
        "embedded_store": du(homes["e"] / "workspaces"),
        "repo_files": du(repo) - du(repo / ".git"),
    }
    cold = extrapolated_cold_seed(real, out["chunks"])
    if cold:
        out["cold_seed_server_extrapolated"] = cold
        out["second_over_extrapolated_first"] = round(second["seconds"] / cold["seconds"], 4)
    out["pass"] = {
        "recall_p50": out["recall_api_server"]["p50"] <= TARGETS["recall_p50_ms"],
        "recall_p99": out["recall_api_server"]["p99"] <= TARGETS["recall_p99_ms"],
        "second_clone": bool(cold) and out["second_over_extrapolated_first"] <= TARGETS["second_over_first"],
        "seed_rss": max(out["fill_server"]["peak_rss_mb"], second["peak_rss_mb"]) <= TARGETS["seed_peak_rss_mb"],
    }
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--chunks", default="5000", help="comma-separated sizes in chunks, e.g. 5000,100000")
    p.add_argument("--requests", type=int, default=200, help="warm API recalls per store")
    p.add_argument("--workdir", type=Path, help="keep repos here (a re-run reuses them; stores are rebuilt)")
    p.add_argument("--out", type=Path, default=RESULTS)
    p.add_argument("--child", metavar="REPO", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        print(json.dumps(child_fill(Path(args.child))))
        return
    work = args.workdir or Path(tempfile.mkdtemp(prefix="jgm-team-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    kept = json.loads(args.out.read_text()) if args.out.is_file() else {}
    real = kept.get("real", {}).get("sizes", [])
    report: dict = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "cpus": os.cpu_count()}
    report["targets"] = TARGETS
    try:
        report["sizes"] = [one_size(int(n), work, args.requests, real) for n in args.chunks.split(",")]
    finally:
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(report, indent=2))
    scale = kept.get("scale", {})
    scale.update({str(s["chunks"]): dict(s, date=report["date"]) for s in report["sizes"]})
    kept["scale"] = scale
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(kept, indent=2) + "\n")


if __name__ == "__main__":
    main()
