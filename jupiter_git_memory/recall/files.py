"""Files → records: the in-force records that govern a file the task touches, and why.

A record governs a file when one of its citations (`source:`, `evidence:`) is that file, a folder above it
or a glob that covers it, or when its body names the file or a folder above it. Only records whose
effective status the task asked for take part (the default filters: no superseded, false, rejected or
proposed record governs anything). The citations come from each record version's parsed data in the
catalog (`contents`, per id and content hash), read once per view and catalog generation.
"""

from __future__ import annotations

import threading

from ..base.store import workspace_lock
from ..index.failures import index_failures
from ..records.citations import body_paths, citations_of, classify, governs, normalize_path
from .evidence_state import attach
from .ranking import weight
from .replacements import RETIRED, read_instead
from .results import as_result
from .service import Recaller, RecallError

# how specifically a match governs a file: an exact citation beats a glob, a glob a folder, a citation the body
SPECIFICITY = {"exact": 4.0, "glob": 3.0, "folder": 2.0, "body-exact": 1.5, "body-folder": 1.0}
_CACHE: dict[tuple[str, str | None, int], list[tuple[str, str, str, list[str], list[str]]]] = {}
_CACHE_LOCK = threading.Lock()


def task_files(files) -> list[str]:
    """Repository-relative files in one spelling (`./a//b` and `a\\b` are `a/b`), each once. What a user or
    an agent typed is read by app/paths.py first (from their folder, or absolute); an absolute path reaching
    this layer would be matched as the wrong file, so it is refused."""
    out = []
    for f in files:
        if str(f).startswith("/"):
            raise ValueError(f"{f}: task files are repository-relative here (app/paths.py reads absolute paths)")
        rel = normalize_path(str(f))
        if rel and rel not in out:
            out.append(rel)
    return out


def _citation_index(catalog) -> list[tuple[str, str, str, list[str], list[str]]]:
    """(id, kind, effective status, citations, paths named in the body) of every record of the view."""
    key = (str(catalog.path), catalog.view, catalog.generation())
    with _CACHE_LOCK:
        hit = _CACHE.get(key)
    if hit is not None:
        return hit
    rows = [
        (r.id, r.kind, r.effective_status, citations_of(r.data), body_paths(str(r.data.get("body") or "")))
        for r in catalog.records().values()
    ]
    with _CACHE_LOCK:
        if len(_CACHE) > 16:
            _CACHE.clear()
        _CACHE[key] = rows
    return rows


def _reason(ref: str, how: str) -> str:
    if how.startswith("body"):
        return f"its body names {ref}"
    return f"cites {ref}" + (" (glob)" if classify(ref) == "glob" else "")


def match_files(rows, files: list[str], statuses: list[str], weights: dict) -> list[dict]:
    """Records governing any of `files`, most specific first: [{id, specificity, governs: [{file, reason}]}]."""
    found: dict[str, dict] = {}
    for rid, kind, status, cites, named in rows:
        if status not in statuses:
            continue
        for file in files:
            best: tuple[float, str] | None = None
            for ref in cites:
                how = governs(ref, file)
                if how and (best is None or SPECIFICITY[how] > best[0]):
                    best = (SPECIFICITY[how], _reason(ref, how))
            for ref in named if best is None else []:
                how = governs(ref, file)
                if how in ("exact", "folder"):
                    s = SPECIFICITY[f"body-{how}"]
                    if best is None or s > best[0]:
                        best = (s, _reason(ref, "body"))
            if best is None:
                continue
            entry = found.setdefault(rid, {"id": rid, "specificity": 0.0, "governs": [], "weight": 1.0})
            entry["specificity"] = max(entry["specificity"], best[0])
            entry["weight"] = weight(weights, kind, status)
            entry["governs"].append({"file": file, "reason": best[1]})
    return sorted(found.values(), key=lambda e: (-e["specificity"], -len(e["governs"]), -e["weight"], e["id"]))


def governing(
    recaller: Recaller, files: list[str], statuses: list[str], k: int, at: str | None = None
) -> dict[str, dict]:
    """The best k records of this worktree's view (or the `--at` view) governing `files`, most specific
    first: id -> {governs: [{file, reason}], result: the record as recall shows it}."""
    view, _ = recaller.prepare(at)
    with workspace_lock(recaller.wsdir, exclusive=False), recaller.index().catalog.viewing(view):
        index = recaller.ensure_seeded()
        try:
            matched = match_files(_citation_index(index.catalog), files, statuses, recaller.weights)[:k]
            rows = index.catalog.records_by_ids([m["id"] for m in matched])
            out = {}
            for m in matched:
                row = rows.get(m["id"])
                if row is not None:
                    out[m["id"]] = {"governs": m["governs"], "result": governing_result(row, m["specificity"])}
                    if row.effective_status in RETIRED:  # asked for with --status superseded
                        out[m["id"]]["result"]["read_instead"] = read_instead(index.catalog, row)
            attach(index.catalog, [o["result"] for o in out.values()])  # evidence drift of each
        except index_failures() as e:
            raise RecallError(f"index unavailable: {e}") from e
    return out


def governing_result(row, specificity: float) -> dict:
    """A governing record in the shape of a recall result (its score is how specifically it governs)."""
    return as_result(row, str(row.data.get("body") or ""), specificity, {})
