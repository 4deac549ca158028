"""Issue 23 over HTTP: `jgm serve` as a real process over the task eval's repository. Task recall and context
take files and statuses, a retired record names its replacement (and a retired match forwards to it), and the structured write-back fields and
the reused-run-key refusal reach `POST /candidates`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from api_helpers import Server, error_code, seed_in_process, workspace_id
from conftest import Repo

pytestmark = pytest.mark.e2e

TASK_REPO = Path(__file__).parent / "eval" / "task_repo"


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    base = tmp_path_factory.mktemp("task-api")
    home = base / "home"
    home.mkdir()
    repo = Repo(base / "parcelhub")
    shutil.copytree(TASK_REPO, repo.path, dirs_exist_ok=True)
    repo.commit("parcelhub")
    seed_in_process(repo.path, home)
    server = Server([repo.path], home)
    ns = type("Env", (), {})()
    ns.server, ns.http, ns.prefix = server, server.client(), f"/v1/workspaces/{workspace_id(repo.path)}"
    yield ns
    ns.http.close()
    server.stop()


def test_recall_task_and_context_take_files_and_statuses(env):
    t = env.http.post(
        env.prefix + "/recall-task", json={"goal": "tidy up this module", "files": ["parcelhub/storage/orders_repo.py"]}
    )
    assert t.status_code == 200, t.text
    got = {r["id"]: r for r in t.json()["results"]}
    assert got["dec-storage-query-builder"]["governs"][0]["reason"] == "cites parcelhub/storage/"
    assert got["finding-orders-deadlock"]["citations"][0] == "parcelhub/storage/orders_repo.py"
    h = env.http.post(
        env.prefix + "/recall-task", json={"goal": "when did we move to several carriers", "statuses": ["historical"]}
    )
    assert [r["id"] for r in h.json()["results"]] == ["hist-multi-carrier"]
    bad = env.http.post(env.prefix + "/recall-task", json={"goal": "x", "statuses": ["retired"]})
    assert bad.status_code == 422 and error_code(bad) == "request/invalid"
    c = env.http.post(
        env.prefix + "/context",
        json={"goal": "refactor", "files": ["parcelhub/carriers/dhl.py"], "errors": ["HTTP 429"], "budget_tokens": 600},
    )
    assert c.status_code == 200, c.text
    assert "dec-carrier-adapter-interface" in [r["id"] for r in c.json()["records"]]


def test_retired_records_name_their_replacement_over_http(env):
    r = env.http.get(env.prefix + "/records/dec-rate-cache-day")
    rec = r.json()["record"]
    assert rec["superseded_by"] == ["dec-rate-cache-ttl"] and rec["read_instead"][0]["id"] == "dec-rate-cache-ttl"
    listed = env.http.get(env.prefix + "/records", params={"status": "superseded"}).json()["records"]
    assert {x["id"]: x["read_instead"][0]["id"] for x in listed}["dec-label-zpl"] == "dec-label-pdf"
    old = env.http.post(env.prefix + "/recall", json={"query": "rate quote cache lifetime", "statuses": ["superseded"]})
    assert old.json()["results"][0]["read_instead"][0]["id"] == "dec-rate-cache-ttl"
    rel = env.http.get(env.prefix + "/records/fact-webhook-retry-fixed/relations").json()
    assert rel["read_instead"][0]["id"] == "dec-webhook-retry"


def test_a_retired_match_forwards_to_its_replacement_over_http(env):
    # "raw ZPL printers" matches the superseded ZPL decision; the PDF one replacing it is under the floor
    rec = env.http.post(env.prefix + "/recall", json={"query": "raw ZPL printers"}).json()
    assert [r["id"] for r in rec["results"]] == ["dec-label-pdf"], rec
    why = rec["results"][0]["why"]
    assert why["via"] == "dec-label-zpl, superseded" and why["cos"] <= rec["floor"]
    task = env.http.post(env.prefix + "/recall-task", json={"goal": "raw ZPL printers"}).json()
    assert "dec-label-pdf" in [r["id"] for r in task["results"]]
    pack = env.http.post(env.prefix + "/context", json={"goal": "raw ZPL printers", "budget_tokens": 400}).json()
    assert [r["id"] for r in pack["records"]] == ["dec-label-pdf"] and "via dec-label-zpl" in pack["text"]
    for answer in (rec, task, pack):  # never the retired record itself
        assert "dec-label-zpl" not in [r["id"] for r in answer.get("results", answer.get("records", []))]
    assert "[dec-label-zpl ·" not in pack["text"]


def test_candidates_take_the_structured_fields_and_refuse_a_reused_run_key(env):
    body = {
        "kind": "finding",
        "title": "DHL sandbox tokens must be refreshed per worker",
        "body": "Short.",
        "verification": "pytest tests/test_dhl.py passes",
        "evidence": ["commit 1a2b3c4"],
        "scope": "project",
        "files": ["parcelhub/carriers/dhl.py"],
        "supersedes": ["fact-dhl-weight-limit"],
        "agent": "api-agent",
        "run_key": "r1",
    }
    a = env.http.post(env.prefix + "/candidates", json=body)
    assert a.status_code == 201, a.text
    shown = env.http.get(env.prefix + f"/candidates/{a.json()['id']}").json()["candidate"]
    assert shown["scope"] == "project" and shown["supersedes"] == ["fact-dhl-weight-limit"]
    again = env.http.post(env.prefix + "/candidates", json=dict(body, verification="manual check in staging"))
    assert again.status_code == 422 and error_code(again) == "candidate/run-key-reused"
    assert a.json()["id"] in again.json()["error"]["message"]
    retired = env.http.post(
        env.prefix + "/candidates/validate", json=dict(body, supersedes=["dec-label-zpl"], run_key="r3")
    )
    assert retired.json()["reason_code"] == "supersede-target" and "superseded" in retired.json()["reason"]
    scope = env.http.post(env.prefix + "/candidates", json=dict(body, scope="global", run_key="r2"))
    assert scope.status_code == 422 and error_code(scope) == "request/invalid"
