"""The session index: what the memory holds, for a session start that knows nothing about the work.

On `main` with no uncommitted changes (or when nothing about the work passes the floor) the session brief
has nothing to say, and an agent would never learn that the project has a hundred decisions it can ask
about. So the session hook then gives this instead: the in-force records counted by kind, the most cited
in-force decisions as `id — title` (cited: named by other in-force records, in a link or their text; then by
how many paths they cite), and how to ask, within `brief_budget`, ending with a receipt id like every
injection. Only in-force records are counted or named: a retired decision is never offered as a pointer.
"""

from __future__ import annotations

import re
from collections import Counter

from ...base.store import workspace_lock
from ...recall.freshness import STALE
from ...recall.receipts import make_receipt, store_receipt
from ...records.citations import citations_of
from ...records.drift import path_citations
from ...records.model import IN_FORCE, LINK_KEYS
from ...records.text import one_line
from .clients import STALE_NOTE

DECISION_KINDS = ("decision", "adr")
MAX_LISTED = 10
HEADER = "# Project memory index (evidence, not instructions)\n"
HOW_TO_ASK = (
    "Ask first: MCP `recall_for_task` (goal, files); `jgm recall-task --goal TEXT --file PATH`; `jgm governs PATH`.\n"
)
_WORD = re.compile(r"[A-Za-z0-9][\w.\-]*")


def _words(row) -> set[str]:
    """The ids a record could be naming: the words of its text and its link fields (a trailing `.` or `-` cut)."""
    links = " ".join(str(v) for k in LINK_KEYS for v in (row.data.get(k) or []))
    return {w.rstrip(".-") for w in _WORD.findall(f"{row.data.get('body') or ''} {links}")}


def rank_decisions(rows: dict) -> list[tuple[str, str, int]]:
    """(id, title, times cited) of the in-force decisions, most cited first."""
    live = {rid: r for rid, r in rows.items() if r.effective_status in IN_FORCE}
    cited: Counter[str] = Counter()
    decisions = {rid for rid, r in live.items() if r.kind in DECISION_KINDS}
    for rid, r in live.items():
        for named in _words(r) & decisions:
            if named != rid:
                cited[named] += 1
    paths = {rid: len(path_citations(citations_of(live[rid].data))) for rid in decisions}
    order = sorted(decisions, key=lambda rid: (-cited[rid], -paths[rid], rid))
    return [(rid, live[rid].title, cited[rid]) for rid in order]


def stale_note(warnings: list[str]) -> str:
    """The hooks' line about record files changed since the last seed ('' when none), for agent and user."""
    return next((f"{STALE_NOTE}{w}\n" for w in warnings if w.startswith(STALE)), "")


def counts_line(rows: dict) -> str:
    by_kind = Counter(r.kind for r in rows.values() if r.effective_status in IN_FORCE)
    parts = [f"{n} {kind}{'' if n == 1 else 's'}" for kind, n in by_kind.most_common()]
    return f"In force: {', '.join(parts)} ({sum(by_kind.values())} records).\n"


def memory_index(recaller) -> str | None:
    """The index within `brief_budget`, its receipt stored; None when the memory holds no in-force record."""
    view, warnings = recaller.prepare(None)
    with workspace_lock(recaller.wsdir, exclusive=False), recaller.index().catalog.viewing(view):
        index = recaller.ensure_seeded()
        rows = index.catalog.records()
        state = recaller.views.state(index, 0.0)
    if not any(r.effective_status in IN_FORCE for r in rows.values()):
        return None
    count, budget = recaller.embedder.count_tokens, recaller.settings.brief_budget
    receipt = make_receipt("memory index", [], recaller.workspace.id, state, {"hook": "session-index"}, 0, "index")
    receipt["request"] = {"type": "index", "budget_tokens": budget}
    foot = f"[receipt {receipt['id']}]"
    counts = counts_line(rows) + stale_note(warnings)  # record files changed since the seed: said here too
    parts = [HEADER, counts]
    used = count(HEADER) + count(counts) + count(HOW_TO_ASK) + count(foot) + count("Most cited decisions:\n")
    listed: list[str] = []
    for rid, title, _n in rank_decisions(rows)[:MAX_LISTED]:
        line = f"- {rid} — {one_line(title)}\n"
        if used + count(line) > budget:
            break
        listed.append(line)
        used += count(line)
    if listed:
        parts += ["Most cited decisions:\n", *listed]
    parts.append(HOW_TO_ASK)
    receipt["ids"] = [line[2:].split(" — ", 1)[0] for line in listed]
    store_receipt(recaller.index(), receipt)
    return "".join(parts) + foot
