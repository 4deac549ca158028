"""Record reads take one request model each (app/record_requests.py): the HTTP API's query and path parameters
and the MCP tools' arguments are derived from it, so both say the same names, bounds and descriptions, and a
surface answers the same page for the same request."""

from __future__ import annotations

import pytest
from api_helpers import mcp_tool_schemas
from fastapi.testclient import TestClient

from jupiter_git_memory.app.record_requests import RecordRef, RecordsQuery
from jupiter_git_memory.app.workspace_handle import WorkspaceHandle
from jupiter_git_memory.seed.seeder import Seeder
from jupiter_git_memory.surfaces.api.app import create_app

pytestmark = [pytest.mark.integration, pytest.mark.plumbing]  # what is read, not how it ranks

BOUNDS = ("minimum", "maximum", "pattern", "maxLength", "enum", "description")


def _bounds(schema: dict) -> dict:
    """A parameter's bounds, whichever way the schema writes an optional value (anyOf with null or not)."""
    found = {k: v for k, v in schema.items() if k in BOUNDS}
    for alt in schema.get("anyOf", []):
        found.update({k: v for k, v in alt.items() if k in BOUNDS})
    return found


def _seeded(repo):
    repo.record("dec-a", title="Use PostgreSQL", body="Orders live in PostgreSQL.", tags="[db]")
    repo.record("dec-b", title="Use MySQL", body="Orders lived in MySQL.", status="superseded", tags="[db]")
    repo.record("fact-c", kind="fact", status="verified", title="The port is 5432", body="PostgreSQL listens on 5432.")
    repo.commit()
    Seeder(repo.path).seed()


def test_api_and_mcp_parameters_are_the_request_models_fields(repo):
    _seeded(repo)
    api = create_app(warm=False).openapi()["paths"]
    listed = {p["name"]: p for p in next(v for k, v in api.items() if k.endswith("/records"))["get"]["parameters"]}
    one = next(v for k, v in api.items() if k.endswith("/records/{record_id}"))["get"]["parameters"]
    tools = mcp_tool_schemas(repo.path)
    for name, field in RecordsQuery.model_fields.items():
        api_bounds = _bounds(listed[name]["schema"]) | {"description": listed[name]["description"]}
        mcp_bounds = _bounds(tools["list_records"]["properties"][name])
        assert api_bounds == mcp_bounds, name
        assert api_bounds["description"] == field.description, name
    assert listed["limit"]["schema"]["maximum"] == RecordsQuery.model_fields["limit"].metadata[-1].le
    (path,) = [p for p in one if p["in"] == "path" and p["name"] == "record_id"]
    assert _bounds(path["schema"]) == _bounds(tools["get_record"]["properties"]["id"]), path
    assert _bounds(path["schema"])["pattern"] == RecordRef.model_fields["id"].metadata[-1].pattern
    assert set(tools["get_relations"]["properties"]) == set(RecordRef.model_fields)


def test_the_api_builds_the_request_from_its_query_and_refuses_what_the_model_bounds(repo, jgm_home):
    _seeded(repo)
    app = create_app([repo.path], warm=False)
    token = (jgm_home / "api-token").read_text().strip()
    wsid = WorkspaceHandle.for_repo(repo.path)
    base = f"/v1/workspaces/{wsid.id}"
    wsid.close()
    with TestClient(app, base_url="http://127.0.0.1", headers={"Authorization": f"Bearer {token}"}) as c:
        page = c.get(base + "/records", params={"tag": "db", "limit": 1}).json()
        assert [r["id"] for r in page["records"]] == ["dec-a"] and page["next_offset"] == 1 and page["total"] == 2
        facts = c.get(base + "/records", params={"kind": "fact", "origin": "file"}).json()
        assert [r["id"] for r in facts["records"]] == ["fact-c"]
        for bad in ({"limit": 0}, {"offset": -1}, {"kind": "opinion"}, {"tag": "\x01"}, {"origin": "FILE"}):
            r = c.get(base + "/records", params=bad)
            assert r.status_code == 422, (bad, r.text)
            assert next(iter(bad)) in r.text, (bad, r.text)  # the answer names the parameter
        rel = c.get(base + "/records/dec-b/relations").json()
        assert rel["id"] == "dec-b" and rel["workspace"] == wsid.id
        assert c.get(base + "/records/dec-a").json()["record"]["title"] == "Use PostgreSQL"
        bad_id = c.get(base + "/records/-dash-first")
        assert bad_id.status_code == 422 and "record_id" in bad_id.text, (
            bad_id.text
        )  # the path named as the route names it
