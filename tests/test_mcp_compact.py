"""MCP answers are compact by default (id, kind, status, title, a short snippet, evidence state; status and
receipt id), the full answer with `detail=true`; a context pack's whole answer, wrapper included, stays within
`budget_tokens` (app/compact.py)."""

from __future__ import annotations

import json

import anyio
import pytest
from helpers import seeded
from mcp import Client

from jupiter_git_memory.app.workspace_handle import WorkspaceHandle
from jupiter_git_memory.embedding.registry import load_embedder
from jupiter_git_memory.surfaces.mcp.server import build_server

pytestmark = pytest.mark.integration

LONG = " ".join(
    f"Orders are written to PostgreSQL shard {i} and replicated to the reporting replica." for i in range(12)
)
RECORDS = {
    "dec-orders-db": {"title": "Orders live in PostgreSQL", "body": LONG, "source": "src/orders.py"},
    "dec-orders-mysql": {"title": "Orders live in MySQL", "body": "Orders were in MySQL.", "status": "superseded"},
    "fact-orders-replica": {
        "kind": "fact",
        "status": "verified",
        "title": "The reporting replica lags by a minute",
        "body": "Measured: the PostgreSQL reporting replica of the orders database lags about one minute.",
    },
}
COMPACT_KEYS = {"id", "kind", "status", "title", "snippet", "evidence_state"}


def _calls(repo, calls):
    handle = WorkspaceHandle.for_repo(repo.path)

    async def run():
        async with Client(build_server(handle)) as client:
            return [await client.call_tool(name, args) for name, args in calls]

    try:
        return anyio.run(run)
    finally:
        handle.close()


def test_compact_by_default_full_with_detail(repo):
    repo.write("src/orders.py", "DB = 'postgres'\n")
    seeded(repo, RECORDS)
    q = {"query": "Which database stores orders?"}
    task = {"goal": "add an index to the orders table", "files": ["src/orders.py"]}
    recall, recall_full, task_c, task_full = _calls(
        repo,
        [
            ("recall", q),
            ("recall", {**q, "detail": True}),
            ("recall_for_task", task),
            ("recall_for_task", {**task, "detail": True}),
        ],
    )
    for compact, full in ((recall, recall_full), (task_c, task_full)):
        assert not compact.is_error and not full.is_error
        c, f = compact.structured_content, full.structured_content
        assert [r["id"] for r in c["records"]] == [r["id"] for r in f["records"]]  # the same answer, shorter
        ids = [r["id"] for r in c["records"]]
        assert "dec-orders-db" in ids and "dec-orders-mysql" not in ids
        # task recall keeps the reason a task's file brought a record (`governs`), nothing else beyond the compact keys
        assert all(set(r) - {"governs"} == COMPACT_KEYS for r in c["records"]), c["records"]
        assert [r.get("governs") for r in c["records"]] == [r.get("governs") for r in f["records"]]
        top = c["records"][ids.index("dec-orders-db")]
        assert top["evidence_state"] == "fresh" and top["status"] == "accepted"
        assert top["snippet"].startswith("Orders are written to PostgreSQL") and len(top["snippet"]) <= 162
        assert c["receipt_id"].startswith("rcpt_") and c["kind"] == "evidence" and "not instructions" in c["note"]
        full_top = f["records"][ids.index("dec-orders-db")]
        assert "why" in full_top and "score" in full_top and full_top["evidence"]["state"] == "fresh"
        assert json.loads(compact.content[0].text) == c  # text-only clients read the same compact JSON
        assert len(compact.content[0].text) * 2 < len(full.content[0].text)
    assert "floor" not in recall.structured_content and recall_full.structured_content["floor"] > 0


@pytest.mark.parametrize("budget", [200, 400])
def test_a_context_packs_whole_answer_stays_within_its_budget(repo, budget):
    repo.write("src/orders.py", "DB = 'postgres'\n")
    seeded(repo, RECORDS)
    goal = {"goal": "move the orders database and its reporting replica", "budget_tokens": budget}
    compact, full = _calls(repo, [("context", goal), ("context", {**goal, "detail": True})])
    count = load_embedder().count_tokens
    assert count(compact.content[0].text) <= budget  # wrapper, escapes and all
    assert count(full.content[0].text) > budget  # the old answer: only its text was within the budget
    c = compact.structured_content
    assert c["status"] == "ok" and c["receipt_id"].startswith("rcpt_")
    assert "[dec-orders-db · " in c["text"] or "[fact-orders-replica · " in c["text"]
    assert "records" not in c and full.structured_content["records"]
    # records match, but none fits beside the wrapper: an error saying so, never an empty "no-matches" pack
    too_small = _calls(repo, [("context", {**goal, "budget_tokens": 60})])[0]
    assert too_small.is_error and "budget_tokens 60 cannot hold one record" in too_small.content[0].text
