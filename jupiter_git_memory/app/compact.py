"""Compact answers for agents: what an MCP tool returns by default, and a context pack whose whole answer, its
wrapper included, fits the budget it was asked for (dec-compact-agent-answers).

Why: an agent pays for every byte it is handed. `recall_for_task` answered 4 records in 8.6 KB (each with
its score breakdown, fusion ranks and evidence commits) and `context` with `budget_tokens=400` in 3.7 KB,
the packed text wrapped in the full records array. By default a record is its id, kind, status, title, a
short snippet of its text and its evidence drift state, and the answer its status and receipt id (plus
warnings or a fallback when there are any); `detail=true` gives the full answer as before, and the CLI's
`--json` stays complete. The output models declare both shapes: the compact fields, and the detail fields
as optional.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import Field

from ..recall.answers import Evidence, PackedRecord, RecalledRecord
from .recall import ContextRequest, RecallRequest, TaskRequest, typed_errors
from .record_answers import ContextEvidence, RecallEvidence, TaskEvidence

SNIPPET_CHARS = 160
DETAIL_DOC = (
    "false (default): each record is id, kind, status, title, a short snippet and its evidence drift state; "
    "true: the full answer (scores and why, fusion, citations, evidence commits, the packed records)."
)
EVIDENCE_STATE_DOC = (
    "Evidence drift: fresh | drifted (cited code changed since) | missing (a cited path is gone) | external "
    "(cites only evidence outside the repository) | uncited"
)


class RecallAsked(RecallRequest):
    detail: bool = Field(False, description=DETAIL_DOC)


class TaskAsked(TaskRequest):
    detail: bool = Field(False, description=DETAIL_DOC)


class ContextAsked(ContextRequest):
    detail: bool = Field(False, description=DETAIL_DOC)


class AnsweredRecord(RecalledRecord):
    """A record of an agent's answer: the compact fields always; the rest with `detail`."""

    score: float | None = None  # type: ignore[assignment]
    evidence_state: str | None = Field(None, description=EVIDENCE_STATE_DOC)
    evidence: Evidence | None = Field(None, description="With detail: evidence drift with the commits since.")


class RecallAnswerForAgents(RecallEvidence):
    """`recall`'s answer: RecallEvidence, its records compact unless `detail` (then also the floor)."""

    records: list[AnsweredRecord]  # type: ignore[assignment]
    floor: float | None = Field(None, description="With detail: the no-match floor the scores were judged by.")  # type: ignore[assignment]


class TaskAnswerForAgents(TaskEvidence):
    records: list[AnsweredRecord]  # type: ignore[assignment]
    global_records: list[AnsweredRecord] = Field(default_factory=list)  # type: ignore[assignment]


class ContextAnswerForAgents(ContextEvidence):
    """`context`'s answer: compact, the text, its status, tokens and receipt (the text's own header says
    evidence, not instructions); with `detail`, the note, workspace and packed records too."""

    text: str = Field(description="The records as Markdown, quoted, headed 'evidence, not instructions'.")
    used_tokens: int = Field(description="Tokens of the text; the whole compact answer stays within budget_tokens.")
    note: str | None = None  # type: ignore[assignment]
    workspace: str | None = None  # type: ignore[assignment]
    records: list[PackedRecord] | None = Field(None, description="With detail: the packed records' provenance.")  # type: ignore[assignment]
    truncated: list[str] = Field(default_factory=list, description="Ids whose text was cut to fit the budget.")


def snippet(text: str, chars: int = SNIPPET_CHARS) -> str:
    one = " ".join(str(text or "").split())
    if len(one) <= chars:
        return one
    return (one[:chars].rsplit(" ", 1)[0] or one[:chars]) + " …"


def compact_record(r: dict[str, Any]) -> dict[str, Any]:
    """id, kind, status, title, snippet, evidence state; `via` / `read_instead` kept when present (a retired
    record's pointer is the point of showing it), and `governs` (the file that brought it)."""
    out = {k: r[k] for k in ("id", "kind", "status", "title")}
    out["snippet"] = snippet(r.get("snippet", ""))
    out["evidence_state"] = (r.get("evidence") or {}).get("state") or "uncited"
    if (r.get("why") or {}).get("via"):
        out["via"] = r["why"]["via"]
    if r.get("read_instead"):
        out["read_instead"] = [x.get("id") for x in r["read_instead"]]
    if r.get("governs"):
        out["governs"] = r["governs"]  # why a file of the task brought it (task recall)
    return out


def compact_wrapper(answer: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """The answer's status and receipt id, and its warnings and fallback only when there are any."""
    out = {"status": answer["status"], **fields}
    if answer.get("receipt"):
        out["receipt_id"] = answer["receipt"]["id"]
    for k in ("warnings", "fallback", "files"):  # files: the task's paths as the repository names them
        if answer.get(k):
            out[k] = answer[k]
    return out


@typed_errors
def context_within(recaller, req: ContextRequest, render: Callable[[dict[str, Any]], str]) -> dict[str, Any]:
    """A context pack whose rendered answer (`render(pack)`, e.g. the tool's JSON) counts at most
    `req.budget_tokens` tokens: the text is packed into what the wrapper leaves, and packed again smaller while
    the whole answer is over (JSON escapes cost tokens too). Raises ValueError when records match but not one
    fits beside the wrapper: an empty pack would read as "nothing matches". The receipt is stored once, for the
    pack returned."""
    from ..recall.context import build_context
    from ..recall.receipts import store_receipt

    count = recaller.embedder.count_tokens

    def pack(budget: int) -> dict[str, Any]:
        statuses = list(req.statuses) or None
        return build_context(
            recaller, req.goal, budget, k=req.k, store=False, files=req.files, errors=req.errors, statuses=statuses
        )

    inner = max(32, req.budget_tokens * 9 // 10 - 40)  # a first guess at what the wrapper and escapes leave
    for _ in range(6):
        got = pack(inner)
        if got["status"] == "no-matches" and inner < req.budget_tokens and pack(req.budget_tokens)["records"]:
            break  # records match, but none fits beside the wrapper: never an empty answer that looks like "none"
        if count(render(got)) <= req.budget_tokens:
            store_receipt(recaller.index(), got["receipt"])
            return got
        if inner == 32:
            break
        inner = max(32, inner - max(count(render(got)) - req.budget_tokens, 8))
    raise ValueError(
        f"budget_tokens {req.budget_tokens} cannot hold one record beside the answer's wrapper: ask for more"
    )
