"""Near-duplicate detection: is this observation already said, by a record or another candidate?

Thresholds were measured with the shipped MiniLM int8 model (knowledge/facts/fact-candidates-dedup-thresholds.md,
script bench/dedup_thresholds.py): paraphrases of one statement scored 0.71–0.97 (median ≈0.89), different
statements on the same topic at most 0.64 — but "tokens expire after 24 hours" vs "after 1 hour" scored 0.98
and a negated decision 0.78. So a cosine alone cannot tell a restatement from a correction: a match
counts as a duplicate only at cos >= DUPLICATE_COS *and* when the two texts agree on their numbers and
on negation. Anything between SIMILAR_COS and that is reported as a warning, never acted on.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

from ..lifecycle.promote import OPEN, PROPOSED
from ..records.model import IN_FORCE
from ..records.row import RecordRow

DUPLICATE_COS = 0.85
SIMILAR_COS = 0.70
_NUM_WORDS = {
    w: str(i) for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())
}
# numbers that stand alone ("5 times", "24h", "2-core"), not digits inside names ("S3", "ec2", "md5")
_NUM_RE = re.compile(r"(?<![\w.])\d+(?:\.\d+)?|\b(?:" + "|".join(_NUM_WORDS) + r")\b", re.IGNORECASE)
_NEG_RE = re.compile(
    r"(?i)\b(not|no|never|none|nor|without|cannot|can't|won't|don't|doesn't|didn't|isn't|aren't|"
    r"wasn't|weren't|shouldn't|mustn't|mustnt|avoid|avoids|stop|stopped|disable[sd]?|reject(?:ed|s)?)\b"
)


@dataclass
class Match:
    record_id: str
    cos: float
    row: RecordRow

    def summary(self) -> dict[str, Any]:
        r = self.row
        return {
            "id": r.id,
            "kind": r.kind,
            "status": r.effective_status,
            "title": r.title,
            "origin": r.origin,
            "path": r.path,
            "cos": round(self.cos, 4),
            "state": r.data.get("state") if r.origin == "candidate" else None,
        }


def _numbers(text: str) -> set[str]:
    out = set()
    for m in _NUM_RE.findall(text):
        out.add(_NUM_WORDS.get(m.lower(), m))
    return out


def is_number(word: str) -> bool:
    """One word that is a number ("1,860", "2.5", "seven"): what `disagreement` compares."""
    return bool(re.fullmatch(r"\d[\d,.]*", word)) or word.lower() in _NUM_WORDS


def is_negation(word: str) -> bool:
    """One word that negates ("not", "never", "disabled"): what `disagreement` looks for."""
    return bool(_NEG_RE.fullmatch(word))


def disagreement(a: str, b: str) -> str | None:
    """Why two similar texts may say different things (numbers, negation), or None when they agree."""
    na, nb = _numbers(a), _numbers(b)
    if na and nb and not (na <= nb or nb <= na):
        return "the numbers differ"
    if bool(_NEG_RE.search(a)) != bool(_NEG_RE.search(b)):
        return "one is negated"
    return None


def describe(row: RecordRow) -> str:
    """How a warning names a record or candidate. A candidate is named by its review state: a promoted
    one's effective status is `superseded` (its file record is what recall returns), but calling it
    "superseded" in a warning reads as if something had retired it."""
    if row.origin == "candidate":
        state = row.data.get("state") or OPEN
        to = f" (now {row.data['promoted_to']})" if state == "promoted" and row.data.get("promoted_to") else ""
        return f"{state} candidate {row.kind} {row.id}{to}"
    return f"{row.effective_status} {row.kind} {row.id}"


def row_text(row: RecordRow) -> str:
    return f"{row.title}\n\n{row.data.get('body', '')}"


# Queries the vector index with the embedder: covered by the integration tests, not the pure mutation bench.
def nearest(
    index: Any, embedder: Any, chunker: Any, title: str, body: str, exclude: AbstractSet[str] = frozenset(), n: int = 20
) -> list[Match]:  # pragma: no mutate block
    """Records nearest to the text, best first. A long text's score for a record is the mean over its
    chunks of each chunk's best cosine to that record (0 where the record is not among the chunk's top n),
    so one shared paragraph does not make two long texts duplicates. Only the current view's chunks (and the
    shared candidates) count: a record another view or an old commit held says nothing about this one."""
    from ..index.view_query import view_query

    if not index.vectors.count():
        return []
    allowed = index.catalog.view_chunk_map()
    chunks = chunker(title, body)
    vecs = embedder.embed_passages([c.text for c in chunks])
    sums: dict[str, float] = defaultdict(float)
    for v in vecs:
        best: dict[str, float] = {}
        for cid, raw in view_query(index.vectors, v, n, allowed.__contains__):
            rid = allowed[cid][0]  # thresholds are on the common scale (ModelSpec.similarity)
            best[rid] = max(best.get(rid, -1.0), embedder.spec.similarity(raw))
        for rid, cos in best.items():
            sums[rid] += cos
    scored = {rid: s / len(chunks) for rid, s in sums.items() if rid not in exclude}
    rows = index.catalog.records_by_ids([rid for rid, s in scored.items() if s >= SIMILAR_COS])
    out = [Match(rid, scored[rid], row) for rid, row in rows.items()]
    out.sort(key=lambda m: (-m.cos, m.record_id))
    return out


def rejected_match(matches: list[Match], text: str) -> Match | None:
    """The rejected candidate this text repeats (a duplicate by the same rule as a merge), if any."""
    for m in matches:
        r = m.row
        if r.origin == "candidate" and r.data.get("state") == "rejected":
            if m.cos >= DUPLICATE_COS and not disagreement(text, row_text(r)):
                return m
    return None


@dataclass
class DedupOutcome:
    decision: str  # created | merged | skipped
    reason_code: str
    reason: str
    matched: Match | None
    warnings: list[str]


def classify(matches: list[Match], text: str) -> DedupOutcome:
    """Skip beats merge: an in-force record that already says it wins over an open candidate that does."""
    warnings: list[str] = []
    in_force: Match | None = None
    mergeable: Match | None = None
    for m in matches:
        r = m.row
        differs = disagreement(text, row_text(r))
        label = f"{describe(r)} ({r.title!r}, cos {m.cos:.2f})"
        if m.cos < DUPLICATE_COS or differs:
            why = f" but {differs}: check whether it corrects or contradicts it" if differs else ""
            warnings.append(f"similar to {label}{why}")
            continue
        if r.effective_status in IN_FORCE:
            in_force = in_force or m
        elif r.origin == "candidate" and r.data.get("state") in (OPEN, PROPOSED):
            mergeable = mergeable or m
        elif r.origin == "candidate" and r.data.get("state") == "rejected":
            warnings.append(f"near-duplicate of rejected candidate {r.id}: {r.data.get('reason') or 'no reason given'}")
        else:
            warnings.append(f"near-duplicate of {label}")
    if in_force:
        r = in_force.row
        return DedupOutcome(
            "skipped",
            "duplicate-of-record",
            f"{r.effective_status} {r.kind} {r.id} already says this (cos {in_force.cos:.2f}); nothing was stored",
            in_force,
            warnings,
        )
    if mergeable:
        r = mergeable.row
        return DedupOutcome(
            "merged",
            "duplicate-of-candidate",
            f"candidate {r.id} already says this (cos {mergeable.cos:.2f}); this observation's provenance "
            "and evidence were appended to it",
            mergeable,
            warnings,
        )
    return DedupOutcome("created", "new", "no record or open candidate says this yet", None, warnings)
