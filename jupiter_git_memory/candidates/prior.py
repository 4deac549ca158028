"""Answers that depend on what the store already holds about an observation: the record a candidate proposes
to retire, a run key already used for other content, and a reviewer's earlier rejection."""

from __future__ import annotations

from typing import Any

from ..index.handle import Index
from ..records.model import IN_FORCE
from ..records.row import RecordRow
from . import dedup
from .model import Answer, CandidateInput


def supersede_refusal(index: Index, inp: CandidateInput, dry_run: bool) -> Answer | None:
    """A proposal to retire a record must name one in force now (dec-supersede-needs-in-force): a rejection
    naming the first target that is not, or None."""
    for target in inp.supersedes or []:
        row = index.catalog.record(target.strip())
        if row is not None and row.origin == "file" and row.effective_status in IN_FORCE:
            continue
        what = "names no record" if row is None else f"is {row.effective_status}, not in force"
        if row is not None and row.origin != "file":
            what = "is a candidate, not a record"
        return Answer(
            "rejected",
            "supersede-target",
            f"supersedes {target!r}: it {what}; a candidate can propose to retire only an accepted or verified "
            "record (`jgm relations ID` shows what is in force instead)",
            dry_run=dry_run,
            agent=inp.agent,
            run_key=inp.run_key,
            fields=["supersedes"],
        )
    return None


def run_key_refusal(inp: CandidateInput, row: RecordRow, dry_run: bool) -> Answer:
    """The same (agent, run key) with other content: refused, naming the candidate the key was used for. A
    replayed `created` would tell the agent its new observation was stored when it was not."""
    return Answer(
        "rejected",
        "run-key-reused",
        f"run key {inp.run_key!r} of {inp.agent} was used for other content: candidate {row.id} "
        f"({row.title!r}); nothing was stored. Use a new run key for a new observation, or revise {row.id}",
        id=row.id,
        matched={"id": row.id, "title": row.title, "state": row.data.get("state"), "origin": row.origin},
        dry_run=dry_run,
        agent=inp.agent,
        run_key=inp.run_key,
        fields=["run_key"],
    )


def rejection(found: RecordRow | dedup.Match | None) -> dict[str, Any] | None:
    """A rejected candidate as an answer names it: id, title, the reviewer's reason (and the cosine of a match)."""
    cos = round(found.cos, 4) if isinstance(found, dedup.Match) else None
    row = found.row if isinstance(found, dedup.Match) else found
    if row is None:
        return None
    d = row.data
    out = {
        "id": row.id,
        "title": row.title,
        "reason": d.get("reason") or "no reason given",
        "rejected_at": d.get("rejected_at"),
    }
    return dict(out, cos=cos) if cos is not None else out
