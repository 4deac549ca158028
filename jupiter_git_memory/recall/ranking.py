"""The memory contract's ranking, as pure functions.

    relevance = clamp((cos - floor) / (1 - floor), 0, 1)
    score     = fused_relevance × weight(kind, effective status)

A record's cosine is its best chunk's. A record at or below the floor is never returned: lexical
evidence can re-order records that passed the floor but never admits one that did not, so a question
the knowledge base cannot answer stays unanswered however many of its words appear in the records.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

DEFAULT_WEIGHTS: dict[str, dict[str, float]] = {
    "decision": {"accepted": 2.0, "proposed": 1.0, "deprecated": 0.6, "rejected": 0.5, "superseded": 0.5},
    "adr": {"accepted": 2.0, "proposed": 1.0, "deprecated": 0.6, "rejected": 0.5, "superseded": 0.5},
    "fact": {"verified": 1.7, "unverified": 1.0, "invalidated": 0.3, "superseded": 0.5},
    "finding": {"verified": 1.7, "unverified": 1.0, "invalidated": 0.3, "superseded": 0.5},
    "history": {"historical": 0.9, "superseded": 0.5},
}
CANDIDATE_WEIGHT = 0.8  # any requested kind while its status is `candidate`
DEFAULT_STATUSES = ("accepted", "verified", "unverified")
_WORD_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_]+")
STOPWORDS = frozenset("""a an and are as at be but by can do does did for from has have how i if in into is it its
of on or our so that the their them then there these they this to was we were what when where which who why will
with would you your should shall may might must not no any all about use used using""".split())


def merge_weights(overrides: dict[str, dict[str, float]] | None) -> dict[str, dict[str, float]]:
    w = {k: dict(v) for k, v in DEFAULT_WEIGHTS.items()}
    for kind, statuses in (overrides or {}).items():
        w.setdefault(kind, {}).update(statuses)
    return w


def weight(weights: dict[str, dict[str, float]], kind: str, status: str) -> float:
    if status == "candidate":
        return weights.get("candidate", {}).get("candidate", CANDIDATE_WEIGHT)
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
    relevance: float = 0.0
    weight: float = 1.0
    score: float = 0.0
    why: dict = field(default_factory=dict)


def rank(hits: list[Hit], floor: float, weights: dict[str, dict[str, float]], k: int, mode: str = "hybrid",
         lexical_weight: float = 0.3, corroborate_margin: float = 0.0) -> list[Hit]:
    """Order hits under the contract. `mode`: dense | lexical | hybrid (see module docstring).

    In hybrid mode a record whose cosine is within `corroborate_margin` above the floor also needs some
    lexical evidence: right at the floor the dense signal is noise, and a shared content word is cheap,
    independent corroboration. This only ever removes results, so the no-answer property holds."""
    if mode == "lexical":
        scored = [h for h in hits if h.lexical > 0]
        top = max((h.lexical for h in scored), default=1.0) or 1.0
        for h in scored:
            h.relevance = h.lexical / top
    else:
        scored = [h for h in hits if h.cos > floor]
        if mode == "hybrid" and corroborate_margin > 0:
            scored = [h for h in scored if h.cos > floor + corroborate_margin or h.lexical > 0]
        top = max((h.lexical for h in scored), default=0.0)
        for h in scored:
            dense = relevance(h.cos, floor)
            lex = (h.lexical / top) if (mode == "hybrid" and top > 0) else 0.0
            a = lexical_weight if mode == "hybrid" else 0.0
            h.relevance = (1 - a) * dense + a * lex
            h.why = {"cos": round(h.cos, 4), "dense": round(dense, 4), "lexical": round(lex, 4)}
    for h in scored:
        h.weight = weight(weights, h.kind, h.status)
        h.score = h.relevance * h.weight
        h.why.update(relevance=round(h.relevance, 4), weight=h.weight)
    scored.sort(key=lambda h: (-h.score, -h.cos, h.record_id))
    return scored[:k]


def fts_terms(text: str) -> list[str]:
    """The question's content words, lower-cased, in order, without stopwords (at most 32)."""
    words: list[str] = []
    for w in _WORD_RE.findall(text.lower()):
        if w not in STOPWORDS and len(w) > 2 and w not in words:
            words.append(w)
    return words[:32]


def fts_match(terms: list[str]) -> str:
    """An FTS5 OR-query of `terms` (quoted, so no FTS syntax leaks through)."""
    return " OR ".join(f'"{w}"' for w in terms)


def discriminating(terms: list[str], doc_counts: dict[str, int], total: int, max_share: float = 0.25) -> list[str]:
    """Drop terms found in more than `max_share` of the chunks: their bm25 weight is small, yet matching
    them is most of an FTS5 query's cost on a large index (every chunk containing them is scored)."""
    return [t for t in terms if doc_counts.get(t, 0) <= max_share * total]
