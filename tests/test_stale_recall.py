"""Nothing stale without a word (issue 37, item 4): a recall from a worktree view notices record files edited,
added or deleted since the last seed (unstaged, no watcher, no git state moving), reseeds them first when they
are few, and otherwise answers with a warning naming them and the command, on every surface. Real git, model
and Chroma; `reseed_on_recall = 0` in jgm.toml stands for "over the budget"."""

from __future__ import annotations

import json
import os
import time

import pytest
from cli_helpers import jgm_in, jgm_json_in

from jupiter_git_memory.base.store import workspace_dir, workspace_lock
from jupiter_git_memory.git.workspace import find_workspace
from jupiter_git_memory.recall.freshness import STALE

pytestmark = pytest.mark.integration

QUESTION = "Which port does the billing service listen on?"


@pytest.fixture
def kb(repo):
    repo.record("dec-port", title="Billing listens on port 8080", body="The billing service listens on port 8080.")
    repo.record("dec-logs", title="Log as JSON lines", body="Every service writes JSON log lines to stdout.")
    repo.commit("records")
    assert jgm_in("seed", cwd=repo.path).returncode == 0
    return repo


def _warn_only(repo) -> None:
    """Over the budget from now on: a recall warns instead of reseeding (the config is no record file)."""
    repo.write("jgm.toml", 'roots = ["knowledge"]\nreseed_on_recall = 0\n')


def _stale(warnings: list[str]) -> list[str]:
    return [w for w in warnings if w.startswith(STALE)]


def _ids(answer: dict) -> list[str]:
    return [r["id"] for r in answer.get("results") or answer.get("records") or []]


def record_text_of(repo, rid: str) -> str:
    return (repo.path / f"knowledge/{rid}.md").read_text().replace("More.\n", "")


def _edit(repo) -> None:
    repo.record("dec-port", title="Billing listens on port 9090", body="The billing service listens on port 9090.")


def test_an_unstaged_edit_is_indexed_before_the_answer(kb):
    _edit(kb)  # not staged: no git fingerprint moves
    code, res = jgm_json_in("recall", QUESTION, cwd=kb.path)
    assert code == 0 and res["results"][0]["id"] == "dec-port"
    assert "9090" in res["results"][0]["snippet"], "the answer came from the index as it was before the edit"
    assert not _stale(res["warnings"])


def test_added_and_deleted_files_are_indexed_before_the_answer(kb):
    kb.record("dec-queue", title="Billing events go through RabbitMQ", body="Billing publishes events to RabbitMQ.")
    (kb.path / "knowledge/dec-logs.md").unlink()
    code, res = jgm_json_in("recall", "How does billing publish its events?", cwd=kb.path)
    assert code == 0 and _ids(res)[0] == "dec-queue"
    code, res = jgm_json_in("recall", "How do services write their logs?", "-k", "5", cwd=kb.path)
    assert "dec-logs" not in _ids(res)


def test_a_staged_edit_is_indexed_before_the_answer(kb):
    _edit(kb)
    kb.git("add", "-A")
    code, res = jgm_json_in("recall", QUESTION, cwd=kb.path)
    assert code == 0 and "9090" in res["results"][0]["snippet"] and not _stale(res["warnings"])


def test_a_touch_is_no_change_and_reseeds_nothing(kb):
    wsdir = workspace_dir(find_workspace(kb.path).id)
    before = (wsdir / "record-files.json").read_text()
    later = time.time() + 5
    os.utime(kb.path / "knowledge/dec-port.md", (later, later))  # new metadata, same bytes
    code, res = jgm_json_in("recall", QUESTION, cwd=kb.path)
    assert code == 0 and not _stale(res["warnings"])
    assert (wsdir / "record-files.json").read_text() == before, "a touch made the recall reseed"


def test_over_the_budget_every_cli_answer_names_the_files_and_the_command(kb):
    _warn_only(kb)
    _edit(kb)
    kb.record("dec-new", title="Invoices are PDF files", body="Invoices are rendered as PDF.")
    (kb.path / "knowledge/dec-logs.md").unlink()
    code, res = jgm_json_in("recall", QUESTION, cwd=kb.path)
    assert code == 0 and "8080" in res["results"][0]["snippet"]  # not reseeded: the old text, and it says so
    (w,) = _stale(res["warnings"])
    for part in ("knowledge/dec-port.md (edited)", "knowledge/dec-new.md (added)", "knowledge/dec-logs.md (deleted)"):
        assert part in w
    assert "`jgm seed" in w and "reseed_on_recall" in w
    for args in (("recall-task", "--goal", QUESTION), ("context", "--goal", QUESTION)):
        code, res = jgm_json_in(*args, cwd=kb.path)
        assert _stale(res["warnings"]) == [w], args
    text = jgm_in("recall", QUESTION, cwd=kb.path)
    assert "knowledge/dec-port.md (edited)" in text.stderr
    assert jgm_in("seed", cwd=kb.path).returncode == 0  # the command it names clears it
    code, res = jgm_json_in("recall", QUESTION, cwd=kb.path)
    assert "9090" in res["results"][0]["snippet"] and not _stale(res["warnings"])


def test_a_commit_view_never_warns(kb):
    _warn_only(kb)
    _edit(kb)
    code, res = jgm_json_in("recall", QUESTION, "--at", "HEAD", cwd=kb.path)
    assert code == 0 and "8080" in res["results"][0]["snippet"] and not _stale(res["warnings"])


def test_a_busy_index_warns_instead_of_waiting(kb):
    """Another writer holds the index for longer than a recall waits to reseed: the answer (read once the
    writer is done, as every read waits for a writer) names the file instead of refreshing after it."""
    import threading

    _edit(kb)
    wsdir = workspace_dir(find_workspace(kb.path).id)
    held, release = threading.Event(), threading.Event()

    def writer():
        with workspace_lock(wsdir, exclusive=True):
            held.set()
            release.wait(60)

    t = threading.Thread(target=writer)
    t.start()
    try:
        assert held.wait(30)
        threading.Timer(6, release.set).start()  # longer than RESEED_WAIT (2 s)
        code, res = jgm_json_in("recall", QUESTION, cwd=kb.path)
    finally:
        release.set()
        t.join(60)
    (w,) = _stale(res["warnings"])
    assert "knowledge/dec-port.md (edited)" in w and "lock" in w


def test_served_handles_warn_as_the_cli_does(kb):
    """The API, MCP server and daemon answer through a WorkspaceHandle and the app operations."""
    from jupiter_git_memory.app.recall import ContextRequest, RecallRequest, TaskRequest, context, recall, recall_task
    from jupiter_git_memory.app.workspace_handle import WorkspaceHandle

    h = WorkspaceHandle.for_repo(kb.path)
    try:
        assert not _stale(h.read(lambda r: recall(r, RecallRequest(query=QUESTION))).warnings)
        _warn_only(kb)
        kb.record("dec-new", title="Invoices are PDF files", body="Invoices are rendered as PDF.")
        got = [
            h.read(lambda r: recall(r, RecallRequest(query=QUESTION))).warnings,
            h.read(lambda r: recall_task(r, TaskRequest(goal=QUESTION)))["warnings"],
            h.read(lambda r: context(r, ContextRequest(goal=QUESTION)))["warnings"],
        ]
        for warnings in got:
            assert any("knowledge/dec-new.md (added)" in w for w in _stale(warnings))
    finally:
        h.close()


def test_the_prompt_hook_tells_the_agent_and_the_user(kb):
    import io

    from jupiter_git_memory.surfaces.agent.hook import run

    _warn_only(kb)
    _edit(kb)
    out = io.StringIO()
    assert run("claude-code", "prompt", json.dumps({"cwd": str(kb.path), "prompt": QUESTION}), out) == 0
    answer = json.loads(out.getvalue())
    assert "knowledge/dec-port.md (edited)" in answer["hookSpecificOutput"]["additionalContext"]
    assert "knowledge/dec-port.md (edited)" in answer["systemMessage"]


def test_the_session_hook_says_so_even_when_nothing_matches(kb):
    import io

    from jupiter_git_memory.surfaces.agent.hook import run

    _warn_only(kb)
    kb.record("dec-new", title="Invoices are PDF files", body="Invoices are rendered as PDF.")
    out = io.StringIO()
    run("claude-code", "prompt", json.dumps({"cwd": str(kb.path), "prompt": "zebra migration patterns of Kenya"}), out)
    answer = json.loads(out.getvalue())
    assert "knowledge/dec-new.md (added)" in answer["systemMessage"]


def test_the_look_sees_saves_by_rename_new_folders_and_deletions(kb, monkeypatch):
    """seed/stale.py directly: without a walk while no folder moved, with one when a folder did."""
    from jupiter_git_memory.config import load_settings
    from jupiter_git_memory.index.views import worktree_view
    from jupiter_git_memory.seed import stale

    past = time.time() - 3600  # out of the racy window: the look trusts folder metadata
    for p in (kb.path / "knowledge", *(kb.path / "knowledge").iterdir()):
        os.utime(p, (past, past))
    assert jgm_in("seed", cwd=kb.path).returncode == 0  # a no-op seed, which renews the racy look
    ws = find_workspace(kb.path)
    wsdir, view, settings = workspace_dir(ws.id), worktree_view(ws.repo_root), load_settings(kb.path)
    walks = []
    real = stale.look
    monkeypatch.setattr(stale, "look", lambda *a: walks.append(1) or real(*a))

    def now():
        c = stale.changes(wsdir, ws.repo_root, settings, view)
        return c.edited, c.added, c.deleted

    assert now() == ([], [], []) and not walks
    with open(kb.path / "knowledge/dec-logs.md", "a") as f:  # in place: no folder moves
        f.write("More.\n")
    assert now() == (["knowledge/dec-logs.md"], [], []) and not walks
    (kb.path / "knowledge/dec-logs.md").write_text(record_text_of(kb, "dec-logs"))
    tmp = kb.path / "knowledge/.dec-port.md.swp"
    tmp.write_text((kb.path / "knowledge/dec-port.md").read_text().replace("8080", "9091"))
    os.replace(tmp, kb.path / "knowledge/dec-port.md")  # an editor's save: a new file renamed over the old
    assert now() == (["knowledge/dec-port.md"], [], [])
    kb.record("dec-deep", "knowledge/team/a/dec-deep.md", title="Deep", body="A record in a new folder.")
    (kb.path / "knowledge/dec-logs.md").unlink()
    assert now() == (["knowledge/dec-port.md"], ["knowledge/team/a/dec-deep.md"], ["knowledge/dec-logs.md"])
    assert walks
    assert stale.changes(wsdir, ws.repo_root, settings, "wt:/elsewhere") is None  # never seeded: no claim


@pytest.mark.e2e
def test_the_http_api_answers_with_the_warning(kb):
    from fastapi.testclient import TestClient

    from jupiter_git_memory.surfaces.api.app import create_app

    _warn_only(kb)
    _edit(kb)
    app = create_app([kb.path], warm=False)
    wsid = find_workspace(kb.path).id
    with TestClient(app, base_url="http://127.0.0.1") as c:
        token = app.state.jgm.tokens.store_root.joinpath("api-token").read_text().strip()
        h = {"Authorization": f"Bearer {token}"}
        for route, body in (("recall", {"query": QUESTION}), ("recall-task", {"goal": QUESTION})):
            r = c.post(f"/v1/workspaces/{wsid}/{route}", json=body, headers=h)
            assert r.status_code == 200, r.text
            assert any("knowledge/dec-port.md (edited)" in w for w in _stale(r.json()["warnings"])), route
        r = c.post(f"/v1/workspaces/{wsid}/recall", json={"query": QUESTION, "at": "HEAD"}, headers=h)
        assert r.status_code == 200 and not _stale(r.json()["warnings"])


@pytest.mark.unit
def test_a_warning_names_five_files_and_counts_the_rest():
    from jupiter_git_memory.seed.stale import Changes

    c = Changes(edited=[f"k/e{i}.md" for i in range(4)], added=["k/a.md", "k/b.md"], deleted=["k/gone.md"])
    assert len(c) == 7
    assert (
        c.named() == "k/e0.md (edited), k/e1.md (edited), k/e2.md (edited), k/e3.md (edited), k/a.md (added) and 2 more"
    )
