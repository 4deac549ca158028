"""Task recall: the memories relevant to a goal (plus error signatures and files), from this workspace
and optionally from global ones. A failure is reported as such, never as an empty answer."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

from ..base import error_codes as E
from ..base.errors import JgmError, StoreFull, StoreReadOnly
from ..base.store import store_root as default_store
from ..git.workspace import Workspace
from ..index.catalog import Catalog
from ..index.failures import index_failures
from .concerns import split_concerns
from .files import governing, task_files
from .fusion import fuse
from .ranking import DEFAULT_STATUSES
from .receipts import make_receipt, store_receipt
from .results import EVIDENCE_NOTE
from .service import NotSeeded, Recaller, RecallError, validate_filters

EXIT_CODES = {"ok": 0, "no-matches": 0, "retrieval-failed": 3, "no-workspace": 4, "not-seeded": 5}
# the answer status a failure's error code stands for (NotARepo, NotSeeded, RecallError carry these codes)
STATUS_BY_CODE = {
    E.MEMORY_NO_WORKSPACE.code: "no-workspace",
    E.MEMORY_NOT_SEEDED.code: "not-seeded",
    E.MEMORY_RETRIEVAL_FAILED.code: "retrieval-failed",
    StoreFull.code: "retrieval-failed",  # the store cannot be used: recall did not run
    StoreReadOnly.code: "retrieval-failed",
}


def empty_answer(status: str, message: str) -> dict:
    """An answer that holds nothing because there was nothing to ask (or asking failed), never 'no-matches'."""
    return {
        "status": status,
        "results": [],
        "global_results": [],
        "receipt": None,
        "message": message,
        "warnings": [message],
    }


def task_queries(goal: str, errors=(), concerns=()) -> list[tuple[str, str]]:
    """(label, query): the goal alone, each of its concerns alone, and each error signature with the goal."""
    g = goal.strip()
    qs = [("goal", g)] + [(f"concern: {c}", c) for c in concerns if c.strip()]
    qs += [(f"error: {e.strip()}", f"{g} — error: {e.strip()}") for e in errors if e.strip()]
    return qs


def _fusion_why(ranks: dict[str, int], semantic: dict | None) -> str:
    by = ", ".join(f"{rank} by {label}" for label, rank in ranks.items())
    return f"reciprocal rank fusion of the task's lists: ranked {by}" + (
        "" if semantic else " (no semantic match above the floor: it governs a file)"
    )


def fused_recall(
    recaller: Recaller,
    goal: str,
    errors=(),
    files=(),
    k: int = 5,
    statuses=None,
    split: bool = True,
    fallback: bool | None = None,
) -> tuple[list[dict], list[str], dict, dict]:
    """The task's lists (goal, each concern, each error: semantic, each under its own floor; the records
    governing its files) fused by rank. Returns results, warnings, the index state and the plan (what was
    asked: concerns, queries, files, the lists that fell back to proposed records) for the answer and the
    receipt. `fallback` as for `Recaller.recall` (None: the setting)."""
    statuses = validate_filters(None, list(statuses) if statuses else None)
    concerns = split_concerns(goal) if split else []
    queries = task_queries(goal, errors, concerns)
    rel_files = task_files(files)
    lists: list[tuple[str, list[str]]] = []
    semantic: dict[str, dict] = {}
    warnings: list[str] = []
    state: dict = {}
    fell_back: list[str] = []
    recaller.embed_ahead(q for _, q in queries)  # two at a time, beside the recalls that use them
    for label, q in queries:
        res = recaller.recall(q, k=k, statuses=statuses, store=False, fallback=fallback)
        state = res.receipt["index"]
        if res.fallback:
            fell_back.append(label)
        warnings += [w for w in res.warnings if w not in warnings]
        lists.append((label, [r["id"] for r in res.results]))
        for r in res.results:
            if r["id"] not in semantic or r["score"] > semantic[r["id"]]["score"]:
                semantic[r["id"]] = dict(r, matched_query=q, why=dict(r["why"], query=q, floor=res.floor))
    governed = governing(recaller, rel_files, list(statuses or DEFAULT_STATUSES), k) if rel_files else {}
    if rel_files:
        lists.append(("files", list(governed)))
    fused = fuse(lists, k, {rid: r["score"] for rid, r in semantic.items()})
    results = []
    for f in fused:
        base = semantic.get(f.id) or governed[f.id]["result"]
        sem = semantic.get(f.id)
        why = {
            "fusion": _fusion_why(f.ranks, sem),
            "ranks": f.ranks,
            "semantic_score": sem["score"] if sem else None,
            "semantic": sem["why"] if sem else None,
        }
        out = dict(base, score=f.score, why=why)
        if f.id in governed:
            out["governs"] = governed[f.id]["governs"]
            why["governs"] = governed[f.id]["governs"]
        results.append(out)
    plan = {
        "concerns": concerns,
        "queries": [q for _, q in queries],
        "files": rel_files,
        "lists": [label for label, _ in lists],
        "statuses": list(statuses or DEFAULT_STATUSES),
        "fallback": fell_back,
    }
    return results, warnings, state, plan


def global_workspaces(exclude: str, store_root: Path | None = None) -> list[Workspace]:
    """Workspaces in the store whose settings mark them global."""
    out = []
    base = (store_root or default_store()) / "workspaces"
    for d in sorted(base.glob("*/catalog.sqlite")) if base.is_dir() else []:
        try:
            cat = Catalog(d)
        except (sqlite3.DatabaseError, JgmError):  # corrupt or not migrated yet: doctor and seed name it
            continue
        try:
            if cat.get_meta("global") != "true":
                continue
            info = json.loads(cat.get_meta("workspace") or "{}")
        finally:
            cat.close()
        if info.get("id") and info["id"] != exclude and Path(info.get("root", "")).is_dir():
            out.append(Workspace(info["id"], info.get("name", info["id"]), Path(info["root"]), info.get("key", "")))
    return out


def recall_task(
    recaller: Recaller | None,
    goal: str,
    errors=(),
    files=(),
    k: int = 5,
    include_global: bool = False,
    global_k: int = 3,
    store_root: Path | None = None,
    store: bool = True,
    no_workspace: str = "",
    may_read: Callable[[str], bool] | None = None,
    statuses=None,
    split: bool = True,
) -> dict:
    """`recaller` None means there is no workspace (`no_workspace` says why and what to do). `may_read` (a
    token's grants, on the API and MCP over HTTP) limits the global workspaces searched: a workspace marked
    global is shared with its readers, not with every token. `statuses` replaces the default filters
    (accepted, verified, unverified), e.g. to add `historical` or `proposed`; `split=False` asks the goal
    as one query (the bench measures what the split costs)."""
    if not goal or not goal.strip():
        raise ValueError("--goal is empty: say what the task is")
    statuses = validate_filters(None, list(statuses) if statuses else None)  # a bad status is a usage error
    if recaller is None:
        return empty_answer(
            "no-workspace",
            no_workspace
            or f"not inside a git repository: cd into one or pass --repo PATH (store: {store_root or default_store()})",
        )
    try:
        results, warnings, state, plan = fused_recall(recaller, goal, errors, files, k, statuses, split)
    except NotSeeded as e:
        return dict(empty_answer("not-seeded", str(e)), workspace=recaller.workspace.id)
    except RecallError as e:
        return empty_answer("retrieval-failed", str(e))
    global_results: list[dict] = []
    if include_global:
        for ws in global_workspaces(recaller.workspace.id, store_root or recaller.store_root):
            if may_read is not None and not may_read(ws.id):
                continue
            try:  # another repository's files mean nothing there: its words are asked
                other = Recaller(workspace=ws, store_root=store_root or recaller.store_root)
                got, w, _, _ = fused_recall(other, goal, errors, (), global_k, statuses, split)
                global_results += [dict(r, workspace=ws.id) for r in got]
                other.close()
            except index_failures() as e:  # one broken global workspace must not hide the others
                warnings.append(f"global workspace {ws.id} unavailable: {e}")
        global_results = sorted(global_results, key=lambda r: -r["score"])[:global_k]
    receipt = make_receipt(
        "\n".join(plan["queries"] + [f"file: {f}" for f in plan["files"]]),
        [r["id"] for r in results],
        recaller.workspace.id,
        state,
        {
            "errors": list(errors),
            "files": list(files),
            "include_global": include_global,
            "statuses": plan["statuses"],
            "concerns": plan["concerns"],
        },
        k,
        "task",
    )
    receipt["record_hashes"] = {r["id"]: r["content_hash"] for r in results}
    receipt["request"] = {
        "type": "task",
        "goal": goal,
        "errors": list(errors),
        "files": list(files),
        "statuses": list(statuses) if statuses else None,
    }
    receipt["global_ids"] = [f"{r['workspace']}:{r['id']}" for r in global_results]
    if store:
        store_receipt(recaller.index(), receipt)
    status = "ok" if results or global_results else "no-matches"
    return {
        "status": status,
        "workspace": recaller.workspace.id,
        "results": results,
        "global_results": global_results,
        "concerns": plan["concerns"],
        "files": plan["files"],
        "fusion": {"lists": plan["lists"], "method": "reciprocal rank fusion", "statuses": plan["statuses"]},
        "fallback": plan["fallback"],
        "warnings": warnings,
        "receipt": receipt,
        "note": EVIDENCE_NOTE,
    }
