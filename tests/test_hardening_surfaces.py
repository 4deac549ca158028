"""MCP takes the API's limits (issue 10, item 12): one set of bounds, declared in both schemas and enforced
in the shared operations, driven here through the SDK's own client against the real server object."""

from __future__ import annotations

import anyio
from mcp import Client

from jupiter_git_memory.seed.seeder import Seeder
from jupiter_git_memory.surfaces.api.app import create_app
from jupiter_git_memory.surfaces.mcp_server import build_server
from jupiter_git_memory.surfaces.workspace_handle import WorkspaceHandle


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
    assert tools["list_records"]["properties"]["offset"]["maximum"] == 10_000_000  # surfaces/limits.py
