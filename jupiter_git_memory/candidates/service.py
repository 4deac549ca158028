"""The candidate service: record (validate → dedup → save → index), list/show, reject, revise, forget.

Why save-then-index: the catalog row is the candidate; the vectors only make it findable. Saving first
(in its own catalog write) means a failed embedding or Chroma write leaves a saved candidate whose
answer says `indexed: false`, and the same (agent, run key) later finishes the indexing instead of
creating a second candidate. Every write goes through index.writer.apply_plan under the exclusive
workspace lock, and the lock is held from the run-key lookup to the write, so two agents sending the
same observation at once cannot both create it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..base import error_codes as E
from ..base.errors import JgmError
from ..base.store import workspace_lock
from ..index.catalog import CatalogChanges
from ..index.handle import Index
from ..index.plan import plan_changes
from ..index.writer import WritePlan, apply_plan
from ..records.checks import check_id
from ..records.row import RecordRow
from . import dedup, merge
from .errors import CandidateError, file_backed, invalid_state, not_found, unavailable
from .model import (
    OPEN,
    PROPOSED,
    REJECTED,
    STATES,
    Answer,
    CandidateInput,
    is_candidate,
    new_candidate_id,
    new_row,
    revision_entry,
    view,
    with_data,
)
from .prior import rejection, run_key_refusal, supersede_refusal
from .validate import check

MAX_REASON_CHARS = 2000
SERVER_LOCK_TIMEOUT = 120.0  # servers answer "index busy" (LockTimeout) rather than hang forever


class CandidateService:
    """One workspace's candidates. Pass a Seeder to share its loaded model (API/MCP servers)."""

    def __init__(
        self,
        repo: Path | str | None = None,
        seeder=None,
        store_root: Path | None = None,
        lock_timeout: float | None = None,
    ):
        if seeder is None:
            from ..seed.seeder import Seeder

            seeder = Seeder(repo, store_root=store_root)
        self.seeder = seeder
        self.workspace = seeder.workspace
        self.lock_timeout = lock_timeout
        self.fault: Callable[[str], None] | None = None  # tests inject indexing failures here

    # -- plumbing -------------------------------------------------------------------------------
    @contextlib.contextmanager
    def _index(self, exclusive: bool) -> Iterator[Index]:
        """The index under the workspace lock (`open_index` reopens Chroma if another process wrote)."""
        with workspace_lock(self.seeder.wsdir, exclusive=exclusive, timeout=self.lock_timeout):
            index = self.seeder.open(write=exclusive)
            try:
                yield index
            finally:
                index.close()

    def _save(self, index: Index, row: RecordRow) -> None:
        """Catalog only: the candidate exists (unindexed) even if indexing fails next."""
        apply_plan(index, WritePlan(catalog=CatalogChanges(upsert_records=[row])), None)

    def _reindex(self, index: Index, rid: str, row: RecordRow | None) -> None:
        """Bring one record's chunks and vectors in line with `row` (None: remove it) via the one write path."""
        previous = index.catalog.records_by_ids([rid])
        known = index.catalog.version_chunks([(rid, row.content_hash)]) if row else {}
        plan, _ = plan_changes(
            {rid: row} if row else {}, previous, known, index.vectors.ids(), self.seeder.chunker, scope={rid}
        )
        vectors = self.seeder.embedder.embed_passages([c.text for c, _ in plan.embed]) if plan.embed else None
        apply_plan(index, plan, vectors, self.fault)

    def _try_index(self, index: Index, row: RecordRow) -> tuple[bool, str | None]:
        try:
            self._reindex(index, row.id, row)
            return True, None
        except Exception as e:  # reported to the caller; the saved candidate waits for a retry or a seed
            return False, f"{e.__class__.__name__}: {e}"

    @staticmethod
    def _indexed(index: Index, rid: str) -> bool:
        return bool(index.catalog.chunks([rid]))

    def _find_run(self, index: Index, agent: str, run_key: str) -> tuple[RecordRow, dict] | None:
        hit = index.catalog.candidate_run(agent, run_key)
        if not hit:
            return None
        return index.catalog.record(hit[0]), json.loads(hit[1])

    def _candidate(self, index: Index, cid: str) -> RecordRow:
        row = index.catalog.record(cid)
        if row is None:
            raise not_found(cid, self.workspace.id)
        if not is_candidate(row):
            raise file_backed(row.id, row.path, row.commit_sha, row.dirty)
        return row

    # -- record / validate ----------------------------------------------------------------------
    def validate(self, inp: CandidateInput) -> Answer:
        return self.record(inp, dry_run=True)

    def record(self, inp: CandidateInput, dry_run: bool = False) -> Answer:
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
        with self._index(exclusive=not dry_run) as index:
            if inp.run_key:
                prior = self._find_run(index, inp.agent, inp.run_key)
                if prior:
                    return self._replay(index, inp, *prior, dry_run=dry_run)
            refused = supersede_refusal(index, inp, dry_run)
            if refused is not None:
                return refused
            try:
                matches = dedup.nearest(index, self.seeder.embedder, self.seeder.chunker, inp.title, inp.body)
            except Exception as e:  # without the check we cannot answer honestly: write nothing
                raise CandidateError(
                    E.MEMORY_RETRIEVAL_FAILED,
                    f"the near-duplicate check could not run "
                    f"({e.__class__.__name__}: {e}); nothing was stored, try again",
                    exit_code=1,  # the candidate commands' rejection exit, not recall's 3
                ) from None
            out = dedup.classify(matches, f"{inp.title}\n\n{inp.body}")
            now = time.time()
            run = (
                {
                    "agent": inp.agent,
                    "run_key": inp.run_key,
                    "decision": out.decision,
                    "at": now,
                    "content_sha": inp.content_sha(),
                    "run_sha": inp.run_sha(),
                    "reason_code": out.reason_code,
                }
                if inp.run_key
                else None
            )
            changes, note = (
                merge.merged(out.matched.row.data, inp, run, now) if out.decision == "merged" else (None, None)
            )
            if out.decision == "merged" and changes is None:  # the candidate is at its size limit
                reason = merge.full_reason(out.matched.record_id, out.matched.row.data)
                out = dedup.DedupOutcome("skipped", merge.FULL, reason, out.matched, out.warnings)
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
                if out.decision == "merged":
                    answer.id = out.matched.record_id
                reason = out.reason.replace(" were appended", " would be appended")  # nothing was written
                answer.reason = f"would be {out.decision}: {reason}"
                return answer
            if out.decision == "skipped":
                return answer
            if out.decision == "created":
                row = new_row(new_candidate_id(), inp, run, answer.warnings, now)
            else:  # merged, within the candidate's size limit (candidates/merge.py)
                row = with_data(out.matched.row, **changes)
            self._save(index, row)
            answer.id, answer.written = row.id, True
            answer.indexed, answer.index_error = self._try_index(index, row)
            return answer

    def _replay(self, index: Index, inp: CandidateInput, row: RecordRow, run: dict, dry_run: bool) -> Answer:
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
        indexed = self._indexed(index, row.id)
        if not indexed and not dry_run and row.data.get("state") in (OPEN, PROPOSED):
            indexed, answer.index_error = self._try_index(index, row)
            answer.written = indexed
        answer.indexed = indexed
        return answer

    # -- review ---------------------------------------------------------------------------------
    def list(self, state: str | None = "queue") -> list[dict[str, Any]]:
        """Candidates oldest first. `state`: one of STATES, `queue` (open + proposed, the default) or `all`."""
        if state not in (None, "all", "queue", *STATES):
            raise CandidateError(
                E.REQUEST_BAD_FILTER,
                f"unknown state {state!r}; use one of all, queue, {', '.join(STATES)}",
                exit_code=1,
            )
        wanted = {"queue": (OPEN, PROPOSED), None: STATES, "all": STATES}.get(state, (state,))
        with self._index(exclusive=False) as index:
            rows = index.catalog.records(origin="candidate")
            indexed = index.catalog.indexed_candidates()
        out = []
        for row in sorted(rows.values(), key=lambda r: (r.data.get("created_at") or 0, r.id)):
            if row.data.get("state") in wanted:
                out.append(view(row, row.id in indexed))
        return out

    def row(self, cid: str) -> RecordRow:
        with self._index(exclusive=False) as index:
            return self._candidate(index, check_id(cid))

    def exists(self, rid: str) -> bool:
        with self._index(exclusive=False) as index:
            return index.catalog.record(rid) is not None

    def show(self, cid: str) -> dict[str, Any]:
        with self._index(exclusive=False) as index:
            row = self._candidate(index, check_id(cid))
            return view(row, self._indexed(index, cid))

    def reject(self, cid: str, why: str) -> dict[str, Any]:
        why = _checked_reason(why)
        with self._index(exclusive=True) as index:
            row = self._candidate(index, check_id(cid))
            state = row.data.get("state")
            if state not in (OPEN, PROPOSED):
                raise invalid_state(cid, state, "only open or proposed candidates can be rejected")
            new = with_data(row, state=REJECTED, reason=why, rejected_at=time.time())
            self._save(index, new)
            indexed, err = self._try_index(index, new)
            return dict(view(new, indexed), index_error=err)

    def mark_proposed(self, cid: str, proposal: dict[str, Any]) -> dict[str, Any]:
        with self._index(exclusive=True) as index:
            row = self._candidate(index, cid)
            new = with_data(row, state=PROPOSED, proposal=proposal)
            self._save(index, new)
            indexed, err = self._try_index(index, new)
            return dict(view(new, indexed), index_error=err)

    # -- revise / forget: candidates only -------------------------------------------------------
    def revise(
        self,
        rid: str,
        title: str | None = None,
        body: str | None = None,
        tags: list[str] | None = None,
        source: str | None = None,
        agent: str | None = None,
    ) -> dict[str, Any]:
        """Edit an open candidate in the store (re-checked like a new one). File-backed: memory/file-backed."""
        with self._index(exclusive=True) as index:
            row = self._candidate(index, check_id(rid))
            if row.data.get("state") != OPEN:
                raise invalid_state(
                    rid,
                    row.data.get("state"),
                    "only open candidates can be revised; a proposed one "
                    "is edited on its branch, a rejected one is recorded anew",
                )
            d = row.data
            inp = CandidateInput(
                row.kind,
                d["title"] if title is None else title,
                d["body"] if body is None else body,
                list(d.get("tags", [])) if tags is None else tags,
                d.get("source") if source is None else source,
                [],
                agent or d.get("provenance", {}).get("agent"),
            )
            verdict = check(inp)
            if verdict.code:
                raise CandidateError(E.rejection(verdict.code), verdict.reason, id=rid, fields=verdict.fields)
            changes = {
                "title": inp.title.strip(),
                "body": inp.body.strip(),
                "tags": list(inp.tags),
                "source": inp.source,
            }
            changed = [k for k, v in changes.items() if v != d.get(k, [] if k == "tags" else None)]
            revisions = list(d.get("revisions", []))
            if changed:  # who changed what, beside the untouched provenance of the agent who recorded it
                revisions.append(revision_entry(agent, changed, time.time(), {k: d.get(k) for k in changed}))
            new = with_data(row, **changes, revisions=revisions, warnings=verdict.warnings)
            self._save(index, new)
            indexed, err = self._try_index(index, new)
            return dict(view(new, indexed), index_error=err)

    def forget(self, rid: str) -> dict[str, Any]:
        """Delete a candidate (row, chunks, vectors). File-backed records: memory/file-backed."""
        with self._index(exclusive=True) as index:
            row = self._candidate(index, check_id(rid))
            self._reindex(index, rid, None)
            return {"id": rid, "forgotten": True, "state": row.data.get("state")}


def _checked_reason(why: str) -> str:
    from .secrets import scan_text

    why = (why or "").strip()
    if not why:
        raise CandidateError(
            E.REQUEST_MISSING_REASON, "say why it is rejected (--why): the reason is kept for the agent"
        )
    if len(why) > MAX_REASON_CHARS:
        raise CandidateError(E.REQUEST_TOO_LONG, f"the reason must be at most {MAX_REASON_CHARS} characters")
    if scan_text(why):
        raise CandidateError(E.CANDIDATE_SECRET, "the reason contains a secret; nothing was stored")
    return why


_by_handle: weakref.WeakKeyDictionary[Any, CandidateService] = weakref.WeakKeyDictionary()
_by_handle_lock = threading.Lock()


def for_handle(handle) -> CandidateService:
    """The service of a server's WorkspaceHandle, sharing the handle's Seeder (one loaded model). A JgmError
    (a broken config: `config/invalid`) keeps its own code on every surface; anything else that stops the
    service starting is `memory/unavailable`."""
    with _by_handle_lock:
        svc = _by_handle.get(handle)
        if svc is None:
            try:
                seeder = handle.seeder()
            except JgmError:
                raise
            except Exception as e:  # the model or the workspace is unavailable
                raise unavailable(e) from e
            svc = _by_handle[handle] = CandidateService(seeder=seeder, lock_timeout=SERVER_LOCK_TIMEOUT)
        return svc
