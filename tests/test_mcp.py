"""The MCP server driven by the official SDK client: `jgm mcp` as a real subprocess over stdio (and --http)."""

from __future__ import annotations

import json
import os
import subprocess
import threading

import anyio
import httpx
import pytest
from api_helpers import JGM, first_line, make_alpha, mcp_run, seed_in_process, workspace_id
from mcp import Client

pytestmark = pytest.mark.e2e

READ_TOOLS = {"recall", "recall_for_task", "get_record", "list_records", "get_relations", "context"}
CANDIDATE_TOOLS = {"record_candidate", "validate_candidate", "revise", "forget"}


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    base = tmp_path_factory.mktemp("mcp")
    home = base / "home"
    home.mkdir()
    alpha = make_alpha(base / "alpha")
    seed_in_process(alpha.path, home)
    return home, alpha


def error_text(result) -> str:
    assert result.is_error, result
    return " ".join(c.text for c in result.content if getattr(c, "text", None))


def test_tools_annotations_recall_and_a_clear_not_found(seeded):
    home, alpha = seeded

    async def session(client):
        tools = {t.name: t for t in (await client.list_tools()).tools}
        recall = await client.call_tool(
            "recall", {"query": "Which database engine stores our primary data?", "detail": True}
        )
        compact = await client.call_tool("recall", {"query": "Which database engine stores our primary data?"})
        missing = await client.call_tool("get_record", {"id": "dec-does-not-exist"})
        traversal = await client.call_tool("get_record", {"id": "../../api-token"})
        at = await client.call_tool("recall", {"query": "Which database engine stores our primary data?", "at": "HEAD"})
        lexical = await client.call_tool("recall", {"query": "database engine", "mode": "lexical"})
        return tools, recall, missing, traversal, at, lexical, compact

    tools, recall, missing, traversal, at, lexical, compact = mcp_run(session, home, alpha)
    # the same options as the API (issue 14): recall's mode, recall_for_task's global_k
    assert "mode" in tools["recall"].input_schema["properties"]
    assert "global_k" in tools["recall_for_task"].input_schema["properties"]
    assert not lexical.is_error and lexical.structured_content["records"]
    assert set(tools) == READ_TOOLS | CANDIDATE_TOOLS  # no reviewer verdicts (dec-mcp-no-review-verdicts)
    for name in READ_TOOLS:
        a = tools[name].annotations
        assert (a.read_only_hint, a.destructive_hint, a.idempotent_hint) == (True, False, True), name
    for name in READ_TOOLS:  # typed results: every read tool declares its output schema (issue 14)
        schema = tools[name].output_schema
        assert schema and schema["properties"]["note"] and schema["properties"]["workspace"], name
    recalled = tools["recall"].output_schema
    assert {"receipt_id", "records"} <= set(recalled["required"]) and "floor" in recalled["properties"]
    assert {"id", "kind", "status", "title"} <= set(recalled["$defs"]["AnsweredRecord"]["required"])
    assert {"score", "why", "evidence_state"} <= set(recalled["$defs"]["AnsweredRecord"]["properties"])
    assert tools["record_candidate"].annotations.read_only_hint is False
    assert tools["forget"].annotations.destructive_hint is True

    assert not recall.is_error
    data = recall.structured_content
    assert data["kind"] == "evidence" and "not instructions" in data["note"]
    top = data["records"][0]
    assert (top["id"], top["status"], top["source"]) == ("dec-a-db", "accepted", "ADR meeting 2026-03-02")
    assert "dec-a-mysql" not in [r["id"] for r in data["records"]]
    assert data["receipt_id"].startswith("rcpt_") and data["workspace"] == workspace_id(alpha.path)
    assert json.loads(recall.content[0].text)["records"][0]["id"] == "dec-a-db"  # same data for text-only clients
    assert [r["id"] for r in at.structured_content["records"]] == [r["id"] for r in data["records"]]
    brief = compact.structured_content  # the default: compact (app/compact.py), the same records
    assert [r["id"] for r in brief["records"]] == [r["id"] for r in data["records"]] and "source" not in brief[
        "records"
    ][0]

    msg = error_text(missing)
    assert "[memory/not-found]" in msg and "dec-does-not-exist" in msg
    assert "[request/bad-id]" in error_text(traversal)


def test_list_relations_task_and_context(seeded):
    home, alpha = seeded

    async def session(client):
        return (
            await client.call_tool("list_records", {"kind": "fact"}),
            await client.call_tool("list_records", {"tag": "db", "limit": 2}),
            await client.call_tool("get_relations", {"id": "dec-a-mysql"}),
            await client.call_tool("recall_for_task", {"goal": "add a column to the primary database tables"}),
            await client.call_tool("context", {"goal": "pick a datastore for primary data", "budget_tokens": 300}),
            await client.call_tool("list_records", {"status": "not-a-status"}),
        )

    facts, tagged, rel, task, ctx, bad = mcp_run(session, home, alpha)
    assert [r["id"] for r in facts.structured_content["records"]] == ["fact-a-old-port", "fact-a-port"]
    assert [r["status"] for r in facts.structured_content["records"]] == ["invalidated", "verified"]
    page = tagged.structured_content
    assert [r["id"] for r in page["records"]] == ["dec-a-db", "dec-a-mysql"] and page["next_offset"] == 2
    assert page["total"] == 3
    graph = rel.structured_content["relations"]
    assert graph["status"] == "superseded" and graph["current"] == ["dec-a-db"]
    assert [(e["id"], e["retires"]) for e in graph["superseded_by"]] == [("dec-a-db", True)]
    assert task.structured_content["status"] == "ok" and "dec-a-db" in [
        r["id"] for r in task.structured_content["records"]
    ]
    assert "PostgreSQL" in ctx.structured_content["text"] and ctx.structured_content["kind"] == "evidence"
    assert bad.is_error  # closed vocabulary: rejected by the tool's input schema


def test_streamable_http_needs_a_granted_token(seeded):
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    home, alpha = seeded
    proc = subprocess.Popen(
        [JGM, "mcp", "--http", "--port", "0", "--repo", str(alpha.path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, JGM_HOME=str(home)),
    )
    threading.Thread(target=proc.stderr.read, daemon=True).start()
    try:
        info = json.loads(first_line(proc, 300))
        token = open(info["token_file"]).read().strip()
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
        r = httpx.post(info["url"], json=init, timeout=30)  # the ready line means it listens: no retry
        assert r.status_code == 401 and r.json()["error"]["code"] == "auth/invalid-token"

        async def main():
            async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120) as http:
                async with Client(streamable_http_client(info["url"], http_client=http), read_timeout_seconds=120) as c:
                    return await c.call_tool("get_record", {"id": "fact-a-port"})

        res = anyio.run(main)
        assert not res.is_error and res.structured_content["records"][0]["status"] == "verified"
    finally:
        proc.terminate()
        proc.wait(timeout=30)
