"""What to read instead of a retired record: the in-force record(s) that replace it, whichever side the
supersede link is written on (`supersedes` on the newer record, `superseded_by` on the older one).

Shared by every answer that can carry a retired record: recall (`--status superseded`), task recall, the
record reads (get, list) and relations. Finding who links to a record means reading every record's links;
those change only when the catalog does, so the link index is built once per catalog generation and view.
"""

from __future__ import annotations

import json
import threading
import weakref
from typing import Any

from ..index.catalog import Catalog
from ..lifecycle.resolve import retires
from ..records.kinds import RETIRED as RETIRED  # effective statuses that mean "read another record"
from ..records.row import RecordRow

MAX_DEPTH = 32

_link_cache: weakref.WeakKeyDictionary[Catalog, dict[str, tuple[Any, dict[str, list[str]]]]] = (
    weakref.WeakKeyDictionary()
)
_link_lock = threading.Lock()


def link_index(cat: Catalog, field: str) -> dict[str, list[str]]:
    """value -> ids of the records whose list `field` (supersedes, tags, ...) holds it, built once per
    catalog generation (a full read of every record's JSON costs ~100 ms at 10k records)."""
    gen = (cat.generation(), getattr(cat, "view", None))  # a catalog reading through another view sees other links
    with _link_lock:
        hit = _link_cache.get(cat, {}).get(field)
        if hit and hit[0] == gen:
            return hit[1]
    index: dict[str, list[str]] = {}
    for rid, links in cat.list_field_links(field):
        for target in json.loads(links):
            if isinstance(target, str):
                index.setdefault(target, []).append(rid)
    with _link_lock:
        _link_cache.setdefault(cat, {})[field] = (gen, index)
    return index


def linked(cat: Catalog, field: str, rid: str) -> dict[str, RecordRow]:
    """Records whose `field` list (e.g. supersedes) names `rid`."""
    return cat.records_by_ids(link_index(cat, field).get(rid, []))


def superseders(cat: Catalog, row: RecordRow) -> dict[str, tuple[RecordRow | None, str]]:
    """id -> (row, which side declares the link) of records claiming to supersede `row`."""
    out: dict[str, tuple[RecordRow | None, str]] = {}
    for sid, srow in linked(cat, "supersedes", row.id).items():
        out[sid] = (srow, sid)
    declared = [s for s in row.data.get("superseded_by") or [] if s not in out]
    found = cat.records_by_ids(declared)
    for sid in declared:
        out[sid] = (found.get(sid), row.id)
    return out


def current(cat: Catalog, row: RecordRow, max_depth: int = MAX_DEPTH) -> list[str]:
    """Follow in-force superseders to the records nothing retires: what to read now (itself when nothing does)."""
    out: list[str] = []
    frontier, seen = [row], {row.id}
    for _ in range(max_depth):
        nxt = []
        for r in frontier:
            retiring = [s for s, _ in superseders(cat, r).values() if s is not None and retires(s.declared_status)]
            if not retiring and r.id not in out:
                out.append(r.id)
            for s in retiring:
                if s.id not in seen:
                    seen.add(s.id)
                    nxt.append(s)
        if not nxt:
            break
        frontier = nxt
    return sorted(out)


def read_instead(cat: Catalog, row: RecordRow) -> list[dict[str, Any]]:
    """The in-force records replacing `row` (id, title, kind, status, path); [] when it is not retired."""
    if row.effective_status not in RETIRED:
        return []
    ids = [i for i in current(cat, row) if i != row.id]
    promoted = row.data.get("promoted_to") if row.origin == "candidate" else None
    if isinstance(promoted, str) and promoted not in ids:
        ids.append(promoted)  # a merged candidate: its file record is what to read
    rows = cat.records_by_ids(ids)
    return [
        {"id": i, "title": r.title, "kind": r.kind, "status": r.effective_status, "path": r.path}
        for i in ids
        if (r := rows.get(i)) is not None
    ]


def superseded_by_ids(cat: Catalog, row: RecordRow) -> list[str]:
    """Every record that claims to supersede `row`, from both sides of the link, sorted."""
    return sorted(superseders(cat, row))
