"""Task-recall eval and the latency cost of the concern split: prints JSON.

Seeds tests/eval/task_repo into a temporary git repository and store, then runs tests/eval/tasks.yaml
with the goal split into concerns (the default) and without (the goal asked as one query), a few rounds
each after a warm-up, and reports the eval figures of both and the per-task latency (median, p90).

    python bench/task_recall.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="jgm-task-bench-"))
    os.environ["JGM_HOME"] = str(tmp / "home")
    from jupiter_git_memory.recall.service import Recaller
    from jupiter_git_memory.recall.task_eval import load_tasks, run_task_eval
    from jupiter_git_memory.seed.seeder import Seeder

    repo = tmp / "parcelhub"
    shutil.copytree(ROOT / "tests/eval/task_repo", repo)
    env = dict(
        os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@x", GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@x"
    )
    for cmd in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "parcelhub"]):
        subprocess.run(["git", "-C", str(repo), *cmd], check=True, env=env)
    Seeder(repo).seed()
    rc = Recaller(repo)
    tasks = load_tasks(ROOT / "tests/eval/tasks.yaml")
    run_task_eval(rc, tasks)  # warm-up: model, Chroma, caches
    out = {}
    for split in (True, False):
        times: list[float] = []
        report: dict = {}
        for _ in range(args.rounds):
            report = run_task_eval(rc, tasks, split=split)
            times += [r["ms"] for r in report["per_task"]]
        multi = [r["ms"] for r in report["per_task"] if r["kind"] == "multi"]
        out["split" if split else "whole-goal"] = {
            "recall_at_5": report["recall_at_k"],
            "recall_by_kind": report["recall_by_kind"],
            "multi_complete": report["multi_complete"],
            "free_complete": report["free_complete"],
            "leaks": report["leaks"],
            "unanswerable_mean_results": report["unanswerable_mean_results"],
            "ms_median": round(statistics.median(times), 1),
            "ms_p90": round(statistics.quantiles(times, n=10)[-1], 1),
            "ms_multi_mean_last_round": round(sum(multi) / len(multi), 1),
            "missed": {r["id"]: r["missed"] for r in report["per_task"] if r["missed"]},
        }
    s, w = out["split"], out["whole-goal"]
    out["split_cost"] = {
        "median_ms": round(s["ms_median"] - w["ms_median"], 1),
        "multi_task_ms": round(s["ms_multi_mean_last_round"] - w["ms_multi_mean_last_round"], 1),
    }
    out["tasks"], out["rounds"], out["cpu_count"] = len(tasks), args.rounds, os.cpu_count()
    out["load_average"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(out, indent=2))
    rc.close()
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
