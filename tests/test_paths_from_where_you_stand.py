"""Issue 37, item 6: a repository path is read from where the user (or the agent) stands. From a subfolder of
a real repository, `governs payments.py`, `./payments.py`, `../shop/payments.py` and the absolute path all
name `src/shop/payments.py`; so does `recall-task --file` and `context --file`, the MCP tool's `files` with a
`cwd`, and a prompt hook's payload. A path outside the repository is an error naming it and the fix, never an
empty answer; a path that names nothing in the view is answered with a note saying so (docs/commands.md#paths)."""

from __future__ import annotations

import json

import anyio
import pytest
from cli_helpers import jgm_in, jgm_json_in
from mcp import Client

pytestmark = pytest.mark.plumbing  # where a path leads, not how records rank: the fake model will do

GOVERNING = "dec-payments-idempotent"
SHOP = "src/shop"


@pytest.fixture
def shop(repo):
    repo.write(f"{SHOP}/payments.py", "def pay(order):\n    return order.total\n")
    repo.write(f"{SHOP}/cart.py", "def add(item):\n    return item\n")
    repo.write("src/billing/invoice.py", "def total():\n    return 1\n")
    repo.record(
        GOVERNING,
        title="Payment calls carry an idempotency key",
        source=f"{SHOP}/payments.py",
        body="Every call to the payment provider sends an idempotency key, so a retried request never charges twice.",
    )
    repo.record(
        "dec-invoice-rounding",
        title="Invoices round half to even",
        source="src/billing/invoice.py",
        body="Invoice totals round half to even, the way the accounting export does.",
    )
    repo.commit("shop")
    assert jgm_in("seed", cwd=repo.path).returncode == 0
    return repo


def _governs(*args: str, cwd) -> dict:
    code, got = jgm_json_in("governs", *args, cwd=cwd)
    assert code == 0, got
    return got


@pytest.mark.parametrize("typed", ["payments.py", "./payments.py", "../shop/payments.py", "ABSOLUTE"])
def test_governs_from_a_subfolder_finds_the_record_citing_the_file(shop, typed):
    here = shop.path / SHOP
    typed = str(here / "payments.py") if typed == "ABSOLUTE" else typed
    got = _governs(typed, cwd=here)
    assert got["files"] == [f"{SHOP}/payments.py"]
    assert [r["id"] for r in got["records"]] == [GOVERNING]
    assert got["records"][0]["governs"] == [{"file": f"{SHOP}/payments.py", "reason": f"cites {SHOP}/payments.py"}]
    assert got["warnings"] == []


def test_recall_task_and_context_read_file_from_the_current_folder(shop):
    here = shop.path / SHOP
    code, task = jgm_json_in("recall-task", "--goal", "change the checkout flow", "--file", "./payments.py", cwd=here)
    assert code == 0, task
    assert task["files"] == [f"{SHOP}/payments.py"]
    governed = {r["id"]: r["governs"] for r in task["results"] if r.get("governs")}
    assert governed == {GOVERNING: [{"file": f"{SHOP}/payments.py", "reason": f"cites {SHOP}/payments.py"}]}
    assert task["receipt"]["request"]["files"] == [f"{SHOP}/payments.py"]  # a replay from elsewhere asks the same
    code, pack = jgm_json_in("context", "--goal", "change the checkout flow", "--file", "../shop/payments.py", cwd=here)
    assert code == 0 and GOVERNING in [r["id"] for r in pack["records"]], pack
    assert pack["receipt"]["request"]["files"] == [f"{SHOP}/payments.py"]


def test_a_path_outside_the_repository_is_an_error_naming_it_not_an_empty_answer(shop, tmp_path):
    here = shop.path / SHOP
    outside = tmp_path / "elsewhere.py"
    outside.write_text("x = 1\n")
    for typed in ("../../../elsewhere.py", str(outside)):
        code, got = jgm_json_in("governs", typed, cwd=here)
        assert code == 2 and got["error"]["code"] == "request/path-outside-repo", got
        assert typed in got["error"]["message"] and str(shop.path) in got["error"]["message"]
        assert "records" not in got
        code, task = jgm_json_in("recall-task", "--goal", "change payments", "--file", typed, cwd=here)
        assert code == 2 and task["error"]["code"] == "request/path-outside-repo" and "results" not in task, task
    text = jgm_in("governs", str(outside), cwd=here)
    assert text.returncode == 2 and f"{outside} is outside the repository" in text.stderr and text.stdout == ""


def test_with_repo_elsewhere_a_path_existing_here_is_read_from_here_else_from_the_root(shop, tmp_path):
    beside = shop.path.parent  # the folder holding the repository: not inside it
    from_here = _governs(f"{shop.path.name}/{SHOP}/payments.py", "--repo", str(shop.path), cwd=beside)
    from_root = _governs(f"{SHOP}/payments.py", "--repo", str(shop.path), cwd=beside)
    assert from_here["files"] == from_root["files"] == [f"{SHOP}/payments.py"]
    assert [r["id"] for r in from_here["records"]] == [r["id"] for r in from_root["records"]] == [GOVERNING]


def test_a_path_naming_nothing_in_the_view_says_so(shop):
    here = shop.path / SHOP
    got = _governs("refunds.py", cwd=here)
    assert got["records"] == [] and got["warnings"] == [f"no file {SHOP}/refunds.py in this view"]
    text = jgm_in("governs", "refunds.py", cwd=here)
    assert f"note: no file {SHOP}/refunds.py in this view" in text.stderr
    assert f"no in-force record cites {SHOP}/refunds.py" in text.stdout
    first = shop.git("rev-list", "--max-parents=0", "HEAD").stdout.strip()
    shop.write(f"{SHOP}/refunds.py", "def refund():\n    return 0\n")
    shop.commit("refunds")
    assert _governs("refunds.py", cwd=here)["warnings"] == []
    assert _governs("refunds.py", "--at", first, cwd=here)["warnings"] == [
        f"no file {SHOP}/refunds.py in this view ({first})"
    ]
    code, task = jgm_json_in("recall-task", "--goal", "add refunds", "--file", "gone.py", cwd=here)
    assert code == 0 and f"no file {SHOP}/gone.py in this view" in task["warnings"], task


def test_check_explain_and_remember_file_read_from_the_current_folder(shop):
    shown = jgm_json_in("check", "--explain", f"{GOVERNING}.md", cwd=shop.path / "knowledge")[1]
    assert shown["path"] == f"knowledge/{GOVERNING}.md" and shown["id"] == GOVERNING
    code, got = jgm_json_in(
        "remember",
        "--kind",
        "finding",
        "--title",
        "The payment provider rejects keys longer than 64 characters",
        "--body",
        "A 65-character idempotency key is refused with HTTP 400; we hash longer keys down to 64.",
        "--evidence",
        "provider sandbox run",
        "--evidence",
        "./payments.py:2",
        "--evidence",
        "https://example.test/provider-docs",
        "--source",
        "../shop/cart.py::add",
        "--file",
        "./payments.py",
        "--agent",
        "tester",
        cwd=shop.path / SHOP,
    )
    assert code == 0 and got["decision"] == "created", got
    from jupiter_git_memory.app.candidates import Candidates

    data = Candidates.for_repo(shop.path).svc.row(got["id"]).data
    assert data["files"] == [f"{SHOP}/payments.py"]
    seen = data["evidence"][0]  # the observation as recorded: its evidence and source, their paths read from here
    assert seen["evidence"] == ["provider sandbox run", f"{SHOP}/payments.py:2", "https://example.test/provider-docs"]
    assert seen["source"] == f"{SHOP}/cart.py::add"
    code, revised = jgm_json_in(
        "revise", got["id"], "--source", "./payments.py", "--agent", "tester", cwd=shop.path / SHOP
    )
    assert code == 0 and revised["candidate"]["source"] == f"{SHOP}/payments.py", revised


def test_mcp_and_app_take_absolute_paths_and_a_cwd_and_refuse_outside_ones(shop, tmp_path):
    from jupiter_git_memory.app.workspace_handle import WorkspaceHandle
    from jupiter_git_memory.surfaces.mcp.server import build_server

    here = shop.path / SHOP
    handle = WorkspaceHandle.for_repo(shop.path)
    asks = {
        "absolute": {"files": [str(here / "payments.py")]},
        "cwd": {"files": ["payments.py"], "cwd": str(here)},
        "relative cwd": {"files": ["../shop/payments.py"], "cwd": SHOP},
        "outside": {"files": [str(tmp_path / "elsewhere.py")]},
        "climbing": {"files": ["../elsewhere.py"]},
    }

    async def calls():
        async with Client(build_server(handle)) as client:
            return {
                name: await client.call_tool("recall_for_task", {"goal": "change the checkout flow", **a})
                for name, a in asks.items()
            }

    try:
        got = anyio.run(calls)
    finally:
        handle.close()
    for name in ("absolute", "cwd", "relative cwd"):
        answer = json.loads(got[name].content[0].text)
        assert answer["files"] == [f"{SHOP}/payments.py"], name
        assert GOVERNING in [r["id"] for r in answer["records"] if r.get("governs")], name
    for name in ("outside", "climbing"):
        assert got[name].is_error and "[request/path-outside-repo]" in got[name].content[0].text, name


def test_a_prompt_hook_reads_the_files_a_prompt_names_from_the_agents_folder(shop, tmp_path):
    from jupiter_git_memory.surfaces.agent.brief import named_files

    here = str(shop.path / SHOP)
    (tmp_path / "notes.py").write_text("x\n")
    prompt = f"make payments.py retry, like {shop.path}/src/billing/invoice.py does; not {tmp_path}/notes.py"
    assert named_files(shop.path, prompt, here) == [f"{SHOP}/payments.py", "src/billing/invoice.py"]
    assert named_files(shop.path, prompt) == ["src/billing/invoice.py"]  # no folder given: the root's only


@pytest.mark.e2e
def test_the_http_api_reads_files_from_cwd_and_refuses_outside_ones(shop, tmp_path):
    from fastapi.testclient import TestClient

    from jupiter_git_memory.git.workspace import find_workspace
    from jupiter_git_memory.surfaces.api.app import create_app

    app = create_app([shop.path], warm=False)
    route = f"/v1/workspaces/{find_workspace(shop.path).id}/recall-task"
    with TestClient(app, base_url="http://127.0.0.1") as c:
        token = app.state.jgm.tokens.store_root.joinpath("api-token").read_text().strip()
        h = {"Authorization": f"Bearer {token}"}
        goal = {"goal": "change the checkout flow"}
        for files, cwd in ((["payments.py"], str(shop.path / SHOP)), ([str(shop.path / SHOP / "payments.py")], None)):
            r = c.post(route, json={**goal, "files": files, "cwd": cwd}, headers=h)
            assert r.status_code == 200 and r.json()["files"] == [f"{SHOP}/payments.py"], r.text
            assert GOVERNING in [x["id"] for x in r.json()["results"] if x.get("governs")]
        r = c.post(route, json={**goal, "files": [str(tmp_path / "elsewhere.py")]}, headers=h)
        assert r.status_code == 400 and r.json()["error"]["code"] == "request/path-outside-repo", r.text
        assert r.json()["error"]["path"] == str(tmp_path / "elsewhere.py")
        r = c.post(route, json={**goal, "files": ["refunds.py"], "cwd": SHOP}, headers=h)
        assert r.status_code == 200 and f"no file {SHOP}/refunds.py in this view" in r.json()["warnings"], r.text
