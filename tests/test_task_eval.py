"""The task-recall eval gate (issue 23): tests/eval/tasks.yaml over tests/eval/task_repo, seeded for real with
the offline model. recall@5 >= 0.9 over expected records, multi-concern tasks complete >= 0.8, no retired
record ever returned, and tasks nothing answers get at most one result on average. Figures and what was
changed after seeing a miss: bench/README.md (`python bench/task_recall.py`)."""

from __future__ import annotations

import shutil
from pathlib import Path

from jupiter_git_memory.recall.service import Recaller
from jupiter_git_memory.recall.task_eval import gate_problems, load_tasks, run_task_eval
from jupiter_git_memory.seed.seeder import Seeder

EVAL = Path(__file__).parent / "eval"


def _seed_task_repo(repo, calibrate: bool) -> None:
    """The task repository committed into `repo` and seeded: as `jgm seed` does (seed, then calibrate) with
    `calibrate`, else without the post-step (the model's shipped floor)."""
    from jupiter_git_memory.recall.calibrate import calibrating_seeder

    shutil.copytree(EVAL / "task_repo", repo.path, dirs_exist_ok=True)
    repo.commit("parcelhub")
    assert not (calibrating_seeder(repo.path) if calibrate else Seeder(repo.path)).seed().errors


def test_task_recall_eval_holds_the_gate(repo):
    _seed_task_repo(repo, calibrate=False)
    tasks = load_tasks(EVAL / "tasks.yaml")
    assert {t.kind for t in tasks} == {"paraphrase", "files", "multi", "free", "error", "unanswerable"}
    assert len(tasks) >= 55 and sum(t.kind == "free" for t in tasks) >= 8
    report = run_task_eval(Recaller(repo.path), tasks, k=5)
    misses = [(r["id"], r["missed"], r["ids"]) for r in report["per_task"] if r["missed"] or r["leaks"]]
    assert gate_problems(report) == [], (
        report["recall_at_k"],
        report["multi_complete"],
        report["free_complete"],
        misses,
    )
    assert report["leaks"] == 0 and report["recall_by_kind"]["files"] == 1.0


def test_task_recall_under_the_floor_a_seed_calibrates_keeps_its_measured_figures(repo):
    """The gate above runs under MiniLM's shipped floor (0.30); `jgm seed` calibrates one on this repository's
    40 records (0.37), and that is what a user gets. Measured there (bench/README.md): recall@5 0.876, free
    tasks complete 0.636, below issue 34's 0.75 (concerns whose record scores under 0.37). This holds the
    default path to those figures: no leak, nothing for the unanswerable tasks, no loss."""
    _seed_task_repo(repo, calibrate=True)
    rc = Recaller(repo.path)
    try:
        assert rc.floor_info().source == "calibrated", rc.floor_info().provenance
        report = run_task_eval(rc, load_tasks(EVAL / "tasks.yaml"), k=5)
    finally:
        rc.close()
    assert report["leaks"] == 0 and report["unanswerable_mean_results"] == 0.0, report["per_task"]
    assert report["recall_at_k"] >= 0.87 and report["free_complete"] >= 0.63, (
        report["recall_at_k"],
        report["free_complete"],
    )


def test_the_held_out_task_set_is_valid_and_holds_what_it_measured_once(repo):
    """tests/eval/tasks_heldout.yaml was written after the gate above and run once, never tuned on: 14 free
    goals in phrasings the first sets lack, 3 with nothing to find. Under the floor `jgm seed` leaves (0.37)
    it measured recall@5 0.667 and free complete 0.429 (6 of 14; bench/README.md), far under tasks.yaml's
    0.876 / 0.636: the English free-phrasing figure does not carry over. Held one record / one task below."""
    from jupiter_git_memory.records.kinds import DEFAULT_STATUSES

    _seed_task_repo(repo, calibrate=True)
    tasks = load_tasks(EVAL / "tasks_heldout.yaml")
    assert sum(t.kind == "free" and len(t.expect) >= 2 for t in tasks) >= 12
    assert sum(t.kind == "unanswerable" for t in tasks) >= 3
    rc = Recaller(repo.path)
    try:
        status = {rid: row.effective_status for rid, row in rc.index().catalog.records().items()}
        report = run_task_eval(rc, tasks, k=5)
    finally:
        rc.close()
    for t in tasks:  # every expected record is what default recall returns, every forbidden one is not
        assert all(status[rid] in DEFAULT_STATUSES for rid in t.expect), t.id
        assert all(status[rid] not in DEFAULT_STATUSES for rid in t.forbid), t.id
    assert report["leaks"] == 0 and report["unanswerable_mean_results"] == 0.0, report["per_task"]
    assert report["recall_at_k"] >= 0.63 and report["free_complete"] >= 0.35, (
        report["recall_at_k"],
        report["free_complete"],
    )
