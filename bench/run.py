"""One command for the benchmark suite; prints JSON (and a table on stderr), each figure with its target.

    python bench/run.py                         # sizes 100 and 1000, every section (a few minutes)
    python bench/run.py --sizes 100,1000,10000  # 10k is opt-in: it takes long on a small machine
    python bench/run.py --sizes 4100 --sections recall   # recall targets at ~10k chunks (4,100 records)
    python bench/run.py --sections embed --embed-texts 128
    python bench/run.py --out bench/out/result.json --profile bench/out/prof

Why ratios come from one run: on a shared machine absolute seconds swing with the neighbours' load; a
ratio of two figures measured minutes apart in the same run is what the targets are about.
Sections: embed (pipeline vs raw onnxruntime), seed (cold / no-op / 5 changed, peak RSS of the seeding
process), recall (warm latency p50/p99, cold CLI recall).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import generate, make_records  # noqa: E402

TARGETS = {
    "embed_ratio": (">=", 0.9),
    "noop_pct_of_cold": ("<=", 2.0),
    "change5_pct_of_cold": ("<=", 5.0),
    "recall_p50_ms": ("<=", 25.0),
    "recall_p99_ms": ("<=", 60.0),
    "cold_cli_recall_s": ("<=", 1.5),
    "seed_peak_rss_mb": ("<=", 1536.0),
}
QUERIES = [
    "why does the connection pool time out under bursty traffic",
    "retry policy for partial network failures",
    "how do we run schema migrations safely",
    "what batch size should the ingest worker use",
    "rate limiter and hot partitions",
    "idempotency keys for the payment webhook",
    "cache invalidation on schema drift",
    "TLS terminator and expired credentials",
    "session store memory pressure",
    "why is the deploy script slow",
    "backup job during nightly batch windows",
    "search indexer with out-of-order events",
    "how to configure the load balancer for IPv6-only hosts",
    "audit log in the same transaction",
    "pin the client library because of the pagination bug",
    "what did the incident review in March show",
]


def result(name: str, value, unit: str, target_key: str | None = None, note: str = "", **extra) -> dict:
    r = {"name": name, "value": value, "unit": unit, "target": None, "pass": None, "note": note, **extra}
    if target_key and value is not None:
        op, bound = TARGETS[target_key]
        r["target"] = f"{op} {bound}"
        r["pass"] = bool(value >= bound if op == ">=" else value <= bound)
    return r


def machine() -> dict:
    import chromadb
    import onnxruntime

    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "loadavg_start": [round(x, 2) for x in os.getloadavg()],
        "onnxruntime": onnxruntime.__version__,
        "chromadb": chromadb.__version__,
        "jgm_threads": os.environ.get("JGM_THREADS"),
    }


# ---------------------------------------------------------------------------------------------- repos
def ensure_repo(workdir: Path, n: int, seed: int) -> Path:
    repo = workdir / f"repo-{n}-s{seed}"
    if not (repo / ".git").is_dir():
        shutil.rmtree(repo, ignore_errors=True)
        generate(repo, n, seed)
    return repo


def fresh_home(workdir: Path, n: int) -> Path:
    home = workdir / f"home-{n}"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    return home


# ---------------------------------------------------------------------------------------------- embed
def raw_embed(session, tokenizer, texts: list[str], batch: int, pooling_mean: bool = True):
    """The baseline: what anyone would write with onnxruntime + tokenizers, input order, no sorting."""
    import numpy as np

    names = {i.name for i in session.get_inputs()}
    out = []
    for s in range(0, len(texts), batch):
        encs = tokenizer.encode_batch(texts[s : s + batch])
        width = max(len(e.ids) for e in encs)
        ids = np.zeros((len(encs), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for i, e in enumerate(encs):
            ids[i, : len(e.ids)] = e.ids
            mask[i, : len(e.ids)] = 1
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in names:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = session.run(None, feed)[0]
        m = mask[:, :, None].astype(hidden.dtype)
        v = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
        out.append(v / np.linalg.norm(v, axis=1, keepdims=True))
    return np.concatenate(out)


def bench_embed(repo: Path, n_texts: int, rounds: int) -> list[dict]:
    import numpy as np
    import onnxruntime as ort
    from tokenizers import Tokenizer

    from jupiter_git_memory.chunking.chunker import chunk_record
    from jupiter_git_memory.embedding.registry import load_embedder, locate

    emb = load_embedder()
    spec, model_path, tok_path = locate(emb.spec.name)
    texts: list[str] = []
    for rec in make_records(max(200, n_texts), 7):
        texts += [c.text for c in chunk_record(rec["title"], rec["body"], spec.max_tokens - 2, emb.count_tokens)]
    texts = texts[:n_texts]
    tokens = sum(min(emb.count_tokens(t), spec.max_tokens) for t in texts)
    tok = Tokenizer.from_file(str(tok_path))
    tok.enable_truncation(max_length=spec.max_tokens)
    tok.no_padding()
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = emb.session.get_session_options().intra_op_num_threads
    sess = ort.InferenceSession(str(model_path), sess_options=opts, providers=["CPUExecutionProvider"])
    ours_t, raw_t = [], []
    emb.embed_passages(texts[:8]), raw_embed(sess, tok, texts[:8], emb.batch_size)  # warm both
    for _ in range(rounds):  # interleaved so both sides see the same neighbours' load
        t = time.perf_counter()
        a = emb.embed_passages(texts)
        ours_t.append(time.perf_counter() - t)
        t = time.perf_counter()
        b = raw_embed(sess, tok, texts, emb.batch_size)
        raw_t.append(time.perf_counter() - t)
    agree = float(np.min(np.sum(a * b, axis=1)))
    ours, raw = len(texts) / min(ours_t), len(texts) / min(raw_t)
    common = {"texts": len(texts), "tokens": tokens, "batch_size": emb.batch_size}
    return [
        result(
            "embed_throughput_pipeline",
            round(ours, 2),
            "texts/s",
            note="OnnxEmbedder.embed_passages, best of rounds",
            tokens_per_s=round(tokens / min(ours_t), 1),
            seconds=[round(x, 3) for x in ours_t],
            **common,
        ),
        result(
            "embed_throughput_raw_onnxruntime",
            round(raw, 2),
            "texts/s",
            note="plain loop, input order, best of rounds",
            tokens_per_s=round(tokens / min(raw_t), 1),
            seconds=[round(x, 3) for x in raw_t],
            **common,
        ),
        result(
            "embed_ratio",
            round(ours / raw, 3),
            "x",
            "embed_ratio",
            note="pipeline / raw on the same texts",
            min_cosine_agreement=round(agree, 5),
        ),
    ]


# ---------------------------------------------------------------------------------------------- seed
def run_child(cmd: list[str], env: dict) -> tuple[dict, float, float]:
    """Run a child; return (its JSON stdout, wall seconds, ru_maxrss in MB from wait4). On Linux that
    ru_maxrss includes this (parent) process's RSS at spawn, so the child's own VmHWM is preferred."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t
        out.seek(0)
        err.seek(0)
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {err.read().decode()[-2000:]}")
        return json.loads(out.read().decode().strip().splitlines()[-1]), wall, usage.ru_maxrss / 1024


def bench_seed(workdir: Path, n: int, seed: int, profile: Path | None) -> tuple[list[dict], Path, Path, int]:
    repo = ensure_repo(workdir, n, seed)
    work = workdir / f"seedrepo-{n}"  # the change phase edits files: work on a copy
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(repo, work, symlinks=True)
    home = fresh_home(workdir, n)
    env = dict(os.environ, JGM_HOME=str(home))
    cmd = [
        sys.executable,
        str(HERE / "seed_phases.py"),
        str(work),
        "--records",
        str(n),
        "--gen-seed",
        str(seed),
        "--change",
        "5",
    ]
    if profile:
        profile.mkdir(parents=True, exist_ok=True)
        cmd += ["--profile", str(profile / f"cold-seed-{n}.prof")]
    data, wall, wait4_rss = run_child(cmd, env)
    rss = data.get("peak_rss_mb") or wait4_rss
    cold, noop, changed = data["cold"]["seconds"], data["noop"]["seconds"], data["changed"]["seconds"]
    ctx = {"records": n, "chunks": data["cold"]["chunks"]}
    rows = [
        result(
            f"seed_cold_{n}",
            cold,
            "s",
            note="in-process Seeder.seed, model already loaded",
            **ctx,
            embedded_chunks=data["cold"]["embedded_chunks"],
            chunks_per_s=round(data["cold"]["embedded_chunks"] / cold, 2),
        ),
        result(f"seed_noop_{n}", noop, "s", **ctx),
        result(f"noop_pct_of_cold_{n}", round(100 * noop / cold, 3), "%", "noop_pct_of_cold", **ctx),
        result(f"seed_change5_{n}", changed, "s", **ctx, embedded_chunks=data["changed"]["embedded_chunks"]),
        result(
            f"change5_pct_of_cold_{n}",
            round(100 * changed / cold, 3),
            "%",
            "change5_pct_of_cold" if n >= 1000 else None,
            note="" if n >= 1000 else "target is defined for 5 of >= 1,000 records",
            **ctx,
        ),
        result(
            f"seed_peak_rss_{n}",
            round(rss, 1),
            "MB",
            "seed_peak_rss_mb" if n >= 10000 else None,
            note="VmHWM of the seeding process over cold + no-op + change"
            + ("" if n >= 10000 else "; the target is defined for 10k records"),
            process_wall_s=round(wall, 2),
            wait4_maxrss_mb=round(wait4_rss, 1),
            peak_rss_after_cold_mb=data.get("peak_rss_after_cold_mb"),
            **ctx,
        ),
    ]
    return rows, work, home, data["cold"]["chunks"]


# ---------------------------------------------------------------------------------------------- recall
def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q / 100 * (len(s) - 1))))]


def warm_recall_in_process(repo: Path, home: Path, n_queries: int) -> tuple[list[float], str]:
    os.environ["JGM_HOME"] = str(home)
    from jupiter_git_memory.index.vectors import reset_clients
    from jupiter_git_memory.recall.service import Recaller

    reset_clients()
    rec = Recaller(repo)
    for q in QUERIES:  # warm: model, index, caches
        rec.recall(q, k=5)
    lat = []
    for i in range(n_queries):
        q = QUERIES[i % len(QUERIES)] + ("" if i < len(QUERIES) else f" {i}")
        t = time.perf_counter()
        rec.recall(q, k=5)
        lat.append((time.perf_counter() - t) * 1000)
    rec.close()
    return lat, "warm in-process Recaller.recall (hybrid, k=5)"


def warm_recall(repo: Path, home: Path, n_queries: int) -> tuple[list[float], str]:
    """Through the warm HTTP API when bench/api_latency.py offers `measure(repo, home, queries, n)`;
    otherwise in-process, labelled as such."""
    try:
        import api_latency  # written by the API helper
    except ImportError:
        api_latency = None
    if api_latency is not None and hasattr(api_latency, "measure"):
        lat, label = api_latency.measure(repo, home, QUERIES, n_queries)
        return list(lat), label
    lat, label = warm_recall_in_process(repo, home, n_queries)
    return lat, label + "; the HTTP API was not measured"


def bench_recall(repo: Path, home: Path, chunks: int, n_queries: int) -> list[dict]:
    lat, label = warm_recall(repo, home, n_queries)
    ctx = {
        "chunks": chunks,
        "queries": len(lat),
        "measured": label,
        "note_targets": "targets are defined at 10k chunks" + ("" if chunks >= 10000 else f"; this index has {chunks}"),
    }
    rows = [
        result("recall_p50_ms", round(pct(lat, 50), 2), "ms", "recall_p50_ms" if chunks >= 10000 else None, **ctx),
        result("recall_p99_ms", round(pct(lat, 99), 2), "ms", "recall_p99_ms" if chunks >= 10000 else None, **ctx),
    ]
    if "HTTP API was not measured" not in label:  # the same recalls without HTTP, for the API's overhead
        lat2, label2 = warm_recall_in_process(repo, home, n_queries)
        rows += [
            result("recall_inprocess_p50_ms", round(pct(lat2, 50), 2), "ms", measured=label2, chunks=chunks),
            result("recall_inprocess_p99_ms", round(pct(lat2, 99), 2), "ms", measured=label2, chunks=chunks),
        ]
    env = dict(os.environ, JGM_HOME=str(home))
    jgm = shutil.which("jgm", path=str(Path(sys.executable).parent)) or "jgm"
    times = []
    for q in QUERIES[:3]:
        t = time.perf_counter()
        p = subprocess.run([jgm, "recall", q, "--repo", str(repo), "--json"], env=env, capture_output=True)
        times.append(time.perf_counter() - t)
        if p.returncode != 0:
            raise RuntimeError(f"jgm recall failed: {p.stderr.decode()[-1000:]}")
    rows.append(
        result(
            "cold_cli_recall_s",
            round(statistics.median(times), 3),
            "s",
            "cold_cli_recall_s",
            note="`jgm recall --json` as a new process (median of 3)",
            runs=[round(t, 3) for t in times],
            chunks=chunks,
        )
    )
    return rows


# ---------------------------------------------------------------------------------------------- main
def table(rows: list[dict]) -> str:
    lines = [f"{'result':<34} {'value':>12} {'unit':<8} {'target':<10} pass"]
    for r in rows:
        ok = {True: "PASS", False: "FAIL", None: "-"}[r["pass"]]
        lines.append(f"{r['name']:<34} {r['value']!s:>12} {r['unit']:<8} {r['target'] or '':<10} {ok}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description="jupiter-git-memory benchmarks (JSON on stdout)")
    ap.add_argument("--sizes", default="100,1000", help="comma-separated record counts (10000 is opt-in)")
    ap.add_argument("--sections", default="embed,seed,recall", help="embed, seed, recall")
    ap.add_argument("--seed", type=int, default=7, help="generator seed")
    ap.add_argument("--workdir", type=Path, help="where repos and stores go (default: a temp dir, removed after)")
    ap.add_argument("--embed-texts", type=int, default=128)
    ap.add_argument("--embed-rounds", type=int, default=2)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--profile", type=Path, help="write cProfile stats of each cold seed into this folder")
    ap.add_argument("--out", type=Path, help="also write the JSON here")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    sections = set(args.sections.split(","))
    tmp = None
    if args.workdir is None:
        tmp = tempfile.mkdtemp(prefix="jgm-bench-")
        args.workdir = Path(tmp)
    args.workdir.mkdir(parents=True, exist_ok=True)
    report = {
        "machine": machine(),
        "sizes": sizes,
        "sections": sorted(sections),
        "generator_seed": args.seed,
        "results": [],
    }
    t0 = time.perf_counter()
    try:
        if "embed" in sections:
            report["results"] += bench_embed(
                ensure_repo(args.workdir, min(sizes), args.seed), args.embed_texts, args.embed_rounds
            )
        seeded = None
        if "seed" in sections or "recall" in sections:
            for n in sizes:
                if "seed" not in sections and n != max(sizes):
                    continue
                rows, work, home, chunks = bench_seed(args.workdir, n, args.seed, args.profile)
                if "seed" in sections:
                    report["results"] += rows
                seeded = (work, home, chunks)
        if "recall" in sections and seeded:
            report["results"] += bench_recall(*seeded, n_queries=args.queries)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    report["machine"]["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    report["total_seconds"] = round(time.perf_counter() - t0, 1)
    judged = [r for r in report["results"] if r["pass"] is not None]
    report["summary"] = {
        "judged": len(judged),
        "passed": sum(r["pass"] for r in judged),
        "failed": [r["name"] for r in judged if not r["pass"]],
    }
    text = json.dumps(report, indent=2)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")
    print(text)
    print(table(report["results"]), file=sys.stderr)


if __name__ == "__main__":
    main()
