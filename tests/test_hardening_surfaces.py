"""MCP takes the API's limits (issue 10, item 12): one set of bounds, declared in both schemas and enforced
in the shared operations, driven here through the SDK's own client against the real server object."""

from __future__ import annotations

import anyio
from mcp import Client

from jupiter_git_memory.app.workspace_handle import WorkspaceHandle
from jupiter_git_memory.seed.seeder import Seeder
from jupiter_git_memory.surfaces.api.app import create_app
from jupiter_git_memory.surfaces.mcp.server import build_server


def call(repo, *calls):
    handle = WorkspaceHandle.for_repo(repo.path)

    async def main():
        async with Client(build_server(handle)) as client:
            tools = {t.name: t.input_schema for t in (await client.list_tools()).tools}
            return tools, [await client.call_tool(name, args) for name, args in calls]

    try:
        return anyio.run(main)
    finally:
        handle.close()


def test_mcp_refuses_what_the_api_refuses(repo):
    repo.record("dec-cache", title="Redis is our cache", body="We cache sessions in Redis because it is fast.")
    repo.commit()
    Seeder(repo.path).seed()
    tools, (huge, many, long_, ok) = call(
        repo,
        ("list_records", {"offset": 2**63}),
        ("recall_for_task", {"goal": "cache", "errors": ["e"] * 21}),
        ("recall_for_task", {"goal": "cache", "files": ["f" * (4001)]}),
        ("list_records", {"offset": 10_000_000}),
    )
    assert huge.is_error and "less than or equal to 10000000" in huge.content[0].text
    assert many.is_error and "at most 20 items" in many.content[0].text
    assert long_.is_error and "at most 4000 characters" in long_.content[0].text
    assert not ok.is_error
    api = create_app(warm=False).openapi()["components"]["schemas"]["TaskRequest"]["properties"]
    task = tools["recall_for_task"]["properties"]
    for key in ("errors", "files"):
        assert task[key]["maxItems"] == api[key]["maxItems"]
    assert tools["list_records"]["properties"]["offset"]["maximum"] == 10_000_000  # app/limits.py


def test_a_crashing_tool_leaves_its_traceback_in_the_store_log(repo, jgm_home, monkeypatch):
    """The SDK answers a crash with `Error executing tool recall` only; without our handler the traceback
    went to the MCP process's stderr, which clients discard (the 765-write soak lost its cause that way)."""
    from jupiter_git_memory.base.store import log_path
    from jupiter_git_memory.recall.service import Recaller

    repo.record("dec-cache", title="Redis is our cache", body="We cache sessions in Redis because it is fast.")
    repo.commit()
    Seeder(repo.path).seed()

    def crash(self, *a, **kw):
        raise RuntimeError("chroma went away at /private/path")

    monkeypatch.setattr(Recaller, "recall", crash)
    _, (res,) = call(repo, ("recall", {"query": "which cache do we use"}))
    assert res.is_error
    text = res.content[0].text
    assert "recall" in text and "/private/path" not in text  # nothing of the crash reaches the caller
    logged = log_path().read_text()
    assert "RuntimeError: chroma went away at /private/path" in logged and "Traceback" in logged
    assert "Tool 'recall' raised" in logged


def test_after_a_crash_the_next_call_reopens_instead_of_failing_forever(repo, jgm_home):
    """A request that crashes (here: the catalog connection closed under the Recaller) drops the Recaller;
    the next call answers from a fresh one. Before, every later call failed the same way."""
    from jupiter_git_memory.base.store import log_path

    repo.record("dec-cache", title="Redis is our cache", body="We cache sessions in Redis because it is fast.")
    repo.commit()
    Seeder(repo.path).seed()
    handle = WorkspaceHandle.for_repo(repo.path)
    ask = ("recall", {"query": "which cache do we use"})

    async def main():
        async with Client(build_server(handle)) as client:
            first = await client.call_tool(*ask)
            handle._recaller.index().catalog._db.close()  # the fault: a half-closed index
            crashed = await client.call_tool(*ask)
            again = [await client.call_tool(*ask) for _ in range(2)]
            return first, crashed, again

    try:
        first, crashed, again = anyio.run(main)
    finally:
        handle.close()
    assert not first.is_error and first.structured_content["records"][0]["id"] == "dec-cache"
    assert crashed.is_error
    for res in again:
        assert not res.is_error, res.content[0].text
        assert res.structured_content["records"][0]["id"] == "dec-cache"
    assert "ProgrammingError in a request; reopening the index" in log_path().read_text()
