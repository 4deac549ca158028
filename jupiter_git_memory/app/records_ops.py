"""Record reads shared by the HTTP API, the MCP server and `jgm relations`: get, list (filtered, paged), relations.

Transport-agnostic on purpose: both surfaces must answer the same question the same way, and map
`OperationError(code, ...)` to their own error shape (HTTP status + JSON code, or an MCP tool error).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..base import error_codes as E
from ..base.errors import JgmError, OperationError
from ..base.store import workspace_dir, workspace_lock
from ..git.workspace import Workspace, find_workspace
from ..index.catalog import Catalog
from ..index.views import worktree_view
from ..lifecycle.resolve import retires
from ..recall.replacements import current, link_index, linked, read_instead, superseded_by_ids, superseders
from ..recall.results import EVIDENCE_NOTE  # noqa: F401 - the record reads' note
from ..recall.service import NotSeeded
from ..records.checks import check_id
from ..records.lexical import fts_terms  # the recall question's terms: Latin words, folded CJK bigrams
from ..records.model import ALL_EFFECTIVE, KINDS
from ..records.row import RecordRow
from .limits import MAX_OFFSET, MAX_PAGE

# Summary fields of a listed record (the body stays out of listings; get_record returns it).
SUMMARY_KEYS = (
    "id",
    "kind",
    "status",
    "declared_status",
    "title",
    "path",
    "tags",
    "date",
    "source",
    "citations",
    "scope",
    "commit",
    "dirty",
    "origin",
    "supersedes",
    "superseded_by",
    "amends",
    "amended_by",
    "content_hash",
)


def summary(row: RecordRow, cat: Catalog | None = None) -> dict[str, Any]:
    pub = row.public()
    out = {k: pub.get(k) for k in SUMMARY_KEYS}
    if row.error:
        out["stale_error"] = row.error
    if cat is not None:
        _with_replacements(cat, row, out)
    return out


def _with_replacements(cat: Catalog, row: RecordRow, out: dict[str, Any]) -> dict[str, Any]:
    """Links from both sides: `superseded_by` lists every record claiming to supersede it (also when the link
    is written on the newer record), `current` what is in force now, `read_instead` the replacements."""
    out["superseded_by"] = superseded_by_ids(cat, row)
    out["current"] = current(cat, row)
    out["read_instead"] = read_instead(cat, row)
    return out


def missing(cat: Catalog, rid: str, workspace: str, hint: str = "") -> JgmError:
    """The error for an id the catalog does not hold: `memory/not-found` only in a workspace that was seeded;
    before its first seed the record may well exist in the repository (dec-not-seeded-is-not-no-match)."""
    if cat.get_meta("last_seed_at"):
        return OperationError(E.MEMORY_NOT_FOUND, f"no record {rid!r} in workspace {workspace}{hint}")
    store = cat.path.parent.parent.parent  # <store>/workspaces/<id>/catalog.sqlite
    return NotSeeded(
        f"workspace {workspace} has never been seeded in store {store}, so it cannot say whether {rid!r} exists: "
        f"run `jgm seed` in its repository (with --home {store} unless that store is the one in use)"
    )


@contextlib.contextmanager
def worktree_catalog(repo: Path | str | None) -> Iterator[tuple[Workspace, Catalog]]:
    """The catalog of `repo`'s workspace through its worktree's view, under the shared lock, with no model
    loaded (`jgm relations`); a workspace never seeded is `memory/not-seeded` (exit 4)."""
    ws = find_workspace(repo)
    wsdir = workspace_dir(ws.id, create=False)
    if not (wsdir / "catalog.sqlite").exists():
        raise OperationError(E.MEMORY_NOT_SEEDED, f"workspace {ws.id} has no index yet: run `jgm seed`", exit_code=4)
    with workspace_lock(wsdir, exclusive=False):
        cat = Catalog(wsdir / "catalog.sqlite", worktree_view(ws.repo_root))
        try:
            yield ws, cat
        finally:
            cat.close()


def get_record(cat: Catalog, rid: str, workspace: str) -> dict[str, Any]:
    row = cat.record(check_id(rid))
    if row is None:
        raise missing(cat, rid, workspace, "; list_records shows the ids that exist")
    return _with_replacements(cat, row, row.public())


def list_records(
    cat: Catalog,
    kind: str | None = None,
    status: str | None = None,
    tag: str | None = None,
    origin: str | None = None,
    limit: int = 50,
    offset: int = 0,
    text: str | None = None,
) -> dict[str, Any]:
    """Records ordered by id; `status` filters on the *effective* status (what recall sees); `text` keeps
    records whose title or body holds all its words (FTS5), or whose id it is."""
    if kind is not None and kind not in KINDS:
        raise OperationError(E.REQUEST_BAD_FILTER, f"unknown kind {kind!r}; use one of {', '.join(KINDS)}")
    if status is not None and status not in ALL_EFFECTIVE:
        raise OperationError(E.REQUEST_BAD_FILTER, f"unknown status {status!r}; use one of {', '.join(ALL_EFFECTIVE)}")
    if not 1 <= limit <= MAX_PAGE or not 0 <= offset <= MAX_OFFSET:
        raise OperationError(E.REQUEST_BAD_PAGE, f"limit must be 1..{MAX_PAGE} and offset 0..{MAX_OFFSET}")
    text = text.strip() if text else None
    total, rows = cat.find_records(
        limit,
        offset,
        kind=kind,
        effective=status,
        origin=origin,
        ids=link_index(cat, "tags").get(tag, []) if tag else None,  # the per-generation index, not a full read
        text=text,
        terms=fts_terms(text) if text else None,  # FTS5 indexes titles and bodies; an exact id also matches
    )
    records = [summary(r, cat) for r in rows]
    nxt = offset + len(records)
    return {
        "records": records,
        "total": total,
        "limit": limit,
        "offset": offset,
        "next_offset": nxt if nxt < total else None,
    }


def _linked(cat: Catalog, field: str, rid: str) -> dict[str, RecordRow]:
    return linked(cat, field, rid)


def _named(row: RecordRow, rid: str) -> dict[str, Any]:
    """Who a record is, in every relations answer: the id asked for, title, kind and both statuses."""
    return {
        "id": rid,
        "title": row.title,
        "kind": row.kind,
        "status": row.effective_status,
        "declared_status": row.declared_status,
    }


def _edge(row: RecordRow | None, rid: str, retires: bool, declared_on: str) -> dict[str, Any]:
    if row is None:
        return {"id": rid, "missing": True, "retires": False, "declared_on": declared_on}
    return {
        **_named(row, rid),
        "path": row.path,
        "retires": retires,
        "declared_on": declared_on,
        "missing": False,
    }


def _amend_edges(cat: Catalog, row: RecordRow) -> tuple[list[dict], list[dict]]:
    """(what this record amends, what amends it): links from both sides merged; never retiring."""
    sides = {}
    for forward, backward in (("amends", "amended_by"), ("amended_by", "amends")):
        found: dict[str, tuple[RecordRow | None, str]] = {}
        for oid, orow in _linked(cat, backward, row.id).items():
            found[oid] = (orow, oid)
        declared = [o for o in row.data.get(forward) or [] if o not in found]
        rows = cat.records_by_ids(declared)
        for oid in declared:
            found[oid] = (rows.get(oid), row.id)
        sides[forward] = [_edge(o, oid, False, side) for oid, (o, side) in sorted(found.items())]
    return sides["amends"], sides["amended_by"]


def relations(cat: Catalog, rid: str, workspace: str, max_depth: int = 32) -> dict[str, Any]:
    """The supersede graph around a record: what it supersedes, what supersedes it (whether that link
    actually retires it: only an in-force superseder does), and the in-force record(s) that replace it now."""
    row = cat.record(check_id(rid))
    if row is None:
        raise missing(cat, rid, workspace)
    olds: dict[str, tuple[RecordRow | None, str]] = {}
    for oid, orow in _linked(cat, "superseded_by", rid).items():
        olds[oid] = (orow, oid)
    declared = [o for o in row.data.get("supersedes") or [] if o not in olds]
    found = cat.records_by_ids(declared)
    for oid in declared:
        olds[oid] = (found.get(oid), rid)
    in_force = retires(row.declared_status)
    supersedes = [_edge(o, oid, in_force and o is not None, side) for oid, (o, side) in sorted(olds.items())]
    sups = superseders(cat, row)
    superseded_by = [
        _edge(s, sid, s is not None and retires(s.declared_status), side) for sid, (s, side) in sorted(sups.items())
    ]
    now = current(cat, row)
    amends, amended_by = _amend_edges(cat, row)
    return {
        **_named(row, rid),
        "supersedes": supersedes,
        "superseded_by": superseded_by,
        "amends": amends,
        "amended_by": amended_by,
        "current": now,
        "read_instead": read_instead(cat, row),
        "note": "`retires` is true when the superseding record is in force (accepted/verified); "
        "`current` lists the in-force records that replace this one (itself when nothing does); "
        '`amends`/`amended_by` (e.g. "Partly superseded by") never retire a record.',
    }
