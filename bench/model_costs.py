"""What each embedding model costs, both measured in one run on this machine: cold seed per 1,000 chunks and
its ratio to the same embedder's raw loop over the same chunk texts, the seed's peak RSS, and warm HTTP API
recall at ~10,000 chunks. Prints JSON and writes bench/results/model_costs.json.

    python bench/model_costs.py                     # MiniLM int8 and multilingual-e5-small q4, 2 runs each
    python bench/model_costs.py --runs 3 --records 400 --recall-chunks 10000 --requests 200 --workdir /tmp/mc

Cold seed: each run and model is a child process with its own fresh store (chunks are shared by content
within a store, so a second seed into one store would embed nothing). The child builds `Seeder` with
JGM_MODEL set (model loading and a two-text warm-up are outside the timing, reported as `startup_s`), times
`Seeder.seed()` (no post-seed floor calibration, as bench/run.py), records every text the seed handed to
`embed_passages`, then times `embed_passages` over exactly those texts in one call (the embedder's own batch
size; MiniLM sorts the whole list by length: the fastest loop the embedder offers, so the ratio is strict).
The timed seed includes what a process's first seed pays once, opening Chroma (importing chromadb: ~0.45 s
with cached bytecode, ~1.1 s without), so at 100 records (240 MiniLM chunks) it weighs ~8 % of MiniLM's seed;
`--records 400` (~1,000 MiniLM chunks) is the size the target names.
Wall and CPU seconds both; the ratio that matters is raw / seed (>= 0.9: the seed adds at most ~11 % to
embedding). Runs alternate which model goes first, so both see the neighbours' load alike. The same
records give each model its own chunks (256-token windows for MiniLM, 512 for e5), so figures are per
1,000 of that model's chunks, and the e5 / MiniLM ratio is also given for the same records.

Recall: e5 costs ~0.6 s of CPU per 300-token chunk on these cores (0.13 s for a 40-token text), so seeding
10,000 chunks for real would take hours on two shared cores. The recall stores are generated repos of
~10,000 chunks of each model's own chunking, seeded as bench/ui_pages.py does: the passage vectors are sums
of the model's real embeddings of the generator's topic phrases found in each chunk, plus noise, under the
model's own identity, so the served workspace loads the real model and embeds every query with it; then its
floor is measured with the shipped probes, as `jgm seed` does after a seed (since 2026-12-05). What a
recall costs (the query's embedding, Chroma's search over ~10,000 vectors of 384 dimensions, the FTS5 query
over ~10,000 real-size chunks, ranking, the receipt) is real; only the stored vectors' values are not.
Measured with bench/api_latency.py's `measure` (`jgm serve` as a real process, keep-alive client, hybrid,
k=5, after a warm-up pass), rounds interleaved between the models.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import generate  # noqa: E402

MODELS = ("minilm-l6-v2-int8", "multilingual-e5-small-q4")
# records of bench/generate.py per 10,000 chunks: each model chunks to its own window (256 / 512 tokens)
RECORDS_PER_10K_CHUNKS = {"minilm-l6-v2-int8": 4020, "multilingual-e5-small-q4": 6770}
TARGETS = {"raw_over_seed": 0.9, "recall_p50_ms": 25.0}


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def vm(name: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(name + ":"):
            return round(int(line.split()[1]) / 1024, 1)
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


# ------------------------------------------------------------------------------------------------ child
def child_seed(repo: Path, mode: str) -> dict:
    """In a fresh process with JGM_HOME and JGM_MODEL set: time a cold seed, then (mode `seed`) the raw loop;
    mode `fill` seeds the recall store with passage vectors composed from real phrase embeddings."""
    t = time.perf_counter()
    from jupiter_git_memory.seed.seeder import Seeder

    seeder = Seeder(repo)
    if mode == "fill":
        from ui_pages import TopicPassages

        seeder.embedder = TopicPassages(seeder.embedder)  # type: ignore[assignment]
    emb = seeder.embedder
    orig = emb.embed_passages
    texts: list[str] = []

    inside = [0.0, 0.0]  # wall and CPU seconds the seed spent inside embed_passages

    def recording(batch: list[str]):
        texts.extend(batch)
        t0, c0 = time.perf_counter(), cpu()
        vecs = orig(batch)
        inside[0] += time.perf_counter() - t0
        inside[1] += cpu() - c0
        return vecs

    emb.embed_passages = recording  # type: ignore[method-assign]  # pass-through: the seed's texts, in order
    orig(["warm-up passage one", "warm-up passage two, a little longer than the first"])
    out: dict = {
        "model": emb.spec.name,
        "batch_size": getattr(emb, "batch_size", None),
        "startup_s": round(time.perf_counter() - t, 3),
        "rss_before_seed_mb": vm("VmHWM"),
    }
    la, c0, t0 = load(), cpu(), time.perf_counter()
    rep = seeder.seed()
    secs, cpus = time.perf_counter() - t0, cpu() - c0
    if rep.errors:
        raise SystemExit(f"seed reported errors: {rep.errors[:3]}")
    out["seed"] = {
        "seconds": round(secs, 3),
        "cpu_s": round(cpus, 3),
        "records": rep.records,
        "chunks": rep.chunks,
        "embedded_chunks": rep.embedded_chunks,
        "texts_embedded": len(texts),
        "inside_embed_s": round(inside[0], 3),  # the rest of `seconds` is the seed's own work
        "inside_embed_cpu_s": round(inside[1], 3),
        "tokens": sum(emb.count_tokens(x) for x in texts),
        "loadavg_start": la,
        "loadavg_end": load(),
    }
    out["seed_peak_rss_mb"] = vm("VmHWM")  # before the raw loop, which could only raise it
    if mode == "seed":
        la, c0, t0 = load(), cpu(), time.perf_counter()
        vecs = orig(texts)
        out["raw"] = {
            "seconds": round(time.perf_counter() - t0, 3),
            "cpu_s": round(cpu() - c0, 3),
            "texts": len(vecs),
            "loadavg_start": la,
            "loadavg_end": load(),
        }
    return out


def child_calibrate(repo: Path) -> dict:
    """The floor a seeded store of this size has: `jgm seed` measures one with the shipped probes after a seed
    of 20 records or more (recall/calibrate.py `auto_calibrate`, kept while the corpus is unchanged). The
    filled stores skip the seed's post-step, and a store on the shipped default pays a COUNT of its records
    on every recall that no seeded store pays, so each is calibrated as a seed would before it is timed."""
    from jupiter_git_memory.recall.calibrate import auto_calibrate
    from jupiter_git_memory.recall.service import Recaller

    rc = Recaller(repo)
    try:
        done = auto_calibrate(rc)
        return {k: done.get(k) for k in ("action", "floor", "records", "reason")}
    finally:
        rc.close()


def run_child(args: list[str], env: dict) -> dict:
    p = subprocess.run([sys.executable, __file__, "--child", *args], env=env, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"child {args} failed ({p.returncode}): {p.stderr[-3000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------------------------------------ parent
def spread(values: list[float]) -> dict:
    return {"min": round(min(values), 3), "max": round(max(values), 3), "median": round(statistics.median(values), 3)}


def bench_seed(work: Path, records: int, runs: int, previous: dict | None = None) -> dict:
    """`runs` more cold-seed runs per model; `previous` (this corpus's earlier runs from --out) are kept."""
    repo = work / f"repo-{records}"
    if not (repo / ".git").is_dir():
        generate(repo, records)
    per: dict[str, list[dict]] = {m: [] for m in MODELS}
    if previous and previous.get("repo_records") == records:
        per = {m: list(previous["runs"][m]) for m in MODELS}
    first = len(per[MODELS[0]])
    for r in range(first, first + runs):
        order = MODELS if r % 2 == 0 else MODELS[::-1]
        for m in order:
            home = work / f"home-seed-{m}-{r}"
            shutil.rmtree(home, ignore_errors=True)
            d = run_child(["seed", str(repo)], dict(os.environ, JGM_HOME=str(home), JGM_MODEL=m))
            shutil.rmtree(home, ignore_errors=True)
            d["run"] = r
            per[m].append(d)
            print(f"seed run {r} {m}: {json.dumps(d)}", file=sys.stderr, flush=True)
    summary: dict = {}
    for m, rows in per.items():
        chunks = rows[0]["seed"]["chunks"]
        summary[m] = {
            "records": rows[0]["seed"]["records"],
            "chunks": chunks,
            "tokens": rows[0]["seed"]["tokens"],
            "batch_size": rows[0]["batch_size"],
            "seed_s": spread([x["seed"]["seconds"] for x in rows]),
            "seed_s_per_1000_chunks": spread([1000 * x["seed"]["seconds"] / chunks for x in rows]),
            "seed_cpu_s_per_1000_chunks": spread([1000 * x["seed"]["cpu_s"] / chunks for x in rows]),
            "raw_s": spread([x["raw"]["seconds"] for x in rows]),
            "raw_over_seed_wall": spread([x["raw"]["seconds"] / x["seed"]["seconds"] for x in rows]),
            "raw_over_seed_cpu": spread([x["raw"]["cpu_s"] / x["seed"]["cpu_s"] for x in rows]),
            "seed_own_work_share_wall": spread(
                [1 - x["seed"]["inside_embed_s"] / x["seed"]["seconds"] for x in rows if "inside_embed_s" in x["seed"]]
                or [float("nan")]
            ),
            "seed_peak_rss_mb": spread([x["seed_peak_rss_mb"] for x in rows]),
            "startup_s": spread([x["startup_s"] for x in rows]),
            "loadavg_1m_during": spread(
                [v for x in rows for v in (x["seed"]["loadavg_start"][0], x["seed"]["loadavg_end"][0])]
            ),
        }
        summary[m]["raw_over_seed_pass"] = summary[m]["raw_over_seed_wall"]["min"] >= TARGETS["raw_over_seed"]
    a, b = (summary[m] for m in MODELS)
    ratio_runs = [y["seed"]["seconds"] / x["seed"]["seconds"] for x, y in zip(per[MODELS[0]], per[MODELS[1]])]
    summary["e5_over_minilm_same_records_wall"] = spread(ratio_runs)
    summary["e5_over_minilm_per_1000_chunks_wall"] = spread([r * a["chunks"] / b["chunks"] for r in ratio_runs])
    summary["e5_over_minilm_same_records_cpu"] = spread(
        [y["seed"]["cpu_s"] / x["seed"]["cpu_s"] for x, y in zip(per[MODELS[0]], per[MODELS[1]])]
    )
    return {"repo_records": records, "runs": per, "summary": summary}


def bench_recall(work: Path, n: int, requests: int, rounds: int) -> dict:
    import api_latency

    repos, homes, seeds = {}, {}, {}
    for m in MODELS:
        records = round(n * RECORDS_PER_10K_CHUNKS[m] / 10000)
        repos[m] = work / f"repo-{records}"
        if not (repos[m] / ".git").is_dir():
            generate(repos[m], records)
        homes[m] = work / f"home-recall-{m}"
        env = dict(os.environ, JGM_HOME=str(homes[m]), JGM_MODEL=m)
        if not (homes[m] / "seeded").exists():
            shutil.rmtree(homes[m], ignore_errors=True)
            seeds[m] = run_child(["fill", str(repos[m])], env)
            (homes[m] / "seeded").write_text(json.dumps(seeds[m]))
        else:
            seeds[m] = json.loads((homes[m] / "seeded").read_text())
        seeds[m]["floor"] = run_child(["calibrate", str(repos[m])], env)
        print(f"recall store {m}: {json.dumps(seeds[m])}", file=sys.stderr, flush=True)
    out: dict = {"target_chunks": n, "requests_per_round": requests, "stores": seeds, "rounds": {m: [] for m in MODELS}}
    for r in range(rounds):
        for m in MODELS if r % 2 == 0 else MODELS[::-1]:
            os.environ["JGM_MODEL"] = m  # the served workspace embeds queries with the model its vectors came from
            la = load()
            lat, label = api_latency.measure(repos[m], homes[m], api_latency.QUERIES, requests)
            row = {"round": r, **api_latency.summary(lat), "loadavg_start": la, "loadavg_end": load()}
            row["server_cpu_ms_per_recall"] = api_latency.LAST.get("server_cpu_ms_per_recall")
            out["rounds"][m].append(row)
            out["measured"] = label
            print(f"recall round {r} {m}: {json.dumps(row)}", file=sys.stderr, flush=True)
    os.environ.pop("JGM_MODEL", None)
    out["summary"] = {
        m: {
            "records": seeds[m]["seed"]["records"],
            "chunks": seeds[m]["seed"]["chunks"],
            "p50_ms": spread([x["p50_ms"] for x in rows]),
            "p99_ms": spread([x["p99_ms"] for x in rows]),
            "server_cpu_ms_per_recall": spread([x.get("server_cpu_ms_per_recall") or float("nan") for x in rows]),
            "p50_pass": max(x["p50_ms"] for x in rows) <= TARGETS["recall_p50_ms"],
            "loadavg_1m_during": spread([v for x in rows for v in (x["loadavg_start"][0], x["loadavg_end"][0])]),
        }
        for m, rows in out["rounds"].items()
    }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--records", type=int, default=100, help="records of the cold-seed corpus (400: ~1,000 MiniLM chunks)"
    )
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--recall-chunks", type=int, default=10000, help="about how many chunks the recall stores hold")
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--sections", default="seed,recall")
    ap.add_argument("--fresh", action="store_true", help="drop the cold-seed runs already in --out (else: add runs)")
    ap.add_argument("--workdir", type=Path, help="keep repos and recall stores here (a re-run reuses them)")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "model_costs.json")
    ap.add_argument("--child", nargs=2, metavar=("MODE", "REPO"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        mode, repo = args.child
        print(json.dumps(child_calibrate(Path(repo)) if mode == "calibrate" else child_seed(Path(repo), mode)))
        return
    work = args.workdir or Path(tempfile.mkdtemp(prefix="jgm-model-costs-"))
    work.mkdir(parents=True, exist_ok=True)
    sections = set(args.sections.split(","))
    report: dict = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cpus": os.cpu_count(),
        "loadavg_start": load(),
        "models": list(MODELS),
        "targets": TARGETS,
        "omp_wait_policy_env": os.environ.get("OMP_WAIT_POLICY"),
        # set, no bytecode is cached: chromadb's import inside the timed seed took 1.1 s instead of 0.45 s
        "python_dont_write_bytecode_env": os.environ.get("PYTHONDONTWRITEBYTECODE"),
    }
    t = time.perf_counter()
    try:
        if "seed" in sections:
            kept = json.loads(args.out.read_text()).get("cold_seed") if args.out and args.out.is_file() else None
            report["cold_seed"] = bench_seed(work, args.records, args.runs, None if args.fresh else kept)
        if "recall" in sections:
            report["recall"] = bench_recall(work, args.recall_chunks, args.requests, args.rounds)
    finally:
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)
    report["loadavg_end"] = load()
    report["wall_s"] = round(time.perf_counter() - t, 1)
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:  # a run of some sections keeps the other sections' figures already in the file
        args.out.parent.mkdir(parents=True, exist_ok=True)
        kept = json.loads(args.out.read_text()) if args.out.is_file() else {}
        runs = kept.get("invocations", []) + [
            {k: report[k] for k in ("date", "loadavg_start", "loadavg_end", "wall_s")}
        ]
        if "recall" in report and "recall" in kept:  # earlier recall rounds stay, beside the new ones
            report["recall"]["earlier"] = kept["recall"].get("earlier", []) + [
                {k: kept["recall"][k] for k in ("rounds", "summary") if k in kept["recall"]}
            ]
        kept.update(report, invocations=runs)
        args.out.write_text(json.dumps(kept, indent=2) + "\n")


if __name__ == "__main__":
    main()
