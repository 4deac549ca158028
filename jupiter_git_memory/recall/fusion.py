"""Fusing the ranked lists of a task recall (the goal, each concern, each error, the files). Pure.

Reciprocal rank fusion: a record gets 1/(RRF_K + rank) from every list that holds it. Ranks, not scores,
because the lists score differently (semantic relevance × weight, or how specifically a record governs a
file): the top of each list lands near the top of the answer, so neither the files nor the words crowd
the other out, and a record two lists agree on rises above the top of one. Each semantic list already
passed its own floor: fusion admits nothing a list did not.
"""

from __future__ import annotations

from dataclasses import dataclass, field

RRF_K = 60  # the usual constant: rank 1 of one list is worth about rank 2 of another, half of two lists' rank 1


@dataclass
class Fused:
    id: str
    score: float  # 1.0 per list that ranks the record first (the RRF sum scaled by RRF_K + 1)
    ranks: dict[str, int] = field(default_factory=dict)  # list label -> the record's rank in it


def fuse(lists: list[tuple[str, list[str]]], k: int, tiebreak: dict[str, float] | None = None) -> list[Fused]:
    """The best k records over `lists` (label, ids best first); ties go to the higher `tiebreak`, then the id."""
    tiebreak = tiebreak or {}
    out: dict[str, Fused] = {}
    for label, ids in lists:
        for rank, rid in enumerate(dict.fromkeys(ids), start=1):
            f = out.setdefault(rid, Fused(rid, 0.0))
            f.score += (RRF_K + 1) / (RRF_K + rank)
            f.ranks[label] = rank
    ranked = sorted(out.values(), key=lambda f: (-f.score, -tiebreak.get(f.id, 0.0), f.id))[:k]
    for f in ranked:
        f.score = round(f.score, 4)
    return ranked
