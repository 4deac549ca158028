"""Task-recall eval and the latency cost of the concern split: prints JSON.

Seeds each task set's corpus into a temporary git repository and store — tests/eval/task_repo for
tests/eval/tasks.yaml (English, MiniLM chosen), tests/eval/zh/knowledge for tests/eval/zh/tasks.yaml (Chinese,
e5 chosen) — then runs its tasks with the goal split into concerns (the default) and without (the goal asked
as one query), a few rounds each after a warm-up, and reports the eval figures of both and the per-task
latency (median, p90). Each set is measured under the floor `jgm seed` leaves (calibrated with the shipped
probes once a corpus has 20 records: `calibrated`); the English set also under the model's shipped floor
(`shipped-floor`: a seed without its post-step, as tests/test_task_eval.py gates it).

    python bench/task_recall.py [--rounds 3] [--sets en,zh,en-heldout]

`en-heldout` (tests/eval/tasks_heldout.yaml) is the held-out English set over the same repository: run it to
confirm a change measured on `en`, never to choose one.
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
SETS = {  # name -> (corpus folder copied as the repository's files, tasks)
    "en": (ROOT / "tests/eval/task_repo", ROOT / "tests/eval/tasks.yaml"),
    "zh": (ROOT / "tests/eval/zh", ROOT / "tests/eval/zh/tasks.yaml"),
    "en-heldout": (ROOT / "tests/eval/task_repo", ROOT / "tests/eval/tasks_heldout.yaml"),  # never tuned on
}


def _repo(tmp: Path, name: str, corpus: Path) -> Path:
    repo = tmp / name
    shutil.copytree(corpus, repo, ignore=shutil.ignore_patterns("*.yaml") if name == "zh" else None)
    env = dict(
        os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@x", GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@x"
    )
    for cmd in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", name]):
        subprocess.run(["git", "-C", str(repo), *cmd], check=True, env=env)
    return repo


def _measure(rc, tasks, rounds: int) -> dict:
    from jupiter_git_memory.recall.task_eval import run_task_eval

    run_task_eval(rc, tasks)  # warm-up: model, Chroma, caches
    out: dict = {"floor": rc.floor_info().provenance.get("in_force")}
    for split in (True, False):
        times: list[float] = []
        report: dict = {}
        for _ in range(rounds):
            report = run_task_eval(rc, tasks, split=split)
            times += [r["ms"] for r in report["per_task"]]
        multi = [r["ms"] for r in report["per_task"] if r["kind"] in ("multi", "free")]
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
    out["tasks"] = len(tasks)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--sets", default="en,zh")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="jgm-task-bench-"))
    os.environ["JGM_HOME"] = str(tmp / "home")
    from jupiter_git_memory.recall.calibrate import auto_calibrate
    from jupiter_git_memory.recall.service import Recaller
    from jupiter_git_memory.recall.task_eval import load_tasks
    from jupiter_git_memory.seed.seeder import Seeder

    out: dict = {"rounds": args.rounds, "cpu_count": os.cpu_count()}
    try:
        for name in args.sets.split(","):
            corpus, tasks_file = SETS[name]
            repo = _repo(tmp, name, corpus)
            Seeder(repo).seed()  # the seed without its post-step: the model's shipped floor
            rc = Recaller(repo)
            tasks = load_tasks(tasks_file)
            got: dict = {"model": rc.embedder.spec.name}
            if name.startswith("en"):
                got["shipped-floor"] = _measure(rc, tasks, args.rounds)
            got["calibration"] = {k: v for k, v in auto_calibrate(rc).items() if k in ("action", "floor", "reason")}
            rc.close()
            rc = Recaller(repo)  # as `jgm seed` leaves it: the floor measured with the shipped probes
            got["calibrated"] = _measure(rc, tasks, args.rounds)
            rc.close()
            out[name] = got
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out["load_average"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
