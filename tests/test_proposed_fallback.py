"""Default recall falls back to proposed records, marked, when no in-force record passes the floor
(knowledge/decisions/dec-proposed-fallback.md). Real model, real Chroma, real git; the CLI in process, the API and MCP as servers."""

from __future__ import annotations

import json

import pytest
from api_helpers import Server, mcp_run, workspace_id
from cli_helpers import jgm_in, jgm_json_in

from jupiter_git_memory.recall.service import Recaller
from jupiter_git_memory.recall.task import recall_task
from jupiter_git_memory.recall.verify import verify_receipt
from jupiter_git_memory.seed.seeder import Seeder

pytestmark = pytest.mark.e2e

DB_Q = "Which database engine keeps the orders?"
LOG_Q = "In what format should services write their log lines?"
CAKE_Q = "What is the recipe for banana bread?"


@pytest.fixture
def kb(repo):
    repo.record(
        "dec-db",
        title="Keep orders in PostgreSQL",
        body="The orders service stores every order in PostgreSQL 16, run by the platform team.",
    )
    repo.record(
        "dec-db-next",
        status="proposed",
        title="Move the orders database to CockroachDB",
        body="Proposal: store orders in CockroachDB so the database spans regions.",
    )
    repo.record(
        "dec-logs",
        status="proposed",
        title="Write log lines as JSON",
        body="Proposal: every service writes one JSON object per log line, with a timestamp and a level.",
    )
    # retired records on topics nothing in force answers: they must never come back by default
    repo.record(
        "dec-notes-pdf",
        status="accepted",
        superseded_by="dec-db",
        title="Publish release notes as PDF files",
        body="Release notes are published as PDF documents attached to each release.",
    )
    repo.record(
        "dec-flutter",
        status="rejected",
        title="Write the mobile app in Flutter",
        body="We considered building the mobile app in Flutter and rejected it.",
    )
    repo.record(
        "dec-ftp",
        status="deprecated",
        title="Back up the file server nightly over FTP",
        body="Every night the file server is copied to the backup host over FTP.",
    )
    repo.record(
        "fact-gpu",
        kind="fact",
        status="false",
        title="The build farm has GPUs",
        body="Every build machine has a GPU for the image tests.",
    )
    repo.commit()
    assert not Seeder(repo.path).seed().errors
    return repo


def ids(res) -> list[str]:
    return [r["id"] for r in res.results]


def test_in_force_answer_keeps_proposed_out_and_only_proposed_answer_comes_back_marked(kb):
    rc = Recaller(kb.path)
    db = rc.recall(DB_Q, k=5)
    assert ids(db) == ["dec-db"] and db.fallback is None  # the proposed CockroachDB record stays out
    assert not any("proposed" in w for w in db.warnings)

    logs = rc.recall(LOG_Q, k=5)
    assert ids(logs) == ["dec-logs"] and logs.fallback == "proposed"
    top = logs.results[0]
    assert top["status"] == "proposed" and top["why"]["fallback"] == "proposed"
    assert any("no in-force record matches" in w and "not in force" in w for w in logs.warnings)
    assert logs.to_json()["fallback"] == "proposed" and logs.to_json()["status"] == "ok"
    assert logs.receipt["filters"]["fallback"] == "proposed" and logs.receipt["filters"]["asked_statuses"] is None
    assert verify_receipt(rc, logs.receipt["id"])["same"]  # the replay falls back alike

    cake = rc.recall(CAKE_Q, k=5)  # the floor still guards no-match: nothing, and no warning about proposed
    assert cake.results == [] and cake.fallback is None and cake.why["decision"] == "no-answer"
    assert not any("proposed" in w for w in cake.warnings)
    rc.close()


def test_chosen_statuses_never_fall_back(kb):
    rc = Recaller(kb.path)
    asked = rc.recall(LOG_Q, k=5, statuses=["accepted"])
    assert asked.results == [] and asked.fallback is None
    assert not any("no in-force record matches" in w for w in asked.warnings)
    assert ids(rc.recall(LOG_Q, k=5, statuses=["proposed"])) == ["dec-logs"]  # asked for: no note needed
    assert rc.recall(LOG_Q, k=5, fallback=False).results == []
    rc.close()


@pytest.mark.parametrize(
    "query",
    [
        "In which file format do we publish the release notes?",
        "Which framework do we build the mobile app with?",
        "How is the file server backed up every night?",
        "Do the build machines have GPUs?",
    ],
)
def test_retired_records_never_fall_back(kb, query):
    rc = Recaller(kb.path)
    res = rc.recall(query, k=5)
    retired = {"dec-notes-pdf", "dec-flutter", "dec-ftp", "fact-gpu"}
    assert not retired & set(ids(res)) and all(r["status"] == "proposed" for r in res.results if res.fallback)
    found = {  # the records are there: asked for, they come back (so the default's absence means something)
        r["id"] for r in rc.recall(query, k=5, statuses=["superseded", "rejected", "deprecated", "invalidated"]).results
    }
    assert found & retired
    rc.close()


def test_task_recall_falls_back_per_concern(kb):
    rc = Recaller(kb.path)
    res = recall_task(rc, "Add an orders report; it reads the orders database and writes JSON log lines", k=5)
    got = {r["id"]: r for r in res["results"]}
    assert "dec-db" in got and got["dec-db"]["status"] == "accepted"
    assert "dec-logs" in got and got["dec-logs"]["status"] == "proposed"
    assert got["dec-logs"]["why"]["semantic"]["fallback"] == "proposed"
    assert res["fallback"] and all(label.startswith("concern: ") for label in res["fallback"])
    assert any("no in-force record matches" in w for w in res["warnings"])
    assert "dec-db-next" not in got  # its concern had an in-force answer
    none = recall_task(rc, "bake a chocolate cake for the party")
    assert none["status"] == "no-matches" and none["fallback"] == []
    rc.close()


def test_setting_turns_the_fallback_off(kb):
    kb.write("jgm.toml", "proposed_fallback = false\n")
    kb.commit("no fallback")
    Seeder(kb.path).seed()
    rc = Recaller(kb.path)
    assert rc.settings.proposed_fallback is False
    assert rc.recall(LOG_Q, k=5).results == []
    rc.close()
    kb.write("jgm.toml", 'proposed_fallback = "yes"\n')
    p = jgm_in("check", cwd=kb.path)
    assert p.returncode != 0 and "proposed_fallback" in p.stderr + p.stdout and "true or false" in p.stderr + p.stdout


def test_cli_text_and_json_mark_the_fallback(kb):
    p = jgm_in("recall", LOG_Q, cwd=kb.path)
    assert p.returncode == 0, p.stderr
    assert "these are proposed, not in force" in p.stdout and "decision/proposed" in p.stdout
    assert "no in-force record matches" in p.stderr
    rc, data = jgm_json_in("recall", LOG_Q, cwd=kb.path)
    assert rc == 0 and data["fallback"] == "proposed" and data["results"][0]["status"] == "proposed"
    rc, db = jgm_json_in("recall", DB_Q, cwd=kb.path)
    assert rc == 0 and db["fallback"] is None and [r["id"] for r in db["results"]] == ["dec-db"]
    rc, asked = jgm_json_in("recall", LOG_Q, "--status", "accepted", cwd=kb.path)
    assert rc == 0 and asked["status"] == "no-matches" and asked["results"] == [] and asked["fallback"] is None
    t = jgm_in("recall-task", "--goal", LOG_Q, cwd=kb.path)
    assert t.returncode == 0 and "decision/proposed · not in force" in t.stdout, t.stdout + t.stderr


def test_api_and_mcp_carry_the_fallback(kb, jgm_home):
    server = Server([kb.path], jgm_home)
    try:
        with server.client() as c:
            base = f"/v1/workspaces/{workspace_id(kb.path)}"
            r = c.post(base + "/recall", json={"query": LOG_Q})
            assert r.status_code == 200, r.text
            body = r.json()
            assert body["fallback"] == "proposed" and body["results"][0]["id"] == "dec-logs"
            assert any("not in force" in w for w in body["warnings"])
            t = c.post(base + "/recall-task", json={"goal": LOG_Q})
            assert t.status_code == 200 and t.json()["fallback"] == ["goal"], t.text
            openapi = c.get("/openapi.json").json()
            assert "fallback" in openapi["components"]["schemas"]["RecallAnswer"]["properties"]
    finally:
        server.stop()

    async def session(client):
        return await client.call_tool("recall", {"query": LOG_Q}), await client.call_tool("recall", {"query": DB_Q})

    logs, db = mcp_run(session, jgm_home, kb)
    data = logs.structured_content
    assert data["fallback"] == "proposed" and data["records"][0]["status"] == "proposed"
    assert json.loads(logs.content[0].text)["fallback"] == "proposed"
    assert db.structured_content.get("fallback") is None  # compact answers leave an empty field out


def test_the_fallback_search_reuses_the_query_vector(kb, monkeypatch):
    """Both searches of a fallback recall use one embedding of the query (the daemon answers agents warm)."""
    rc = Recaller(kb.path)
    rc.recall("warm the model up", k=5)
    asked: list[str] = []
    real = rc.embedder.embed_query

    def counted(query):
        asked.append(query)
        return real(query)

    monkeypatch.setattr(rc.embedder, "embed_query", counted)
    logs = rc.recall(LOG_Q, k=5)
    assert ids(logs) == ["dec-logs"] and logs.fallback == "proposed"
    assert asked == [LOG_Q]
    rc.close()
