"""The proposed fallback of default recall (knowledge/decisions/dec-proposed-fallback.md).

Default recall returns records in force. When none passes the floor for a question, and the caller did not
choose statuses, the proposed records above the same floor are returned instead, each keeping its status
`proposed` and the answer saying they are not in force: collections that state no status anywhere (read as
proposed) would otherwise answer nothing at all. Retired statuses (superseded, rejected, deprecated,
invalidated) and candidates never fall back.
"""

from __future__ import annotations

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
