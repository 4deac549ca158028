"""Appending a near-duplicate observation to an open candidate, within the size one candidate may have.

Why a bound: every merge used to append the observation's whole text, so forty agents repeating one large
finding made one 6.9 MB candidate (and a slow review page). The stored candidate (its text, observations and
runs) now stays within MAX_CANDIDATE_BYTES, the limit a single candidate's body has. Near that limit the
observation is kept by reference (its provenance and evidence in full, its text as sha256 and size): a
duplicate's text is by definition what the candidate already says, while who saw it and what backs it is
the corroboration a reviewer weighs. When not even the reference fits, nothing is appended and the answer is
`skipped` (`candidate-full`): the memory already holds the observation, so this is no error for the agent;
the candidate waits for review.
"""

from __future__ import annotations

import json
from typing import Any

from .fields import MAX_BODY_BYTES
from .model import CandidateInput, content_hash, evidence_entry

MAX_CANDIDATE_BYTES = MAX_BODY_BYTES
FULL = "candidate-full"


def stored_bytes(data: dict[str, Any]) -> int:
    """The size of a candidate as the catalog stores it (its data as JSON)."""
    return len(json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str).encode("utf-8"))


def merged(
    data: dict[str, Any], inp: CandidateInput, run: dict[str, Any] | None, now: float
) -> tuple[dict[str, Any] | None, str | None]:
    """The data changes that append `inp` (in full, else by reference) and a warning for the reference,
    or (None, None) when the candidate cannot take even the reference."""
    tags = list(dict.fromkeys(list(data.get("tags", [])) + list(inp.tags or [])))
    runs = list(data.get("runs", [])) + ([run] if run else [])
    base = evidence_entry(inp, now)
    text = inp.body.strip()
    full = dict(base, title=inp.title.strip(), body=text)
    ref = dict(
        base,
        title=inp.title.strip(),
        content_sha=content_hash(inp.title, inp.body),
        body_bytes=len(text.encode("utf-8")),
    )
    for entry, warning in (
        (full, None),
        (
            ref,
            f"the candidate is near its size limit ({MAX_CANDIDATE_BYTES} bytes): this observation's provenance "
            "and evidence are kept in full, its text only by reference (sha256 and size)",
        ),
    ):
        changes = {"evidence": list(data.get("evidence", [])) + [entry], "tags": tags, "runs": runs}
        if stored_bytes(dict(data, **changes)) <= MAX_CANDIDATE_BYTES:
            return changes, warning
    return None, None


def full_reason(cid: str, data: dict[str, Any]) -> str:
    n = len(data.get("evidence", []))
    return (
        f"candidate {cid} already says this, but it is at its size limit ({MAX_CANDIDATE_BYTES} bytes, "
        f"{n} observation{'' if n == 1 else 's'}): nothing was appended; review it (propose or reject) first"
    )
