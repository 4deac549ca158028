"""The memory contract's ranking, as pure functions.

    relevance = clamp((cos - floor) / (1 - floor), 0, 1)
    score     = fused_relevance × weight(kind, effective status)

A record's cosine is its best chunk's. A record at or below the floor is not returned: lexical evidence
re-orders records that passed the floor and does not admit one that did not, so a question the knowledge
base cannot answer stays unanswered however many of its words appear in the records. One exception, where
a calibration measured it (questions in CJK): when no record passed the floor, the lexical gate may admit
the one record above the probes' median with more informative words than any probe reached there
(`gate_pick`, recall/lexical_gate.py).
In hybrid mode a record in the band just above the floor also needs informative lexical corroboration
(IDF-weighted, so one shared common word is not enough). Order uses a record's best chunk blended with
its second best (a record that matches in two places is a safer answer than one lucky chunk).
Measured on four eval sets, three over corpora we did not write: bench/README.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

# The default weights and statuses are the kind registry's (records/kinds.py); re-exported for callers.
from ..records.kinds import CANDIDATE
from ..records.kinds import CANDIDATE_WEIGHT as CANDIDATE_WEIGHT
from ..records.kinds import DEFAULT_STATUSES as DEFAULT_STATUSES
from ..records.kinds import DEFAULT_WEIGHTS as DEFAULT_WEIGHTS

# A question's terms, Latin and CJK, are the lexical module's (one definition for the index and the question).
from ..records.lexical import STOPWORDS as STOPWORDS
from ..records.lexical import fts_terms as fts_terms

MODES = ("hybrid", "dense", "lexical")  # recall modes (check_mode refuses any other)
CORROBORATION_MIN = 1.0  # IDF mass of matched query terms, in units of ln(N+1): a rare term plus another
SECOND_CHUNK_WEIGHT = 0.3  # ordering: (1 - w) * best chunk + w * mean of the two best chunks


def merge_weights(overrides: dict[str, dict[str, float]] | None) -> dict[str, dict[str, float]]:
    w = {k: dict(v) for k, v in DEFAULT_WEIGHTS.items()}
    for kind, statuses in (overrides or {}).items():
        w.setdefault(kind, {}).update(statuses)
    return w


def weight(weights: dict[str, dict[str, float]], kind: str, status: str) -> float:
    if status == CANDIDATE:
        return weights.get(CANDIDATE, {}).get(CANDIDATE, CANDIDATE_WEIGHT)
    return weights.get(kind, {}).get(status, 1.0)


def relevance(cos: float, floor: float) -> float:
    if cos <= floor:
        return 0.0
    return min(1.0, (cos - floor) / (1.0 - floor))


@dataclass
class Hit:
    """Evidence for one record: its best chunk by cosine and its best lexical score (bm25, higher=better)."""

    record_id: str
    kind: str
    status: str
    cos: float
    chunk_id: str
    lexical: float = 0.0
    cos2: float | None = None  # mean cosine of the record's two best chunks (None: only one seen)
    corroboration: float | None = None  # IDF mass of query terms the record contains / ln(N+1)
    relevance: float = 0.0
    weight: float = 1.0
    score: float = 0.0
    why: dict[str, Any] = field(default_factory=dict)
    cut: str | None = None  # set by rank: the rule that kept it out (see `exclusion`), None when admitted
    floor: float | None = None  # its own floor, a record in the other language (cross_language.py); else the ask's


def floor_of(h: Hit, floor: float) -> float:
    """The floor `h` is held to: its own (a record written in the other language) or the question's."""
    return floor if h.floor is None else h.floor


def corroborated(h: Hit, floor: float, margin: float) -> bool:
    """Hybrid admission: clear of the band above the floor, or corroborated by informative words.
    Without measured corroboration (None) any lexical match counts, as before."""
    if h.cos > floor_of(h, floor) + margin:
        return True
    if h.corroboration is None:
        return h.lexical > 0
    return h.corroboration >= CORROBORATION_MIN


def gated(h: Hit, gate: tuple[float, float] | None) -> bool:
    """Below the floor: words stronger than any probe's in that cosine range (recall/lexical_gate.py)."""
    return gate is not None and h.cos > gate[0] and h.corroboration is not None and h.corroboration > gate[1]


def exclusion(h: Hit, floor: float, mode: str, margin: float) -> str | None:
    """The contract rule that keeps `h` out of an answer: "floor", "corroboration" or "no-lexical" (lexical
    mode); None when it is admitted. `rank` admits exactly the hits this says None for (and, through the
    lexical gate, at most one it cut at the floor: `gate_pick`), and records the verdict on each hit, so
    whoever explains a cut (the recall inspector) reads the decision, not a copy."""
    if mode == "lexical":
        return None if h.lexical > 0 else "no-lexical"
    if h.cos <= floor_of(h, floor):
        return "floor"
    if mode == "hybrid" and margin > 0 and not corroborated(h, floor, margin):
        return "corroboration"
    return None


def cut_reason(h: Hit, floor: float, margin: float) -> str | None:
    """`h.cut` in words, with the figures the rule compared."""
    if h.cut == "no-lexical":
        return "no lexical match (lexical mode): the record contains none of the question's content words"
    floor, own = floor_of(h, floor), "" if h.floor is None else " (its language pair's)"
    if h.cut == "floor":
        return f"floor: cosine {h.cos:.3f} ≤ floor {floor:.3f}{own}"
    if h.cut == "corroboration":
        mass = "no lexical match" if h.corroboration is None else f"informative-word mass {h.corroboration:.2f}"
        return (
            f"corroboration: cosine {h.cos:.3f} is within {margin:.2f} of the floor {floor:.3f}{own} and needs "
            f"the question's informative words (IDF mass ≥ {CORROBORATION_MIN:g} × ln(N+1)); it has {mass}"
        )
    return None


def check_mode(mode: str) -> str:
    """The one check of a recall mode: every surface passes the caller's mode through here (via rank), so
    an unknown one is refused with the same message everywhere instead of quietly ranking as dense."""
    if mode not in MODES:
        raise ValueError(f"unknown recall mode {mode!r}; use one of {', '.join(MODES)}")
    return mode


def rank(
    hits: list[Hit],
    floor: float,
    weights: dict[str, dict[str, float]],
    k: int,
    mode: str = "hybrid",
    lexical_weight: float = 0.3,
    corroborate_margin: float = 0.0,
    factors: dict[str, float] | None = None,
    gate: tuple[float, float] | None = None,
    lexical_top: float | None = None,
) -> list[Hit]:
    """Order hits under the contract. `mode`: dense | lexical | hybrid (see module docstring); another
    mode raises ValueError.

    In hybrid mode a record whose cosine is within `corroborate_margin` above the floor also needs
    corroboration (see `corroborated`): right at the floor the dense signal is noise. This only ever
    removes results, so the no-answer property holds. `factors` multiply a record's weight (evidence drift:
    recall/evidence_state.py); they reorder, never admit or cut."""
    check_mode(mode)
    for h in hits:
        h.cut = exclusion(h, floor, mode, corroborate_margin)
    scored = [h for h in hits if h.cut is None]
    if not scored and mode == "hybrid" and (pick := gate_pick(hits, gate)) is not None:
        pick.cut, scored = None, [pick]
    if mode == "lexical":
        top = max((h.lexical for h in scored), default=1.0) or 1.0
        for h in scored:
            h.relevance = h.lexical / top
    else:
        top = max((h.lexical for h in scored), default=0.0)
        if lexical_top:  # another pool's best (forwarding's sources are scaled by the in-force pool's)
            top = max(top, lexical_top)
        for h in scored:
            order_cos = h.cos if h.cos2 is None else (1 - SECOND_CHUNK_WEIGHT) * h.cos + SECOND_CHUNK_WEIGHT * h.cos2
            dense = relevance(order_cos, floor_of(h, floor))
            lex = (h.lexical / top) if (mode == "hybrid" and top > 0) else 0.0
            a = lexical_weight if mode == "hybrid" else 0.0
            h.relevance = (1 - a) * dense + a * lex
            h.why = {
                "cos": round(h.cos, 4),
                "dense": round(dense, 4),
                "lexical": round(lex, 4),
                "admitted": _admitted(h, floor_of(h, floor), mode, corroborate_margin),
            }
            if h.floor is not None:
                h.why["pair_floor"] = h.floor
            if h.corroboration is not None:
                h.why["corroboration"] = round(h.corroboration, 3)
    for h in scored:
        h.weight = weight(weights, h.kind, h.status) * (factors or {}).get(h.record_id, 1.0)
        h.score = h.relevance * h.weight
        h.why.update(relevance=round(h.relevance, 4), weight=h.weight)
    scored.sort(key=lambda h: (-h.score, -h.cos, h.record_id))
    return scored[:k]


def gate_pick(hits: list[Hit], gate: tuple[float, float] | None) -> Hit | None:
    """When nothing passed the floor: the one record the lexical gate admits, the one with the most
    informative-word mass above the gate (ties: higher cosine, then id); None when none passes it."""
    passing = [h for h in hits if h.cut == "floor" and gated(h, gate)]
    return min(passing, key=lambda h: (-(h.corroboration or 0.0), -h.cos, h.record_id), default=None)


def _admitted(h: Hit, floor: float, mode: str, margin: float) -> str:
    if mode != "hybrid" or h.cos > floor + margin:
        return "dense"
    return "corroborated" if h.cos > floor else "lexical-gate"


def no_answer_reason(
    hits: list[Hit],
    floor: float,
    mode: str,
    corroborate_margin: float,
    gate: tuple[float, float] | None = None,
    cross_gate: float | None = None,
) -> dict[str, Any]:
    """Why a recall came back empty, for the `why` of an empty answer (and the gates it did not pass)."""
    why = _no_answer(hits, floor, mode, corroborate_margin)
    if gate is not None and mode == "hybrid" and "best_record" in why:
        why["lexical_gate"] = {"from": gate[0], "mass": gate[1]}
        why["reason"] += (
            f"; no record above the probes' median cosine {gate[0]:.2f} holds informative words of IDF mass "
            f"above {gate[1]:g} (the lexical gate)"
        )
    if cross_gate is not None and mode == "hybrid" and "best_record" in why:
        why["cross_gate"] = {"mass": cross_gate}
        why["reason"] += (
            f"; no record in the other language holds the question's words or their dictionary translations "
            f"with IDF mass above {cross_gate:g} (the cross-language gate)"
        )
    return why


def _no_answer(hits: list[Hit], floor: float, mode: str, corroborate_margin: float) -> dict[str, Any]:
    best = max(hits, key=lambda h: h.cos, default=None)
    if mode == "lexical":
        return {"decision": "no-answer", "reason": "no record contains any of the question's content words"}
    if best is None:
        return {"decision": "no-answer", "reason": "no record matches the filters"}
    why = {"decision": "no-answer", "best_record": best.record_id, "best_cos": round(best.cos, 4), "floor": floor}
    if best.floor is not None:  # written in the other language: held to that language pair's floor
        why["pair_floor"] = floor = best.floor
    which = "the floor" if best.floor is None else "its language pair's floor"
    if best.cos <= floor:
        why["reason"] = f"best cosine {best.cos:.3f} is at or below {which} {floor:.2f}"
    else:
        why["corroboration"] = None if best.corroboration is None else round(best.corroboration, 3)
        why["reason"] = (
            f"best cosine {best.cos:.3f} is within {corroborate_margin:.2f} of {which} {floor:.2f} and "
            f"no record there is corroborated by informative words (needs IDF mass >= "
            f"{CORROBORATION_MIN:g} x ln(N+1))"
        )
    return why


def idf_mass(
    terms: list[str],
    record_terms: dict[str, set[str]],
    n_records: int,
    runs: list[list[str | None]] | None = None,
    only: set[str] | None = None,
    df: dict[str, int] | None = None,
) -> dict[str, float]:
    """record id -> IDF mass of the query terms it contains, in units of ln(N+1). `record_terms` maps
    each term to the records containing it (its document frequency is the size of that set). With `only`,
    the masses of those records alone (the band corroboration decides): the same values, without a pass
    over every record holding a common word; then `record_terms` may hold only those records, and `df`
    gives each term's document frequency (index/queries.py `term_holders`).

    `runs` (records/lexical.py `bigram_runs`) are the question's CJK runs as overlapping bigrams: a chain of
    k consecutive bigrams a record contains spells k+1 characters, counted as (k+1)/2 words (the mean IDF of
    the chain times that), not k words: `資料庫` is one word, not two."""
    if n_records <= 0:
        return {}
    unit = math.log(n_records + 1)

    def idf(t: str) -> float:
        held = df[t] if df is not None and t in df else len(record_terms.get(t) or ())
        return max(math.log((n_records + 1) / (held + 0.5)) / unit, 0.0)

    in_runs = {b for run in runs or [] for b in run if b is not None}
    out: dict[str, float] = {}
    for t in terms:
        if t in in_runs:
            continue
        w = idf(t)
        for rid in _among(record_terms.get(t) or set(), only):
            out[rid] = out.get(rid, 0.0) + w
    wanted = set(terms)
    for run in runs or []:
        holders = set().union(*(_among(record_terms.get(b) or set(), only) for b in run if b in wanted))
        for rid in holders:
            chain: list[float] = []
            for b in [*run, None]:  # None ends a chain (a stop bigram, or the run's end)
                if b is not None and b in wanted and rid in (record_terms.get(b) or ()):
                    chain.append(idf(b))
                elif chain:
                    out[rid] = out.get(rid, 0.0) + sum(chain) * (len(chain) + 1) / (2 * len(chain))
                    chain = []
    return out


def _among(records: set[str], only: set[str] | None) -> set[str]:
    return records if only is None else records & only


def fts_match(terms: list[str]) -> str:
    """An FTS5 OR-query of `terms` (quoted, so no FTS syntax leaks through)."""
    return " OR ".join(f'"{w}"' for w in terms)


def discriminating(terms: list[str], doc_counts: dict[str, int], total: int, max_share: float = 0.25) -> list[str]:
    """Drop terms found in more than `max_share` of the chunks: their bm25 weight is small, yet matching
    them is most of an FTS5 query's cost on a large index (every chunk containing them is scored)."""
    return [t for t in terms if doc_counts.get(t, 0) <= max_share * total]
