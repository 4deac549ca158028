"""Resolve the effective status of every record and the knowledge base's structural errors.

Pure: records in, statuses and issues out. Rules (the memory contract's lifecycle half):
- a record is *superseded* when a record whose declared status is in force (accepted, or verified for
  facts/findings) supersedes it; the link may be written on either side. A proposed superseder retires
  nothing. A record declared `superseded` stays superseded.
- a fact or finding declared `false` is *invalidated*: indexed for explicit queries, never recalled by default.
- `amends`/`amended_by` (e.g. "Partly superseded by") are shown by relations and never retire anything.
- dangling links are warnings; every record on a supersede cycle is an error; every file claiming a
  duplicated id is an error, except ADR files sharing a number: those get distinct ids, with a warning
  (records.links.distinct_numbers).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from ..records.kinds import IN_FORCE, effective_status
from ..records.links import distinct_numbers, resolve_links
from ..records.model import LINK_KEYS, Issue, Record


@dataclass
class Resolution:
    records: dict[str, Record]  # valid records by id (errors removed)
    effective: dict[str, str]  # id -> effective status
    superseded_by: dict[str, list[str]]  # id -> in-force records that retire it
    issues: list[Issue] = field(default_factory=list)
    rejected_paths: set[str] = field(default_factory=set)  # files that are errors after resolution


def retires(declared_status: str) -> bool:
    """Only an in-force record retires what it supersedes: a proposed or rejected successor does not, so
    the record it names stays in force until the successor is accepted (dec-supersede-needs-in-force).
    Every place that decides or explains supersession asks this."""
    return declared_status in IN_FORCE


def _edges(records: dict[str, Record]) -> dict[str, set[str]]:
    """new -> {old}: the supersede graph, with links from both sides merged."""
    edges: dict[str, set[str]] = defaultdict(set)
    for r in records.values():
        for old in r.supersedes:
            edges[r.id].add(old)
        for new in r.superseded_by:
            edges[new].add(r.id)
    return edges


def _cycle_members(edges: dict[str, set[str]], known: set[str]) -> set[str]:
    """Nodes on a cycle (Tarjan SCC, iterative so long chains cannot overflow the stack)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: set[str] = set()
    counter = 0
    for root in sorted(known):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, set()) & known)))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, set()) & known))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1 or node in edges.get(node, ()):
                    out.update(comp)
    return out


def resolve(records: list[Record]) -> Resolution:
    """Resolve a whole knowledge base. Duplicate ids and cycle members are dropped with errors."""
    records, issues, shared = distinct_numbers(records)  # `0003-a.md` and `0003-b.md`: ADR-0003-a, ADR-0003-b
    records = resolve_links(records)  # `ADR-2`, `0002-x.md`, slugs -> the ids records really have
    by_id: dict[str, list[Record]] = defaultdict(list)
    for r in records:
        by_id[r.id].append(r)
    valid: dict[str, Record] = {}
    rejected: set[str] = set()
    for rid, group in by_id.items():
        if len(group) == 1:
            valid[rid] = group[0]
            continue
        paths = sorted(g.path for g in group)
        shown = ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
        for g in group:
            rejected.add(g.path)
            issues.append(
                Issue(
                    g.path,
                    f"duplicate id {rid!r}, also claimed by {shown}",
                    "give each record a unique `id`",
                    line=g.lines.get("id"),
                    record_id=rid,
                )
            )

    edges = _edges(valid)
    for r in valid.values():
        for key in LINK_KEYS:
            for t in getattr(r, key):
                if t not in valid and t not in by_id:
                    twins = shared.get(t)
                    issues.append(
                        Issue(
                            r.path,
                            f"`{key}` points to {t!r}, a number {len(twins)} files share ({', '.join(sorted(twins))})"
                            if twins
                            else f"`{key}` points to unknown id {t!r}",
                            "link the file itself, or write its full id" if twins else "fix the id or remove the link",
                            severity="warning",
                            line=r.lines.get(key) or r.lines.get("status"),
                            record_id=r.id,
                        )
                    )
    cyclic = _cycle_members(edges, set(valid))
    for rid in sorted(cyclic):
        r = valid.pop(rid)
        rejected.add(r.path)
        issues.append(
            Issue(
                r.path,
                f"record {rid!r} is on a supersede cycle",
                "break the cycle: a record cannot (indirectly) supersede itself",
                line=r.lines.get("supersedes") or r.lines.get("superseded_by"),
                record_id=rid,
            )
        )

    retired_by: dict[str, list[str]] = defaultdict(list)
    for new, olds in edges.items():
        sup = valid.get(new)
        if sup is None or not retires(sup.status):
            continue
        for old in olds:
            if old in valid:
                retired_by[old].append(new)
    effective: dict[str, str] = {}
    for rid, r in valid.items():
        effective[rid] = effective_status(r.kind, r.status, bool(retired_by.get(rid)))
    return Resolution(valid, effective, {k: sorted(v) for k, v in retired_by.items()}, issues, rejected)
