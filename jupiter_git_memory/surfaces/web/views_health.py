"""Workspace health: last seeded commit, dirty flag, counts by kind and status, the floor and its source,
and `jgm doctor`'s summary.

Why the doctor runs in a child process, in the background: it reads every record file and all of
Chroma (seconds on a large workspace, far over a page's budget), and it resets Chroma clients, which a
long-lived server must not do to its own. The page shows the last summary and when it was taken; a
new run starts when the catalog generation moved past it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse

from ...app.workspace_handle import WorkspaceHandle
from ...base.home import store_env
from ...base.store import store_path
from ...git.runner import child_env
from .inspect import floor_info
from .pages import page, require_workspace, state_of

router = APIRouter()
Handle = Annotated[WorkspaceHandle, Depends(require_workspace)]
DOCTOR_TIMEOUT = 600
_lock = threading.Lock()


def _run_doctor(entry: dict, root: str, home: str) -> None:
    env = child_env(store_env(home))  # the server's store, said explicitly; its git calls never prompt
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "jupiter_git_memory", "doctor", "--repo", root, "--json"],
            capture_output=True,
            text=True,
            timeout=DOCTOR_TIMEOUT,
            env=env,
        )
        data = json.loads(proc.stdout or "{}")
        entry.update(status="done", result=data, error=None if data else (proc.stderr.strip()[-500:] or "no output"))
    except (OSError, subprocess.TimeoutExpired, json.JSONDecodeError) as e:
        entry.update(status="failed", error=f"{e.__class__.__name__}: {e}")
    entry["finished"] = time.time()


def doctor_summary(request: Request, handle: WorkspaceHandle, generation: int) -> dict:
    """The latest doctor summary for the workspace; starts a run when there is none for this generation."""
    state = state_of(request)
    cache = state.extra.setdefault("web_doctor", {})
    with _lock:
        entry = cache.get(handle.id)
        if entry is None or (entry["generation"] != generation and entry["status"] != "running"):
            entry = {
                "generation": generation,
                "status": "running",
                "started": time.time(),
                "result": None,
                "previous": (entry or {}).get("result"),
            }
            cache[handle.id] = entry
            home = str(state.store_root or store_path())
            threading.Thread(
                target=_run_doctor,
                args=(entry, str(handle.workspace.repo_root), home),
                daemon=True,
                name=f"jgm-ui-doctor-{handle.id}",
            ).start()
        return dict(entry)


@router.get("/health/doctor", response_class=HTMLResponse)
def doctor_fragment(request: Request, handle: Handle):
    """The doctor panel alone: the health page's script swaps it in while a run is going (no reload)."""
    with handle.catalog() as cat:
        generation = cat.generation()
    return page(request, "_doctor.html", ws=handle.id, doctor=doctor_summary(request, handle, generation))


@router.get("/health", response_class=HTMLResponse)
def health(request: Request, handle: Handle):
    cache = state_of(request).extra.setdefault("web_counts", {})
    with handle.catalog() as cat:
        meta = cat.meta_items()
        receipts = cat.receipt_count()
        generation = cat.generation()
        key = (generation, getattr(cat, "view", None))
        if cache.get(handle.id, (None,))[0] != key:  # two full scans; the counts change only with the generation
            cache[handle.id] = (key, (cat.counts_by_kind(), cat.counts_by_candidate_state()))
        counts, states = cache[handle.id][1]
    with handle.reading() as recaller:
        floor = floor_info(recaller)
        model = recaller.embedder.spec.name
    by_kind: dict[str, dict[str, int]] = {}
    for kind, eff, n in counts:
        by_kind.setdefault(kind, {})[eff] = n
    statuses = sorted({eff for _, eff, _ in counts})
    return page(
        request,
        "health.html",
        ws=handle.id,
        handle=handle,
        meta=meta,
        by_kind=by_kind,
        statuses=statuses,
        states=[(s or "?", n) for s, n in states],
        receipts=receipts,
        floor=floor,
        model=model,
        doctor=doctor_summary(request, handle, generation),
        generation=generation,
    )
