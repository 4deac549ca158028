"""Structured write-back (issue 23, item 6): trigger, evidence, change, verification, scope, files and a
proposal to supersede, through every surface; the validator uses them; a reused run key with other content
is refused with its own code; a resubmission of what a reviewer rejected carries the reviewer's reason."""

from __future__ import annotations

import json

import anyio
import pytest
from candidates_helpers import CACHE_FACT, RETRY_RECORD, fact, seed_repo, service
from cli_helpers import jgm_json_in
from mcp import Client

from jupiter_git_memory.app.workspace_handle import WorkspaceHandle
from jupiter_git_memory.candidates.model import CandidateInput
from jupiter_git_memory.candidates.propose import propose
from jupiter_git_memory.records.parse import parse_record
from jupiter_git_memory.surfaces.mcp.server import build_server

pytestmark = pytest.mark.e2e

FINDING = ("Orders deadlock when workers lock rows in different orders", "Lock by id.")
STRUCTURE = {
    "trigger": "psycopg.errors.DeadlockDetected under two booking workers",
    "change": "OrdersRepo locks rows with SELECT ... FOR UPDATE ORDER BY id",
    "verification": "pytest tests/test_orders_concurrency.py -k deadlock passes 50 runs in a row",
    "scope": "transferable",
    "files": ["storage/orders_repo.py"],
}


def finding(title=FINDING[0], body=FINDING[1], **kw) -> CandidateInput:
    kw.setdefault("agent", "agent-1")
    return CandidateInput("finding", title, body, **kw)


# -- the service and the proposed file -------------------------------------------------------------------


def test_structured_candidate_is_proposed_with_sections_and_a_supersede(repo):
    seed_repo(repo)
    svc = service(repo)
    a = svc.record(finding(evidence=["commit 4f2a9c1"], supersedes=[RETRY_RECORD[0]], **STRUCTURE))
    assert (a.decision, a.written) == ("created", True), a.reason
    shown = svc.show(a.id)
    assert shown["verification"] == STRUCTURE["verification"] and shown["scope"] == "transferable"
    assert shown["files"] == ["storage/orders_repo.py"] and shown["supersedes"] == [RETRY_RECORD[0]]
    # the candidate's proposal is no supersede link: the record it names stays in force until the PR merges
    from jupiter_git_memory.app import records_ops as ops

    with svc.open_index(exclusive=False) as index:
        assert ops.relations(index.catalog, RETRY_RECORD[0], "ws")["superseded_by"] == []
    p = propose(svc, a.id, status="accepted", today="2026-12-01")
    text = repo.git("show", f"{p['branch']}:{p['path']}").stdout
    rec = parse_record(p["path"], text.encode()).record
    assert rec.status == "verified" and rec.supersedes == (RETRY_RECORD[0],) and rec.scope == "transferable"
    assert rec.citations == ("storage/orders_repo.py", "commit 4f2a9c1")  # task recall finds it for the file
    for heading in ("## Trigger", "## Change", "## Verification", "## Scope", "## Files", "## Supersedes"):
        assert heading in text
    assert "Transferable: it holds beyond this repository." in text and "- `storage/orders_repo.py`" in text
    assert f"Supersedes: {RETRY_RECORD[0]}" in repo.git("log", "-1", "--format=%B", p["branch"]).stdout


def test_supersedes_must_name_an_in_force_record(repo):
    seed_repo(repo)
    svc = service(repo)
    ev = {"evidence": ["commit 4f2a9c1"], "verification": "pytest -k deadlock passes"}
    unknown = svc.record(finding(supersedes=["dec-nope"], **ev))
    assert (unknown.decision, unknown.reason_code) == (
        "rejected",
        "supersede-target",
    ) and "names no record" in unknown.reason
    c = svc.record(fact(*CACHE_FACT))
    cand = svc.record(finding(supersedes=[c.id], **ev), dry_run=True)
    assert cand.reason_code == "supersede-target" and "is a candidate" in cand.reason


def test_reused_run_key_is_refused_and_a_rejected_resubmission_carries_the_reason(repo):
    seed_repo(repo)
    svc = service(repo)
    first = svc.record(fact(*CACHE_FACT, run_key="k1", verification="cat ci/pipeline.yml shows the key"))
    assert first.decision == "created"
    same = svc.record(fact(*CACHE_FACT, run_key="k1", verification="cat ci/pipeline.yml shows the key"))
    assert same.replayed and same.id == first.id
    other = svc.record(fact(*CACHE_FACT, run_key="k1", verification="the cache hit ratio went up"))
    assert (other.decision, other.reason_code, other.id) == ("rejected", "run-key-reused", first.id)
    svc.reject(first.id, "the cache key also includes the Python version; record that instead")
    again = svc.record(fact(*CACHE_FACT, run_key="k2"))
    assert again.rejected_before["id"] == first.id and "Python version" in again.rejected_before["reason"]
    replay = svc.record(fact(*CACHE_FACT, run_key="k1", verification="cat ci/pipeline.yml shows the key"))
    assert replay.replayed and "Python version" in replay.rejected_before["reason"]
    assert any("a reviewer rejected" in w for w in replay.warnings)


# -- surfaces --------------------------------------------------------------------------------------------


def test_cli_and_mcp_take_the_structured_fields(repo):
    seed_repo(repo)
    args = ["remember", "--kind", "finding", "--title", FINDING[0], "--body", FINDING[1]]
    args += ["--trigger", STRUCTURE["trigger"], "--verification", STRUCTURE["verification"], "--evidence", "c0ffee1"]
    args += ["--scope", "project", "--file", "storage/orders_repo.py", "--agent", "cli", "--run-key", "r1"]
    code, a = jgm_json_in(*args, cwd=repo.path)
    assert code == 0 and a["decision"] == "created", a
    code, shown = jgm_json_in("candidates", "show", a["id"], cwd=repo.path)
    assert shown["candidate"]["scope"] == "project" and shown["candidate"]["trigger"] == STRUCTURE["trigger"]
    code, reused = jgm_json_in(*args[:-1], "r1", "--change", "something else entirely", cwd=repo.path)
    assert code == 1 and reused["reason_code"] == "run-key-reused" and a["id"] in reused["reason"]
    handle = WorkspaceHandle.for_repo(repo.path)

    async def main():
        async with Client(build_server(handle)) as client:
            tools = {t.name: t.input_schema for t in (await client.list_tools()).tools}
            got = await client.call_tool(
                "validate_candidate",
                {"kind": "finding", "title": FINDING[0], "body": FINDING[1], "scope": "elsewhere"},
            )
            return tools, got

    try:
        tools, bad = anyio.run(main)
    finally:
        handle.close()
    props = tools["record_candidate"]["properties"]
    assert {"trigger", "change", "verification", "scope", "files", "supersedes"} <= set(props)
    assert {"files", "errors", "statuses"} <= set(tools["context"]["properties"])
    assert "statuses" in tools["recall_for_task"]["properties"]
    assert bad.is_error and "project" in json.dumps(bad.content[0].text)
