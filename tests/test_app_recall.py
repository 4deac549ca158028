"""The application layer's read operations (issue 36): one request model per operation, whose fields are
the HTTP API's body and the MCP tools' parameters alike, and typed errors instead of status strings."""

from __future__ import annotations

import anyio
import pytest
from mcp import Client

from jupiter_git_memory.app import recall as ops
from jupiter_git_memory.app.workspace_handle import WorkspaceHandle
from jupiter_git_memory.base.errors import JgmError
from jupiter_git_memory.git.workspace import NotARepo
from jupiter_git_memory.recall.service import NotSeeded, Recaller, RecallError
from jupiter_git_memory.seed.seeder import Seeder
from jupiter_git_memory.surfaces.api.app import create_app
from jupiter_git_memory.surfaces.mcp.server import build_server

pytestmark = pytest.mark.unit  # raised by the fixtures a test uses (tests/tiers.py)

TOOLS = {"recall": "RecallRequest", "recall_for_task": "TaskRequest", "context": "ContextRequest"}
SAID = ("description", "minLength", "maxLength", "pattern", "minimum", "maximum", "maxItems", "enum", "items")


def _said(prop: dict) -> dict:
    """What a property tells a client, without the ways the two generators spell it (3 vs 3.0, anyOf)."""
    if "anyOf" in prop:  # `X | None`: what X says
        prop = {**prop, **next(p for p in prop["anyOf"] if p.get("type") != "null")}
    out = {k: prop[k] for k in SAID if k in prop}
    for k in ("minimum", "maximum"):
        if k in out:
            out[k] = int(out[k])
    return out


def test_the_api_and_the_mcp_tools_declare_one_contract(repo):
    handle = WorkspaceHandle.for_repo(repo.path)

    async def tools():
        async with Client(build_server(handle)) as client:
            blank = await client.call_tool("recall_for_task", {"goal": "   "})
            return {t.name: t.input_schema for t in (await client.list_tools()).tools}, blank

    try:
        mcp, blank = anyio.run(tools)
    finally:
        handle.close()
    # the pattern is declared, and the operation refuses blank text with its own code and message, as before
    assert blank.is_error and "[request/bad-request] --goal is empty" in blank.content[0].text
    api = create_app(warm=False).openapi()["components"]["schemas"]
    for tool, body in TOOLS.items():
        a, m = api[body], mcp[tool]
        assert set(m["properties"]) == set(a["properties"]) | {"detail"}, tool  # MCP's compact/full switch
        assert m["required"] == a["required"] and len(a["required"]) == 1, tool
        for name, prop in a["properties"].items():
            assert _said(m["properties"][name]) == _said(prop), (tool, name)
    assert mcp["recall_for_task"]["properties"]["errors"]["items"]["maxLength"] == 4000  # app/limits.py MAX_TEXT
    assert "(accepted, verified, unverified)" in mcp["context"]["properties"]["statuses"]["description"]


def test_task_recall_raises_what_it_could_not_do(repo, monkeypatch):
    repo.record("dec-cache", title="Redis is our cache", body="We cache sessions in Redis because it is fast.")
    repo.commit()
    asked = ops.TaskRequest(goal="which cache do we use")
    rc = Recaller(repo.path)
    with pytest.raises(NotSeeded) as unseeded:
        ops.recall_task(rc, asked)
    assert unseeded.value.code == "memory/not-seeded" and "jgm seed" in unseeded.value.message
    assert ops.task_failure(unseeded.value, "ws")["status"] == "not-seeded"

    with pytest.raises(NotARepo, match="cd into one"):
        ops.recall_task(None, asked)

    Seeder(repo.path).seed()
    rc = Recaller(repo.path)
    ok = ops.recall_task(rc, asked)
    assert ok["status"] == "ok" and [r["id"] for r in ok["results"]] == ["dec-cache"]

    def broken(*a, **kw):  # what Chroma raises for a segment it cannot read
        from chromadb.errors import InternalError

        raise InternalError("chroma segment unreadable")

    monkeypatch.setattr(type(rc.index().vectors), "query", broken)  # fault injection only
    with pytest.raises(RecallError, match="chroma segment unreadable") as failed:
        ops.recall_task(rc, asked)
    assert ops.task_failure(failed.value)["status"] == "retrieval-failed"
    assert ops.task_failure(JgmError("other")) is None


def test_a_bad_filter_is_a_typed_bad_request(repo):
    repo.record("dec-cache", title="Redis is our cache", body="We cache sessions in Redis because it is fast.")
    repo.commit()
    Seeder(repo.path).seed()
    rc = Recaller(repo.path)
    unchecked = ops.TaskRequest.model_construct(goal="cache", errors=[], files=[], statuses=["retired"], k=5)
    unchecked.include_global, unchecked.global_k = False, 3
    with pytest.raises(JgmError) as bad:
        ops.recall_task(rc, unchecked)
    assert bad.value.code == "request/bad-request" and "retired" in bad.value.message
    with pytest.raises(JgmError) as blank:
        ops.context(
            rc, ops.ContextRequest.model_construct(goal="c", budget_tokens=8, k=3, errors=[], files=[], statuses=[])
        )
    assert blank.value.code == "request/bad-request" and "--budget must be at least 32" in blank.value.message
