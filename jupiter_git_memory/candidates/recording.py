"""Recording an observation: validate → run-key replay → near-duplicate check → save → index.

The exclusive workspace lock is held from the run-key lookup to the write, so two agents sending the
same observation at once cannot both create it. A dry run (`validate`) takes the shared lock and writes
nothing, answering what recording would do.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from ..base import error_codes as E
from ..index.failures import index_failures
from ..index.handle import Index
from ..records.row import RecordRow
from . import dedup, merge
from .access import CandidateAccess
from .errors import CandidateError
from .model import OPEN, PROPOSED, REJECTED, Answer, CandidateInput, new_candidate_id, new_row, with_data
from .prior import rejection, run_key_refusal, supersede_refusal
from .validate import check


def record(access: CandidateAccess, inp: CandidateInput, dry_run: bool = False) -> Answer:
    inp = dataclasses.replace(inp, agent=inp.agent or "unknown")
    verdict = check(inp)
    if verdict.code:  # nothing of the input is stored or logged past this point
        return Answer(
            "rejected",
            verdict.code,
            verdict.reason,
            verdict.warnings,
            dry_run=dry_run,
            agent=inp.agent,
            run_key=inp.run_key,
            fields=verdict.fields,
        )
    with access.open_index(exclusive=not dry_run) as index:
        if inp.run_key:
            prior = access.find_run(index, inp.agent, inp.run_key)
            if prior:
                return replay(access, index, inp, *prior, dry_run=dry_run)
        refused = supersede_refusal(index, inp, dry_run)
        if refused is not None:
            return refused
        seeder = access.seeder
        try:
            matches = dedup.nearest(index, seeder.embedder, seeder.chunker, inp.title, inp.body)
        except index_failures() as e:  # without the check we cannot answer honestly: write nothing
            raise CandidateError(
                E.MEMORY_RETRIEVAL_FAILED,
                f"the near-duplicate check could not run ({e.__class__.__name__}: {e}); nothing was stored, try again",
                exit_code=1,  # the candidate commands' rejection exit, not recall's 3
            ) from None
        out = dedup.classify(matches, f"{inp.title}\n\n{inp.body}")
        now = time.time()
        run = _run_entry(inp, out, now) if inp.run_key else None
        into = out.matched if out.decision == "merged" else None
        changes, note = merge.merged(into.row.data, inp, run, now) if into else (None, None)
        if into and changes is None:  # the candidate is at its size limit
            reason = merge.full_reason(into.record_id, into.row.data)
            out = dedup.DedupOutcome("skipped", merge.FULL, reason, into, out.warnings)
        answer = Answer(
            out.decision,
            out.reason_code,
            out.reason,
            verdict.warnings + out.warnings + ([note] if note else []),
            matched=out.matched.summary() if out.matched else None,
            dry_run=dry_run,
            agent=inp.agent,
            run_key=inp.run_key,
            rejected_before=rejection(dedup.rejected_match(matches, f"{inp.title}\n\n{inp.body}")),
        )
        if dry_run:
            if out.decision == "merged" and out.matched:
                answer.id = out.matched.record_id
            reason = out.reason.replace(" were appended", " would be appended")  # nothing was written
            answer.reason = f"would be {out.decision}: {reason}"
            return answer
        if out.decision == "skipped":
            return answer
        if into is None or changes is None:  # created
            row = new_row(new_candidate_id(), inp, run, answer.warnings, now)
        else:  # merged, within the candidate's size limit (candidates/merge.py)
            row = with_data(into.row, **changes)
        access.save(index, row)
        answer.id, answer.written = row.id, True
        answer.indexed, answer.index_error = access.try_index(index, row)
        return answer


def _run_entry(inp: CandidateInput, out: dedup.DedupOutcome, now: float) -> dict[str, Any]:
    """What the candidate keeps of an (agent, run key) so the same run gets the same answer again."""
    return {
        "agent": inp.agent,
        "run_key": inp.run_key,
        "decision": out.decision,
        "at": now,
        "content_sha": inp.content_sha(),
        "run_sha": inp.run_sha(),
        "reason_code": out.reason_code,
    }


def replay(
    access: CandidateAccess, index: Index, inp: CandidateInput, row: RecordRow, run: dict[str, Any], dry_run: bool
) -> Answer:
    """The same (agent, run key) gets the first answer again; a pending index is finished now. The same
    key with other content is refused: it would answer for an observation it never recorded."""
    warnings = []
    same = run["run_sha"] == inp.run_sha() if "run_sha" in run else run.get("content_sha") == inp.content_sha()
    if not same:  # a run recorded before run_sha existed compares its text only
        return run_key_refusal(inp, row, dry_run)
    rejected = rejection(row) if row.data.get("state") == REJECTED else None
    if rejected:
        warnings.append(f"a reviewer rejected candidate {row.id}: {rejected['reason']}")
    answer = Answer(
        run.get("decision", "created"),
        run.get("reason_code", "new"),
        f"run key {inp.run_key!r} of {inp.agent} was answered before ({run.get('decision', 'created')} "
        f"{row.id}); this is that answer",
        warnings,
        id=row.id,
        written=False,
        dry_run=dry_run,
        replayed=True,
        agent=inp.agent,
        run_key=inp.run_key,
        rejected_before=rejected,
    )
    indexed = access.is_indexed(index, row.id)
    if not indexed and not dry_run and row.data.get("state") in (OPEN, PROPOSED):
        indexed, answer.index_error = access.try_index(index, row)
        answer.written = indexed
    answer.indexed = indexed
    return answer
