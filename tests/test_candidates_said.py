"""The reviewer sees everything the agent said (issue 37, item 3): every field of a structured candidate in
`jgm candidates show` (human and --json) and in MCP's answers, with the agent's exact values, escaped for a
terminal; fields the agent left empty are not printed. (The page: test_candidates_said_core.py and, in
Chromium with the HTTP API, test_web_review.py.)"""

from __future__ import annotations

import dataclasses

import anyio
import pytest
from candidates_helpers import RETRY_RECORD, seed_repo, service
from cli_helpers import jgm_in, jgm_json_in
from mcp import Client

from jupiter_git_memory.app.workspace_handle import WorkspaceHandle
from jupiter_git_memory.candidates.fields import CandidateInput
from jupiter_git_memory.candidates.model import with_data
from jupiter_git_memory.surfaces.mcp.server import build_server

pytestmark = pytest.mark.integration

SAID = {  # every field a finding may carry, each with a value of its own
    "tags": ["orders", "locking"],
    "source": "incident 2026-11 <b>deadlock</b>",
    "evidence": ["commit 4f2a9c1", "tests/test_orders.py::test_deadlock"],
    "agent": "codex-7",
    "session": "s-991",
    "work_item": "WI-310",
    "run_key": "rk-said-1",
    "trigger": "psycopg DeadlockDetected <script>alert(1)</script> under two workers",
    "change": "OrdersRepo locks rows in id order.\nThe retry wrapper is gone.",
    "verification": "pytest tests/test_orders.py -k deadlock passes 50 runs in a row",
    "scope": "transferable",
    "files": ["storage/orders_repo.py", "storage/a.py\nverification: forged by a file name"],
    "supersedes": [RETRY_RECORD[0]],
}
TITLE = "Orders deadlock when workers lock rows in different orders"
BODY = "Two booking workers locked the same order rows in opposite orders and deadlocked."
CONTROL = "s-991 \x1b[2J\x1b]0;owned\x07"  # a terminal clear and a window title


@pytest.fixture
def recorded(repo):
    """A structured finding, and a plain fact recorded by another agent with nothing but its text. The
    finding's session then holds terminal controls, as a candidate stored before the checks refused them
    (or written by another tool) would: every printer escapes them all the same."""
    seed_repo(repo)
    svc = service(repo)
    a = svc.record(CandidateInput("finding", TITLE, BODY, **SAID))
    assert (a.decision, a.written) == ("created", True), a.reason
    plain = svc.record(
        CandidateInput(
            "decision",
            "Number invoices per tenant and year",
            "Invoice numbers restart at 1 each January for every tenant because auditors file them by year.",
            agent="claude-2",
        )
    )
    assert plain.decision == "created", plain.reason
    with svc.open_index(exclusive=True) as index:
        row = svc.candidate(index, a.id)
        svc.save(index, with_data(row, provenance=dict(row.data["provenance"], session=CONTROL)))
    return repo, a.id, plain.id


def _field_lines(stdout: str) -> dict[str, list[str]]:
    """`label: value` lines (and the indented lines under a bare `label:`) of `candidates show`."""
    out: dict[str, list[str]] = {}
    label = None
    for line in stdout.splitlines():
        if line.startswith(" ") and label:
            out[label].append(line.strip())
        elif ": " in line or line.endswith(":"):
            label, _, value = line.partition(":")
            out[label] = [value.strip()] if value.strip() else []
        else:
            label = None
    return out


def test_candidates_show_prints_every_field_the_agent_sent_escaped(recorded):
    repo, cid, plain = recorded
    p = jgm_in("candidates", "show", cid, "--repo", repo.path)
    assert p.returncode == 0, p.stderr
    assert "\x1b" not in p.stdout and "\x07" not in p.stdout
    lines = _field_lines(p.stdout)
    declared = [f.name.replace("_", " ") for f in dataclasses.fields(CandidateInput)]
    assert [k for k in lines if k in declared] == [n for n in declared if n not in ("kind", "body")]
    assert lines["title"] == [TITLE] and BODY in p.stdout
    assert lines["tags"] == ["- orders", "- locking"]
    assert lines["source"] == [SAID["source"]] and lines["agent"] == ["codex-7"]
    assert lines["evidence"] == ["- commit 4f2a9c1", "- tests/test_orders.py::test_deadlock"]
    assert lines["session"] == ["s-991 \\x1b[2J\\x1b]0;owned\\x07"]  # visible, and driving nothing
    assert (lines["work item"], lines["run key"]) == (["WI-310"], ["rk-said-1"])
    assert lines["trigger"] == [SAID["trigger"]] and lines["verification"] == [SAID["verification"]]
    assert lines["change"] == ["OrdersRepo locks rows in id order.", "The retry wrapper is gone."]
    assert lines["scope"] == ["transferable"] and lines["supersedes"] == [f"- {RETRY_RECORD[0]}"]
    # a line break inside a file name is shown as `\x0a`: it cannot print a line of its own
    assert lines["files"] == ["- storage/orders_repo.py", "- storage/a.py\\x0averification: forged by a file name"]
    assert "verification: forged by a file name" not in p.stdout.splitlines()
    bare = _field_lines(jgm_in("candidates", "show", plain, "--repo", repo.path).stdout)
    assert {k: v for k, v in bare.items() if k in declared} == {
        "title": ["Number invoices per tenant and year"],
        "agent": ["claude-2"],
    }  # nothing it left empty is printed


def test_candidates_show_json_and_mcp_answer_with_every_field(recorded):
    repo, cid, plain = recorded
    raw = jgm_in("candidates", "show", cid, "--json", "--repo", repo.path)
    assert raw.returncode == 0 and "\x1b" not in raw.stdout  # JSON escapes it (\u001b)
    code, shown = jgm_json_in("candidates", "show", cid, "--repo", repo.path)
    c = shown["candidate"]
    assert code == 0 and (c["title"], c["body"], c["kind"]) == (TITLE, BODY, "finding")
    for name in ("tags", "source", "trigger", "change", "verification", "scope", "files", "supersedes"):
        assert c[name] == SAID[name], name
    assert c["provenance"] == {"agent": "codex-7", "session": CONTROL, "work_item": "WI-310", "run_key": "rk-said-1"}
    assert c["evidence"][0]["evidence"] == SAID["evidence"]
    code, bare = jgm_json_in("candidates", "show", plain, "--repo", repo.path)
    assert not {"trigger", "change", "verification", "scope", "files"} & set(bare["candidate"])
    handle = WorkspaceHandle.for_repo(repo.path)

    async def main():
        async with Client(build_server(handle)) as client:
            return await client.call_tool("get_record", {"id": cid})

    try:
        got = anyio.run(main)
    finally:
        handle.close()
    rec = got.structured_content["records"][0]
    assert (rec["id"], rec["title"], rec["body"]) == (cid, TITLE, BODY)
    for name in ("tags", "source", "trigger", "change", "verification", "scope", "files"):
        assert rec[name] == SAID[name], name
    assert rec["proposed_supersedes"] == SAID["supersedes"] and rec["provenance"]["session"] == CONTROL
