"""Cost of the stale-record check (seed/stale.py) on a warm recall at 1,000 records: the check alone, and a warm
recall through a served handle (what the API, MCP server and daemon hold) with and without it, interleaved in
one run so the ratio compares like with like. Then what an unstaged edit costs: the recall that reseeds one
edited record first, and the warning path (`reseed_on_recall = 0`). Prints one JSON object.

    python bench/stale_check.py [--records 1000 --rounds 60 --workdir /tmp/jgm-bench-stale --out FILE]

The target (docs/benchmarks.md): a warm API recall's p50 stays within 25 ms; the check should cost a few ms.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from collection_runs import emit
from generate import generate, git, make_records

QUESTIONS = [
    "How do we cache sessions?",
    "Which database do services use?",
    "How are deployments rolled back?",
    "What is the retry policy for payments?",
]


def ms(xs: list[float]) -> dict:
    xs = sorted(xs)
    return {
        "p50": round(statistics.median(xs) * 1000, 2),
        "p90": round(xs[int(len(xs) * 0.9) - 1] * 1000, 2),
        "mean": round(statistics.fmean(xs) * 1000, 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=60)
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/jgm-bench-stale"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--reuse", action="store_true", help="keep a workdir a previous run built (skips the cold seed)")
    args = ap.parse_args()
    home, repo = args.workdir / "home", args.workdir / "repo"
    os.environ["JGM_HOME"] = str(home)
    os.environ["JGM_NO_DAEMON"] = "1"
    if args.reuse and (repo / ".git").is_dir():
        git(repo, "checkout", "-q", "--", ".")
        git(repo, "clean", "-fdq")
        records = make_records(args.records, 7)
    else:
        shutil.rmtree(args.workdir, ignore_errors=True)
        records = generate(repo, args.records)

    from jupiter_git_memory.app.recall import RecallRequest, recall
    from jupiter_git_memory.app.workspace_handle import WorkspaceHandle
    from jupiter_git_memory.index.views import worktree_view
    from jupiter_git_memory.recall.calibrate import calibrating_seeder
    from jupiter_git_memory.recall.freshness import STALE, Views
    from jupiter_git_memory.seed import stale

    t = time.perf_counter()
    seeder = calibrating_seeder(repo)
    seeder.seed()
    seed_s = time.perf_counter() - t
    time.sleep(2.1)  # past the racy window of the files just written, then a no-op seed renews the look
    seeder.seed()

    h = WorkspaceHandle.for_repo(repo)
    r = h.recaller()
    view = worktree_view(r.workspace.repo_root)
    walks: list[int] = []
    real_look = stale.look
    stale.look = lambda *a: walks.append(1) or real_look(*a)  # type: ignore[assignment]
    check = []
    for _ in range(args.rounds * 3):
        t = time.perf_counter()
        found = stale.changes(r.wsdir, r.workspace.repo_root, r.settings, view)
        check.append(time.perf_counter() - t)
        assert found is not None and not len(found)

    real = Views._unseeded_edits

    def ask(i: int) -> float:
        t = time.perf_counter()
        h.read(lambda rc: recall(rc, RecallRequest(query=QUESTIONS[i % len(QUESTIONS)])))
        return time.perf_counter() - t

    for i in range(8):  # warm: model, index, view map
        ask(i)
    with_check, without = [], []
    for i in range(args.rounds):  # interleaved, so load on the machine hits both alike
        Views._unseeded_edits = real  # type: ignore[method-assign]
        with_check.append(ask(i))
        Views._unseeded_edits = lambda self, view: []  # type: ignore[method-assign]
        without.append(ask(i))
    Views._unseeded_edits = real  # type: ignore[method-assign]

    path = repo / records[0]["path"]
    path.write_text(path.read_text("utf-8") + "\nOne more unstaged line.\n", "utf-8")
    reseed = ask(0)  # one edited record: indexed before the answer
    (repo / "jgm.toml").write_text("reseed_on_recall = 0\n")
    path.write_text(path.read_text("utf-8") + "\nAnd another.\n", "utf-8")
    warned = []
    for i in range(args.rounds // 2):
        t = time.perf_counter()
        res = h.read(lambda rc: recall(rc, RecallRequest(query=QUESTIONS[i % len(QUESTIONS)])))
        warned.append(time.perf_counter() - t)
        assert any(w.startswith(STALE) for w in res.warnings)
    h.close()

    a, b = ms(with_check), ms(without)
    emit(
        {
            "benchmark": "stale_check",
            "records": args.records,
            "rounds": args.rounds,
            "seed_seconds": round(seed_s, 2),
            "check_alone_ms": ms(check),
            "check_walked": len(walks),  # 0: the kept files were stat'ed, no folder moved
            "warm_recall_with_check_ms": a,
            "warm_recall_without_check_ms": b,
            "check_cost_p50_ms": round(a["p50"] - b["p50"], 2),
            "ratio_p50": round(a["p50"] / b["p50"], 3),
            "within_25ms_p50": a["p50"] <= 25.0,
            "recall_that_reseeds_one_edit_ms": round(reseed * 1000, 1),
            "warm_recall_warning_one_edit_ms": ms(warned),
            "cpus": os.cpu_count(),
            "load_average": [round(x, 1) for x in os.getloadavg()],
        },
        args.out,
    )


if __name__ == "__main__":
    main()
