"""The proposed fallback of default recall (knowledge/decisions/dec-proposed-fallback.md).

Default recall returns records in force. When none passes the floor for a question, and the caller did not
choose statuses, the proposed records above the same floor are returned instead, each keeping its status
`proposed` and the answer saying they are not in force: collections that state no status anywhere (read as
proposed) would otherwise answer nothing at all. Retired statuses (superseded, rejected, deprecated,
invalidated) and candidates never fall back.

A collection whose status vocabulary no table knows is the other case (`unmapped_majority`): when more than
half of a root's records carry one unmapped word, its proposed records carrying that word answer beside the
in-force ones, marked the same way, at the weight of proposed, so a handful of mapped records cannot answer
every question for the collection.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import replace

from .results import ResultRow

FALLBACK_STATUSES = ("proposed",)  # what default recall falls back to; never a retired status or a candidate
FALLBACK = "proposed"  # the answer's `fallback` and each result's `why.fallback`


def fallback_warning(query: str) -> str:
    """The note an answer carries when it fell back (once per question: task recall asks several)."""
    q = " ".join(query.split())
    shown = q if len(q) <= 80 else q[:79] + "…"
    return (
        f"no in-force record matches {shown!r}; these are proposed, not in force "
        "(`--status` chooses the statuses; `proposed_fallback = false` in jgm.toml turns this off)"
    )


def unmapped_majority(records: Iterable[tuple[str, str | None, str, str | None]]) -> dict[str, str]:
    """record id -> unmapped word, of the records default recall admits beside the in-force ones.

    `records` are (record id, root, effective status, unmapped status word or None). In each root, the word
    more than half of the root's records carry (all its records count, retired ones too) admits the records
    that carry it and are read as proposed; a record the lifecycle retired (superseded by another) or a
    candidate is not proposed, so it never takes part. Records outside any root (candidates) count nowhere."""
    size: Counter[str] = Counter()
    words: dict[str, Counter[str]] = {}
    for _rid, root, _effective, word in records:
        if root is None:
            continue
        size[root] += 1
        if word:
            words.setdefault(root, Counter())[word] += 1
    majority: dict[str, str] = {}
    for root, counts in words.items():
        word, n = min(counts.items(), key=lambda wn: (-wn[1], wn[0]))
        if n * 2 > size[root]:
            majority[root] = word
    return {
        rid: word
        for rid, root, effective, word in records
        if root is not None and word and effective in FALLBACK_STATUSES and majority.get(root) == word
    }


def unmapped_warning(words: Iterable[str]) -> str:
    """The note an answer carries when records of an unmapped-majority collection answered beside in-force ones."""
    said = ", ".join(repr(w) for w in sorted(set(words)))
    return (
        f"results marked `fallback` are proposed, not in force: most records of their collection say {said}, "
        "a status in no table (map it in jgm.toml under [status_map]; `proposed_fallback = false` turns this off)"
    )


def mark(results: list[ResultRow]) -> list[ResultRow]:
    """Each fallback result says so in its `why`, beside its status `proposed`."""
    return [replace(r, why=dict(r.why or {}, fallback=FALLBACK)) for r in results]


def mostly_proposed(effective: list[str]) -> list[str]:
    """With the fallback off, an empty default answer from a mostly proposed knowledge base must not read as
    "nothing matches": say what was left out."""
    proposed = sum(1 for e in effective if e == "proposed")
    if not effective or proposed * 2 < len(effective):
        return []
    msg = f"{proposed} of {len(effective)} records are proposed (written so, or saying no status) and default "
    return [msg + 'recall leaves them out: ask with `--status proposed`, or map them (`[status_map]` "folder/")']
