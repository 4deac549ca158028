"""Forwarding from retired records (knowledge/decisions/dec-forward-from-retired.md).

A question can match a retired record better than the record that replaced it: "which database do we use?"
is closer to the superseded "Use PostgreSQL" than to the accepted "Use managed PostgreSQL on RDS", which may
even fall under the floor. Default recall never returns the retired record, and without forwarding it
returned nothing at all. So when a retired record (superseded, or a false fact that a correcting fact
supersedes) passes the floor, and its in-force replacement was not admitted by itself, the replacement is
returned in its place, its `why` saying which record led there (`via: ADR-0003, superseded`).

The rules, said once here:
- Sources: records whose effective status is in FORWARD_FROM and not among the asked statuses (asking for
  superseded records returns them as they are). They must pass the same admission as any record (floor, and
  in hybrid mode the corroboration band and the lexical gate below the floor) under the asked kinds.
- Replacements: follow the in-force superseders (both sides of the link) to the records nothing retires; a
  chain A → B → C reaches C, a cycle stops, MAX_DEPTH bounds it. A replacement must be in the view, have an
  asked status (in force, as the answer's filters say) and an asked kind; otherwise nothing is forwarded.
- Score: `relevance(source) × HOP_FACTOR ** steps × weight(replacement)`, where relevance(source) is the
  retired record's relevance under the contract (its cosine against the floor and, in hybrid mode, its bm25
  against the best of the in-force pool's: retrieval._forward). So a forwarded record never scores above what
  the retired record itself would with the replacement's weight, and a direct match of equal relevance ranks
  above it.
- A replacement admitted by itself keeps its own score and is not marked; the retired record never appears.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..lifecycle.resolve import retires
from ..records.kinds import INVALIDATED, SUPERSEDED
from .ranking import Hit, weight
from .replacements import MAX_DEPTH, superseders

FORWARD_FROM = (SUPERSEDED, INVALIDATED)  # effective statuses a recall can forward from
HOP_FACTOR = 0.8  # each supersede step between the matched record and what is returned


@dataclass(frozen=True)
class Route:
    """A replacement reached from a retired record: the path, the retired record first, the replacement last."""

    path: tuple[str, ...]

    @property
    def target(self) -> str:
        return self.path[-1]

    @property
    def steps(self) -> int:
        return len(self.path) - 1


def routes(start: str, successors: Callable[[str], Iterable[str]], max_depth: int = MAX_DEPTH) -> list[Route]:
    """The records nothing retires, reached from `start` through `successors` (the in-force records retiring
    a record), each with its shortest path; [] when nothing retires `start`. A record seen before is not
    followed again (a cycle ends there), and no path is longer than `max_depth` steps."""
    known: dict[str, list[str]] = {}

    def succ(rid: str) -> list[str]:
        if rid not in known:
            known[rid] = sorted(set(successors(rid)))
        return known[rid]

    out: dict[str, Route] = {}
    seen = {start}
    frontier: list[tuple[str, ...]] = [(start,)]
    for _ in range(max_depth):
        nxt: list[tuple[str, ...]] = []
        for path in frontier:
            for s in succ(path[-1]):
                if s in seen:
                    continue
                seen.add(s)
                step = (*path, s)
                if succ(s):
                    nxt.append(step)
                else:
                    out.setdefault(s, Route(step))
        if not nxt:
            break
        frontier = nxt
    return sorted(out.values(), key=lambda r: (r.steps, r.target))


@dataclass(frozen=True)
class Forward:
    """A replacement to return for a retired record that matched: which one, how, and its relevance."""

    target: str
    source: Hit
    route: Route
    relevance: float


def forwards(
    sources: list[Hit],
    routes_of: Callable[[str], list[Route]],
    eligible: Callable[[str], bool],
    admitted: set[str],
    factor: float = HOP_FACTOR,
) -> list[Forward]:
    """Pure: the replacements to return for the admitted retired hits `sources` (their `relevance` set by
    `rank`). A target must be `eligible` (in the view, an asked status and kind) and not `admitted` by itself;
    a target reached from several sources keeps the best relevance (ties: the fewest steps, then the id)."""
    best: dict[str, Forward] = {}
    for h in sources:
        for r in routes_of(h.record_id):
            t = r.target
            if t in admitted or t == h.record_id or not eligible(t):
                continue
            f = Forward(t, h, r, h.relevance * factor**r.steps)
            old = best.get(t)
            if old is None or (-f.relevance, f.route.steps, f.source.record_id) < (
                -old.relevance,
                old.route.steps,
                old.source.record_id,
            ):
                best[t] = f
    return sorted(best.values(), key=lambda f: (-f.relevance, f.target))


def why_forwarded(f: Forward, own_cos: float | None, w: float) -> dict[str, Any]:
    """The `why` of a forwarded result: the retired record that led there, the path, and the figures."""
    src = f.source
    return {
        "via": f"{src.record_id}, {src.status}",
        "via_cos": round(src.cos, 4),
        "via_path": list(f.route.path),
        "admitted": "forwarded",
        "cos": None if own_cos is None else round(own_cos, 4),
        "relevance": round(f.relevance, 4),
        "weight": w,
        "rule": f"relevance of {src.record_id} × {HOP_FACTOR:g} per supersede step ({f.route.steps})",
    }


def forwarded_hits(
    catalog: Any,
    vectors: Any,
    allowed: dict[str, tuple[str, str, str]],
    qvec: np.ndarray,
    sources: list[Hit],
    found: list[Hit],
    statuses: list[str],
    kinds: list[str] | None,
    weights: dict[str, dict[str, float]],
    drift: dict[str, float],
    similarity: Callable[[float], float] = float,
) -> list[Hit]:
    """Hits for the replacements of the admitted retired `sources`, scored by the rule above; `found` is every
    in-force hit of the same search (those admitted by themselves are not forwarded to; a cut one lends its
    best chunk and cosine)."""
    if not sources:
        return []
    rows: dict[str, Any] = {}

    def row(rid: str) -> Any:
        if rid not in rows:
            rows.update(catalog.records_by_ids([rid]) or {rid: None})
        return rows.get(rid)

    def successors(rid: str) -> list[str]:
        r = row(rid)
        if r is None:
            return []
        return [s.id for s, _ in superseders(catalog, r).values() if s is not None and retires(s.declared_status)]

    def eligible(rid: str) -> bool:
        r = row(rid)
        return r is not None and r.effective_status in statuses and (not kinds or r.kind in kinds)

    def chunks_of(rid: str) -> list[str]:
        """The view's chunks of `rid`: its versions' chunks that the view map gives to it (the catalog's `chunks`
        view filtered by record read every record of the view, ~0.7 s at 100,000 chunks)."""
        return [c for c in catalog.version_chunk_ids(rid) if (got := allowed.get(c)) is not None and got[0] == rid]

    admitted = {h.record_id for h in found if h.cut is None}
    own = {h.record_id: h for h in found}
    out: list[Hit] = []
    for f in forwards(sources, lambda rid: routes(rid, successors), eligible, admitted):
        r = row(f.target)
        chunk, cos = _best_chunk(chunks_of(f.target), vectors, qvec, own.get(f.target), similarity)
        if chunk is None:  # no chunk in this view: not in the view, never returned
            continue
        w = weight(weights, r.kind, r.effective_status) * drift.get(f.target, 1.0)
        h = Hit(f.target, r.kind, r.effective_status, cos if cos is not None else 0.0, chunk)
        h.relevance, h.weight, h.score = f.relevance, w, f.relevance * w
        h.why = why_forwarded(f, cos, w)
        out.append(h)
    return out


def _best_chunk(
    cids: list[str],
    vectors: Any,
    qvec: np.ndarray,
    hit: Hit | None,
    similarity: Callable[[float], float] = float,
) -> tuple[str | None, float | None]:
    """(chunk id, cosine) of a record's best chunk in the view (`cids`: its chunks there) for the query (its
    own hit's when it has one)."""
    if hit is not None:
        return hit.chunk_id, hit.cos
    if not cids:
        return None, None
    got = vectors.vectors(cids)
    scored = sorted(((similarity(float(got[c] @ qvec)), c) for c in cids if c in got), reverse=True)
    return (scored[0][1], scored[0][0]) if scored else (sorted(cids)[0], None)
