"""Typed results (issue 14): the API's OpenAPI schema shows the success bodies that `--json` prints too
(schemathesis in test_api checks real answers against them)."""

import pytest

from jupiter_git_memory.surfaces.api.app import create_app

pytestmark = pytest.mark.integration


def test_openapi_shows_success_bodies():
    schema = create_app(warm=False).openapi()
    base = "/v1/workspaces/{workspace}"
    want = {
        ("post", "/recall"): "RecallAnswer",
        ("post", "/recall-task"): "TaskAnswer",
        ("post", "/context"): "ContextPack",
        ("get", "/receipts/{receipt_id}"): "Receipt",
    }
    for (method, path), model in want.items():
        ok = schema["paths"][base + path][method]["responses"]["200"]["content"]["application/json"]["schema"]
        assert ok == {"$ref": f"#/components/schemas/{model}"}, (path, ok)
    answer = schema["components"]["schemas"]["RecallAnswer"]
    assert {"status", "results", "receipt", "floor", "note"} <= set(answer["required"])
    record = schema["components"]["schemas"]["RecalledRecord"]["properties"]
    assert {"id", "kind", "status", "title", "score", "path", "commit", "snippet"} <= set(record)


def test_every_route_declares_its_success_body():
    """No route answers an untyped object: records, relations, candidates, seed, workspaces and verify too."""
    schema = create_app(warm=False).openapi()
    untyped = []
    for path, ops in schema["paths"].items():
        for method, op in ops.items():
            codes = [c for c in op["responses"] if c.startswith("2")]
            bodies = [op["responses"][c].get("content", {}).get("application/json", {}).get("schema") for c in codes]
            if not any(b and "$ref" in b for b in bodies):
                untyped.append((method, path))
    assert untyped == []
    comps = schema["components"]["schemas"]
    assert {"records", "total", "next_offset"} <= set(comps["RecordPage"]["properties"])
    assert {"retires", "declared_on", "missing"} <= set(comps["RelationEdge"]["required"])
    assert {"decision", "written", "ok"} <= set(comps["CandidateAnswer"]["required"])
    assert {"counts", "workspace"} <= set(comps["SeedAnswer"]["required"])
