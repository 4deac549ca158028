"""Where one warm recall's time goes on a kept team-scale store, and whether a change kept every answer (issue 39).

    python bench/recall_breakdown.py --workdir /tmp/scale --chunks 100000 --out before.json
    python bench/recall_breakdown.py --workdir /tmp/scale --chunks 100000 --out after.json --compare before.json
    python bench/recall_breakdown.py --workdir /tmp/scale --chunks 100000 --out x.json --profile  # + cProfile

Reads the stores `bench/team_scale.py --workdir` kept (store B on a `chroma run` server restarted on its data,
or `--embedded` for store E), asks 40 questions in process after a warm-up, and prints JSON: wall and CPU per
recall, the load average, and wall milliseconds per recall in each stage (timers wrapped around the index's
and retrieval's functions; the FTS work runs in retrieval's worker thread, beside the embedding and Chroma).
`--out` keeps every answer (results with scores and `why`, an empty answer's `why`, fallback, warnings) so
two runs of different code can be compared byte for byte: `--compare` says whether they are identical.
Nothing here caches across questions: each question is new to the recall that answers it.
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import json
import os
import pstats
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

from api_latency import QUERIES, _query, pct  # noqa: E402
from chroma_helpers import start_chroma, stop  # noqa: E402
from team_scale import RECORDS_PER_10K_CHUNKS  # noqa: E402

MORE = [
    "how do we rotate database credentials",
    "what happens when the message queue is full",
    "why did we choose postgres over mysql",
    "how are feature flags rolled out",
    "what is the retention period for audit logs",
    "which service owns user sessions",
    "how do we handle clock skew between nodes",
    "why are uploads streamed instead of buffered",
    "what compression is used for backups",
    "how is tenant isolation enforced in the API",
    "when do we page the on-call engineer",
    "what does the scheduler do when a job fails twice",
    "how do clients discover the service endpoints",
    "why is the index rebuilt nightly",
    "what encoding do we use for event payloads",
    "how is pagination done in the public API",
    "connection pool",
    "rate limiter tenant",
    "deploy timeout",
    "cache invalidation strategy",
]
QUESTIONS = [_query(QUERIES, i + 10) for i in range(20)] + MORE  # none is a warm-up question


class Stages:
    """Wall milliseconds and calls per stage, summed over threads (measurement only)."""

    def __init__(self) -> None:
        self.ms: dict[str, float] = collections.defaultdict(float)
        self.calls: dict[str, int] = collections.defaultdict(int)
        self._lock = threading.Lock()

    def wrap(self, owner: object, name: str, label: str) -> None:
        inner = getattr(owner, name)

        def timed(*a, **k):
            t = time.perf_counter()
            try:
                return inner(*a, **k)
            finally:
                with self._lock:
                    self.ms[label] += (time.perf_counter() - t) * 1000
                    self.calls[label] += 1

        setattr(owner, name, timed)

    def per_recall(self, n: int) -> dict[str, dict[str, float]]:
        order = sorted(self.ms, key=lambda k: -self.ms[k])
        return {k: {"ms": round(self.ms[k] / n, 2), "calls": round(self.calls[k] / n, 2)} for k in order}


def instrument() -> Stages:
    from jupiter_git_memory.embedding.onnx_embedder import OnnxEmbedder
    from jupiter_git_memory.index.queries import CatalogReads
    from jupiter_git_memory.index.vectors import VectorIndex
    from jupiter_git_memory.recall import retrieval

    s = Stages()
    s.wrap(VectorIndex, "query", "chroma query")
    s.wrap(VectorIndex, "vectors", "chroma get (lexical-only chunks' vectors)")
    s.wrap(OnnxEmbedder, "embed_query", "query embedding")
    s.wrap(retrieval, "lexical", "lexical evidence (worker thread)")
    s.wrap(CatalogReads, "term_chunk_counts", "  of which: word chunk counts")
    s.wrap(CatalogReads, "term_holders", "corroboration's word holders")
    s.wrap(retrieval, "search", "search (all of one search)")
    return s


def answers(outs: list) -> list[dict]:
    return [{"results": o.results, "why": o.why, "fallback": o.fallback, "warnings": o.warnings} for o in outs]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--workdir", type=Path, required=True, help="where bench/team_scale.py --workdir kept stores")
    p.add_argument("--chunks", type=int, default=100000, help="the size the stores were built for")
    p.add_argument("--embedded", action="store_true", help="store E on the embedded client instead of B")
    p.add_argument("--out", type=Path, required=True, help="write the answers (and the figures) here")
    p.add_argument("--compare", type=Path, help="an earlier --out: are the answers identical?")
    p.add_argument("--profile", action="store_true", help="also print cProfile's top functions (slower)")
    args = p.parse_args()
    records = round(args.chunks * RECORDS_PER_10K_CHUNKS / 10000)
    server = None
    if args.embedded:
        os.environ.pop("JGM_CHROMA_URL", None)
        home, repo = args.workdir / f"home-e-{records}", args.workdir / f"repo-{records}"
    else:
        url, server = start_chroma(args.workdir / f"chroma-{records}")
        os.environ["JGM_CHROMA_URL"] = url
        home, repo = args.workdir / f"home-b-{records}", args.workdir / f"clone-{records}"
    os.environ["JGM_HOME"] = str(home)
    from jupiter_git_memory.recall.service import Recaller

    stages = instrument()
    try:
        rc = Recaller(repo)
        for q in QUERIES:  # warm: model, catalog tables kept per generation, connections
            rc.recall(q, k=5)
        stages.ms.clear()
        stages.calls.clear()
        prof = cProfile.Profile() if args.profile else None
        la, walls, outs = os.getloadavg(), [], []
        cpu = time.process_time()
        for q in QUESTIONS:
            if prof:
                prof.enable()
            t = time.perf_counter()
            outs.append(rc.recall(q, k=5))
            walls.append((time.perf_counter() - t) * 1000)
            if prof:
                prof.disable()
        cpu_ms = (time.process_time() - cpu) * 1000 / len(QUESTIONS)
        rc.close()
    finally:
        if server is not None:
            stop(server)
    report = {
        "store": str(home),
        "questions": len(QUESTIONS),
        "wall_ms": {"p50": round(pct(walls, 50), 1), "mean": round(sum(walls) / len(walls), 1)},
        "cpu_ms_per_recall": round(cpu_ms, 1),
        "profiled": bool(prof),
        "loadavg": [list(la), list(os.getloadavg())],
        "stages_ms_per_recall": stages.per_recall(len(QUESTIONS)),
    }
    mine = answers(outs)
    args.out.write_text(json.dumps({"questions": QUESTIONS, "answers": mine, "figures": report}, indent=1) + "\n")
    if args.compare:
        theirs = json.loads(args.compare.read_text())["answers"]
        same = json.dumps(theirs, sort_keys=True) == json.dumps(mine, sort_keys=True)
        report["identical_to"] = {"file": str(args.compare), "identical": same}
        if not same:
            first = next((i for i, (a, b) in enumerate(zip(theirs, mine)) if a != b), min(len(theirs), len(mine)))
            report["identical_to"]["first_difference"] = QUESTIONS[first]
    print(json.dumps(report, indent=2))
    if prof:
        pstats.Stats(prof, stream=sys.stderr).sort_stats("cumulative").print_stats(40)


if __name__ == "__main__":
    main()
