"""The task-recall eval: tasks (goal + files + errors) with the records they must find in the top k and the
retired ones that must never come back. Reports recall@k over expected records, how many multi-concern
tasks come back complete (goals written as lists of clauses, `multi`, and goals written freely, `free`), leaks,
and the mean number of results of tasks nothing answers.

Why a set of its own beside `jgm eval`: task recall is asked differently (files, errors, several concerns),
and its failures are different (a file's governing record missed, one concern of three dropped)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .service import Recaller
from .task import recall_task

KINDS = ("paraphrase", "files", "multi", "free", "error", "unanswerable")


@dataclass
class Task:
    id: str
    kind: str
    goal: str
    files: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    expect: list[str] = field(default_factory=list)
    forbid: list[str] = field(default_factory=list)
    statuses: list[str] | None = None


def load_tasks(path: Path) -> list[Task]:
    """Read a tasks file; a bad entry is an error naming the file, the task and what to write."""
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    always = [str(x) for x in data.get("forbid_always") or []]
    out: list[Task] = []
    for n, t in enumerate(data.get("tasks") or [], start=1):
        if not isinstance(t, dict) or not str(t.get("goal") or "").strip() or "expect" not in t:
            raise ValueError(f"{path}: task #{n} needs `goal` and `expect` (a list of ids, [] for no answer)")
        kind = str(t.get("kind") or ("unanswerable" if not t["expect"] else "paraphrase"))
        if kind not in KINDS:
            raise ValueError(f"{path}: task {t.get('id', n)}: kind {kind!r} is not one of {', '.join(KINDS)}")
        out.append(
            Task(
                str(t.get("id") or f"t{n}"),
                kind,
                str(t["goal"]),
                [str(f) for f in t.get("files") or []],
                [str(e) for e in t.get("errors") or []],
                [str(x) for x in t.get("expect") or []],
                always + [str(x) for x in t.get("forbid") or []],
                [str(s) for s in t["statuses"]] if t.get("statuses") else None,
            )
        )
    return out


def run_task_eval(recaller: Recaller, tasks: list[Task], k: int = 5, split: bool = True) -> dict[str, Any]:
    """Ask every task (no receipts stored) and score it; `split=False` asks the goal as one query."""
    rows = []
    for t in tasks:
        t0 = time.perf_counter()
        res = recall_task(recaller, t.goal, t.errors, t.files, k=k, statuses=t.statuses, store=False, split=split)
        ms = (time.perf_counter() - t0) * 1000
        if res["status"] not in ("ok", "no-matches"):
            raise RuntimeError(f"task {t.id}: recall answered {res['status']}: {res.get('message') or res['warnings']}")
        ids = [r["id"] for r in res["results"]]
        found = [x for x in t.expect if x in ids]
        rows.append(
            {
                "id": t.id,
                "kind": t.kind,
                "ids": ids,
                "expected": t.expect,
                "missed": [x for x in t.expect if x not in ids],
                "found": len(found),
                "complete": len(found) == len(t.expect),
                "leaks": [x for x in ids if x in t.forbid],
                "ms": round(ms, 1),
            }
        )
    answerable = [r for r in rows if r["expected"]]
    expected = sum(len(r["expected"]) for r in answerable)
    multi = [r for r in rows if r["kind"] == "multi"]
    free = [r for r in rows if r["kind"] == "free"]
    empty = [r for r in rows if not r["expected"]]
    per_kind = {}
    for kind in KINDS:
        of = [r for r in rows if r["kind"] == kind and r["expected"]]
        if of:
            per_kind[kind] = round(sum(r["found"] for r in of) / sum(len(r["expected"]) for r in of), 3)
    return {
        "k": k,
        "split": split,
        "tasks": len(rows),
        "recall_at_k": round(sum(r["found"] for r in answerable) / expected, 3) if expected else None,
        "recall_by_kind": per_kind,
        "multi_complete": round(sum(r["complete"] for r in multi) / len(multi), 3) if multi else None,
        "free_complete": round(sum(r["complete"] for r in free) / len(free), 3) if free else None,
        "leaks": sum(len(r["leaks"]) for r in rows),
        "unanswerable_mean_results": round(sum(len(r["ids"]) for r in empty) / len(empty), 3) if empty else None,
        "mean_ms": round(sum(r["ms"] for r in rows) / len(rows), 1) if rows else None,
        "per_task": rows,
    }


# free_complete: multi-concern goals written freely (run-on sentences, "also", "while you are at it"), issue 34
GATES = {"recall_at_k": 0.9, "multi_complete": 0.8, "free_complete": 0.75, "leaks": 0, "unanswerable_mean_results": 1.0}


def gate_problems(report: dict[str, Any], gates: dict[str, float] = GATES) -> list[str]:
    """What the report misses of the issue's thresholds (empty when it passes)."""
    out = []
    if (report["recall_at_k"] or 0) < gates["recall_at_k"]:
        out.append(f"recall@{report['k']} {report['recall_at_k']} < {gates['recall_at_k']}")
    if (report["multi_complete"] or 0) < gates["multi_complete"]:
        out.append(f"multi-concern complete {report['multi_complete']} < {gates['multi_complete']}")
    free_gate = gates.get("free_complete", 0.0)
    if report.get("free_complete") is not None and report["free_complete"] < free_gate:
        out.append(f"free-phrasing multi-concern complete {report['free_complete']} < {free_gate}")
    if report["leaks"] > gates["leaks"]:
        out.append(f"{report['leaks']} forbidden leaks")
    if (report["unanswerable_mean_results"] or 0) > gates["unanswerable_mean_results"]:
        out.append(
            f"unanswerable mean results {report['unanswerable_mean_results']} > {gates['unanswerable_mean_results']}"
        )
    return out
