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

from api_latency import _cpu_s  # noqa: E402
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


def recall(repo: Path, home: Path, url: str | None, requests: int, chroma_pid: int | None = None) -> dict:
    """Warm API recall p50/p99, with the CPU each recall cost `jgm serve` (and the Chroma server): on shared
    cores wall time is mostly waiting, CPU is what a recall costs when nothing else competes."""
    import api_latency

    os.environ.pop("JGM_CHROMA_URL", None)
    if url:
        os.environ["JGM_CHROMA_URL"] = url
    try:
        la, c = load(), _cpu_s(chroma_pid) if chroma_pid else None
        lat, how = measure(repo, home, n=requests)
        c2 = _cpu_s(chroma_pid) if chroma_pid else None
    finally:
        os.environ.pop("JGM_CHROMA_URL", None)
    row = {
        "how": how,
        "n": len(lat),
        "p50": round(pct(lat, 50), 1),
        "p99": round(pct(lat, 99), 1),
        "serve_cpu_ms_per_recall": api_latency.LAST.get("server_cpu_ms_per_recall"),
        "loadavg": [la, load()],
    }
    if c is not None and c2 is not None:  # the warm-up pass is inside: a slight overestimate
        row["chroma_cpu_ms_per_recall"] = round(1000 * (c2 - c) / (len(lat) + len(api_latency.QUERIES)), 2)
    return row


def recall_again(chunks: int, work: Path, requests: int) -> dict:
    """Recall once more on the stores a run with --workdir kept (the server restarted on its data)."""
    records = round(chunks * RECORDS_PER_10K_CHUNKS / 10000)
    url, server = start_chroma(work / f"chroma-{records}")
    try:
        row = {
            "records": records,
            "recall_api_server": recall(
                work / f"clone-{records}", work / f"home-b-{records}", url, requests, server.pid
            ),
        }
        say("recall_api_server", row["recall_api_server"])
    finally:
        stop(server)
    row["recall_api_embedded"] = recall(work / f"repo-{records}", work / f"home-e-{records}", None, requests)
    say("recall_api_embedded", row["recall_api_embedded"])
    return row


def line(points: list[tuple[float, float]], at: float) -> float | None:
    """The least-squares line through `points` (x, y), read at x = `at`."""
    if len({x for x, _ in points}) < 2:
        return None
    n = len(points)
    mx, my = sum(x for x, _ in points) / n, sum(y for _, y in points) / n
    slope = sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x, _ in points)
    return round(my + slope * (at - mx), 2)


def extrapolated_cold_seed(real: list[dict], chunks: int) -> dict | None:
    """Seconds of a real cold seed on the server at `chunks`, from bench/team_server.py's measured sizes."""
    pts = [(s["chunks"], s["cold_seed_server"]["seconds"]) for s in real]
    secs = line(pts, chunks)
    return None if secs is None else {"from_chunks": [x for x, _ in pts], "seconds": secs}


def summarize(kept: dict, at: int = 100_000) -> dict:
    """Every target at `at` chunks, extrapolated from the measured sizes (each line says from which)."""
    real, scale = kept.get("real", {}).get("sizes", []), list(kept.get("scale", {}).values())
    out: dict = {"chunks": at, "real_sizes": [s["chunks"] for s in real], "scale_sizes": [s["chunks"] for s in scale]}
    cold = line([(s["chunks"], s["cold_seed_server"]["seconds"]) for s in real], at)
    raw = line([(s["chunks"], s["raw_embed"]["seconds"]) for s in real], at)
    second = line([(s["chunks"], s["second_clone_seed"]["seconds"]) for s in scale], at)
    out["cold_seed_server_s"], out["raw_embed_s"], out["second_clone_seed_s"] = cold, raw, second
    if cold and raw:
        out["raw_over_cold_seed"] = round(raw / cold, 3)
    if cold and second:
        out["second_over_first"] = round(second / cold, 4)
    # a seed's peak RSS: what each chunk adds (the plan, texts and vectors held until the write: the line through
    # the scale sizes' seeds) plus, for a first seed, the model's working memory while it embeds (the first real
    # size's cold seed minus its second clone's; later real sizes' RSS were read before bench/team_server.py
    # launched seeds through a small process, so they count that process's own size)
    out["cold_seed_peak_rss_mb"] = out["second_clone_peak_rss_mb"] = None
    if real and scale:
        first = min(real, key=lambda s: s["chunks"])
        working = first["cold_seed_server"]["peak_rss_mb"] - first["second_clone_seed"]["peak_rss_mb"]
        fill = line([(s["chunks"], s["fill_server"]["peak_rss_mb"]) for s in scale], at)
        out["model_working_memory_mb"] = round(working, 1)
        out["cold_seed_peak_rss_mb"] = None if fill is None else round(fill + working, 1)
    out["second_clone_peak_rss_mb"] = line([(s["chunks"], s["second_clone_seed"]["peak_rss_mb"]) for s in scale], at)
    out["server_peak_rss_mb"] = line([(s["chunks"], s["server_peak_rss_mb"]) for s in scale], at)
    return out


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

    def on_server(what: str, step, *args) -> dict:
        """A step against the server, with the CPU seconds the server spent on it (its HNSW inserts, gets)."""
        c = _cpu_s(server.pid)
        row = step(*args)
        row["server_cpu_s"] = round((_cpu_s(server.pid) or 0) - (c or 0), 2)
        say(what, row)
        return row

    try:
        out["fill_server"] = on_server("fill_server", fill, repo, homes["a"], url)
        out["chunks"] = out["fill_server"]["chunks"]
        second = out["second_clone_seed"] = on_server("second_clone_seed", seed, clone, homes["b"], url)
        out["noop_reseed_server"] = on_server("noop_reseed_server", seed, repo, homes["a"], url)
        out["recall_api_server"] = recall(clone, homes["b"], url, requests, server.pid)
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
    p.add_argument("--summarize", action="store_true", help="extrapolate every target to 100,000 chunks")
    p.add_argument("--recall-only", action="store_true", help="recall again on the stores kept in --workdir")
    p.add_argument("--label", help="with --recall-only: what the rows measured, e.g. the commit (before/after)")
    p.add_argument("--child", metavar="REPO", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        print(json.dumps(child_fill(Path(args.child))))
        return
    if args.summarize:
        kept = json.loads(args.out.read_text())
        for size in kept.get("scale", {}).values():  # sizes measured before the real runs were in the file
            cold = extrapolated_cold_seed(kept.get("real", {}).get("sizes", []), size["chunks"])
            if cold:
                size["cold_seed_server_extrapolated"] = cold
                size["second_over_extrapolated_first"] = ratio = round(
                    size["second_clone_seed"]["seconds"] / cold["seconds"], 4
                )
                size["pass"]["second_clone"] = ratio <= TARGETS["second_over_first"]
        kept["at_100k"] = summarize(kept)
        print(json.dumps(kept["at_100k"], indent=2))
        args.out.write_text(json.dumps(kept, indent=2) + "\n")
        return
    if args.recall_only:
        kept = json.loads(args.out.read_text()) if args.out.is_file() else {}
        date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        again = [dict(recall_again(int(n), args.workdir, args.requests), date=date) for n in args.chunks.split(",")]
        if args.label:
            again = [dict(row, label=args.label) for row in again]
        print(json.dumps(again, indent=2))
        kept = json.loads(args.out.read_text()) if args.out.is_file() else {}
        kept["recall_again"] = kept.get("recall_again", []) + again
        args.out.write_text(json.dumps(kept, indent=2) + "\n")
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
    kept = json.loads(args.out.read_text()) if args.out.is_file() else {}  # again: another run may have written
    scale = kept.get("scale", {})
    scale.update({str(s["chunks"]): dict(s, date=report["date"]) for s in report["sizes"]})
    kept["scale"] = scale
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(kept, indent=2) + "\n")


if __name__ == "__main__":
    main()
