"""The candidate flow through the HTTP API (`jgm serve`, real HTTP on 127.0.0.1) and MCP (`jgm mcp` over stdio,
driven by the official SDK client): decisions, secrets never stored, file-backed errors."""

from __future__ import annotations

import pytest
from api_helpers import Server, error_code, mcp_run, seed_in_process, workspace_id
from candidates_helpers import CACHE_FACT, CACHE_PARAPHRASE, RETRY_PARAPHRASE, RETRY_RECORD, files_containing
from conftest import Repo

pytestmark = pytest.mark.e2e

SECRET = "ghp_" + "Qw7Er5Ty3Ui1Op9As8Df6Gh4Jk2Lz0Xc5Vb7"
RID, RPATH = RETRY_RECORD[0], f"knowledge/decisions/{RETRY_RECORD[0]}.md"


def make_repo(path) -> Repo:
    r = Repo(path)
    rid, title, body = RETRY_RECORD
    r.record(rid, rel=RPATH, title=title, body=body, source="src/upload.py")
    r.commit("knowledge")
    return r


def body(title, text, **kw):
    return {"kind": "fact", "title": title, "body": text, "source": "ci.yml", "agent": "agent-1", **kw}


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    base = tmp_path_factory.mktemp("cand-api")
    home = base / "home"
    home.mkdir()
    repo = make_repo(base / "repo")
    seed_in_process(repo.path, home)
    server = Server([repo.path], home)
    ns = type("Env", (), {})()
    ns.home, ns.repo, ns.server, ns.http = home, repo, server, server.client()
    ns.ws = f"/v1/workspaces/{workspace_id(repo.path)}"
    yield ns
    ns.http.close()
    server.stop()


def test_api_record_validate_and_their_status_codes(api):
    h, ws = api.http, api.ws
    r = h.post(f"{ws}/candidates", json=body(*CACHE_FACT, run_key="r1"))
    assert r.status_code == 201, r.text
    created = r.json()
    assert (created["decision"], created["written"], created["indexed"]) == ("created", True, True)
    r = h.post(f"{ws}/candidates", json=body(*CACHE_FACT, run_key="r1"))
    assert r.status_code == 200 and (r.json()["id"], r.json()["replayed"], r.json()["written"]) == (
        created["id"],
        True,
        False,
    )
    r = h.post(f"{ws}/candidates", json=body(*CACHE_PARAPHRASE, agent="agent-2", run_key="r2"))
    assert r.status_code == 200 and (r.json()["decision"], r.json()["id"]) == ("merged", created["id"])
    r = h.post(f"{ws}/candidates/validate", json=body(*RETRY_PARAPHRASE))
    assert r.status_code == 200 and (r.json()["decision"], r.json()["written"], r.json()["matched"]["id"]) == (
        "skipped",
        False,
        RID,
    )
    r = h.post(
        f"{ws}/candidates",
        json={
            "kind": "decision",
            "title": "Use Redis for sessions",
            "body": "The session store moves to Redis in the next release.",
        },
    )
    assert r.status_code == 422 and error_code(r) == "candidate/missing-rationale"
    assert r.json()["answer"]["decision"] == "rejected"
    r = h.post(f"{ws}/candidates", json={**body(*CACHE_FACT), "kind": "opinion"})
    assert r.status_code == 422 and error_code(r) == "request/invalid"
    listing = h.get(f"{ws}/candidates").json()["candidates"]
    assert [c["id"] for c in listing] == [created["id"]] and len(listing[0]["evidence"]) == 2
    shown = h.get(f"{ws}/candidates/{created['id']}").json()["candidate"]
    assert shown["state"] == "open" and shown["kind"] == "fact"


def test_api_secret_is_rejected_and_never_stored(api):
    r = api.http.post(
        f"{api.ws}/candidates",
        json=body("Registry login for the deploy job", f"The deploy job logs in with {SECRET} to push images."),
    )
    assert r.status_code == 422 and error_code(r) == "candidate/secret" and SECRET not in r.text
    r = api.http.post(
        f"{api.ws}/candidates/validate",
        json=body("Registry login for the deploy job", "Pushes use the bot token.", evidence=[SECRET]),
    )
    assert r.status_code == 200 and r.json()["reason_code"] == "secret" and SECRET not in r.text
    assert files_containing(api.home, "Registry login") == []  # not even the title of a rejected candidate
    assert files_containing(api.home, SECRET) == []


def test_api_file_backed_records_answer_with_the_file_and_commit(api):
    head = api.repo.git("rev-parse", "HEAD").stdout.strip()
    for r in (
        api.http.patch(f"{api.ws}/records/{RID}", json={"title": "Retry uploads forever"}),
        api.http.delete(f"{api.ws}/records/{RID}"),
    ):
        assert r.status_code == 409 and error_code(r) == "memory/file-backed"
        err = r.json()["error"]
        assert (err["path"], err["commit"]) == (RPATH, head) and RPATH in err["message"]
    r = api.http.delete(f"{api.ws}/records/cand-000000000000")
    assert r.status_code == 404 and error_code(r) == "memory/not-found"


def test_api_review_revise_forget_propose_reject(api):
    h, ws = api.http, api.ws
    made = [
        h.post(f"{ws}/candidates", json=body(t, b)).json()["id"]
        for t, b in (
            ("Uploads are split into 8 MiB parts", "The uploader splits files into 8 MiB parts, see `uploader.py`."),
            ("Upload parts are sent in parallel", "Four upload parts are sent in parallel, see `uploader.py` workers."),
            (
                "The uploader verifies each part checksum",
                "Each part's MD5 is checked against the ETag S3 returns, see `uploader.py`.",
            ),
        )
    ]
    r = h.patch(
        f"{ws}/records/{made[0]}",
        json={
            "title": "Uploads are split into 16 MiB parts",
            "body": "The uploader splits files into 16 MiB parts, see `uploader.py`.",
            "agent": "api-reviser",
        },
    )
    assert r.status_code == 200 and r.json()["candidate"]["title"] == "Uploads are split into 16 MiB parts"
    shown = h.get(f"{ws}/candidates/{made[0]}").json()["candidate"]  # the revision is shown, provenance kept
    assert shown["provenance"]["agent"] == "agent-1"
    assert [(x["agent"], x["fields"]) for x in shown["revisions"]] == [("api-reviser", ["title", "body"])]
    # only the recorder forgets its candidate: another agent (or one that names none) gets 403 memory/not-owner
    for params in ({}, {"agent": "agent-2"}):
        r = h.delete(f"{ws}/records/{made[1]}", params=params)
        assert r.status_code == 403 and error_code(r) == "memory/not-owner", r.text
        assert r.json()["error"]["recorded_by"] == "agent-1"
    assert h.get(f"{ws}/candidates/{made[1]}").status_code == 200
    r = h.delete(f"{ws}/records/{made[1]}", params={"agent": "agent-1"})
    assert r.status_code == 200 and r.json()["forgotten"] is True
    assert h.get(f"{ws}/candidates/{made[1]}").status_code == 404
    r = h.post(f"{ws}/candidates/{made[0]}/propose", json={"status": "accepted"})
    assert r.status_code == 200, r.text
    prop = r.json()
    assert prop["status"] == "verified" and api.repo.git("rev-parse", prop["branch"]).stdout.strip() == prop["commit"]
    assert api.repo.git("status", "--porcelain").stdout == ""  # the served checkout is untouched
    r = h.post(f"{ws}/candidates/{made[2]}/reject", json={"why": "the checksum is only verified for small parts"})
    assert r.status_code == 200 and r.json()["candidate"]["state"] == "rejected"
    r = h.post(f"{ws}/candidates/{made[2]}/propose")
    assert r.status_code == 409 and error_code(r) == "memory/invalid-state"
    for rid in made[0], made[2]:  # proposed (it has a branch) and rejected (its reason is kept): never forgotten
        r = h.delete(f"{ws}/records/{rid}", params={"agent": "agent-1"})
        assert r.status_code == 409 and error_code(r) == "memory/invalid-state", r.text
    assert "only verified for small parts" in h.get(f"{ws}/candidates/{made[2]}").json()["candidate"]["reason"]
    states = {c["id"]: c["state"] for c in h.get(f"{ws}/candidates", params={"state": "all"}).json()["candidates"]}
    assert states[made[0]] == "proposed" and states[made[2]] == "rejected" and made[1] not in states
    # the reviewer's conclusions (candidates/review.py), as the review UI offers them
    extra = h.post(
        f"{ws}/candidates",
        json=body("Upload parts retry 3 times", "Each failed part is retried 3 times, see `uploader.py`."),
    ).json()["id"]
    r = h.post(f"{ws}/candidates/{extra}/supersede", json={"target": RID, "reviewer": "api-reviewer"})
    assert r.status_code == 200 and r.json()["candidate"]["supersedes"] == [RID], r.text
    r = h.post(f"{ws}/candidates/{extra}/merge", json={"target": RID})
    assert r.status_code == 400 and error_code(r) == "request/bad-target"  # a file record takes no merge
    r = h.post(f"{ws}/candidates/{extra}/duplicate", json={"target": made[0], "reviewer": "api-reviewer"})
    assert r.status_code == 200 and r.json()["candidate"]["duplicate_of"] == made[0], r.text
    target = h.get(f"{ws}/candidates/{made[0]}").json()["candidate"]
    assert [e["moved_from"] for e in target["evidence"] if e.get("moved_from")] == [extra]


# -- MCP ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mcp_env(tmp_path_factory):
    base = tmp_path_factory.mktemp("cand-mcp")
    home = base / "home"
    home.mkdir()
    repo = make_repo(base / "repo")
    seed_in_process(repo.path, home)
    return home, repo


def text_of(result) -> str:
    return " ".join(c.text for c in result.content if getattr(c, "text", None))


def test_mcp_candidate_tools(mcp_env):
    home, repo = mcp_env
    head = repo.git("rev-parse", "HEAD").stdout.strip()

    async def session(client):
        out = {"tools": {t.name: t for t in (await client.list_tools()).tools}}
        args = {
            "kind": "fact",
            "title": CACHE_FACT[0],
            "body": CACHE_FACT[1],
            "source": "ci.yml",
            "agent": "mcp-agent",
            "run_key": "m1",
        }
        out["validate"] = await client.call_tool("validate_candidate", args)
        out["created"] = await client.call_tool("record_candidate", args)
        out["replay"] = await client.call_tool("record_candidate", args)
        out["skipped"] = await client.call_tool(
            "record_candidate", {**args, "title": RETRY_PARAPHRASE[0], "body": RETRY_PARAPHRASE[1], "run_key": "m2"}
        )
        out["secret"] = await client.call_tool(
            "record_candidate", {**args, "body": f"Pushes log in with {SECRET} as the bot user.", "run_key": "m3"}
        )
        out["revise_file"] = await client.call_tool("revise", {"id": RID, "title": "Retry uploads forever"})
        out["forget_file"] = await client.call_tool("forget", {"id": RID})
        cid = out["created"].structured_content["id"]
        out["revise"] = await client.call_tool("revise", {"id": cid, "tags": ["ci"], "agent": "mcp-reviser"})
        out["forget_other"] = await client.call_tool("forget", {"id": cid, "agent": "mcp-other"})
        out["forget"] = await client.call_tool("forget", {"id": cid, "agent": "mcp-agent"})
        out["forget_again"] = await client.call_tool("forget", {"id": cid, "agent": "mcp-agent"})
        return out

    out = mcp_run(session, home, repo)
    tools = out["tools"]
    assert tools["validate_candidate"].annotations.read_only_hint is True
    assert tools["record_candidate"].annotations.read_only_hint is False
    assert (tools["revise"].annotations.destructive_hint, tools["forget"].annotations.destructive_hint) == (True, True)
    v = out["validate"].structured_content
    assert (v["decision"], v["dry_run"], v["written"]) == ("created", True, False)
    c = out["created"].structured_content
    assert (c["decision"], c["written"], c["indexed"]) == ("created", True, True) and "not a project rule" in c["note"]
    r = out["replay"].structured_content
    assert (r["id"], r["replayed"], r["written"]) == (c["id"], True, False)
    s = out["skipped"].structured_content
    assert (s["decision"], s["written"], s["matched"]["id"]) == ("skipped", False, RID)
    sec = out["secret"].structured_content
    assert (sec["decision"], sec["reason_code"]) == ("rejected", "secret") and SECRET not in text_of(out["secret"])
    for key in ("revise_file", "forget_file"):
        res = out[key]
        assert res.is_error, res
        msg = text_of(res)
        assert "[memory/file-backed]" in msg and RPATH in msg and head[:12] in msg
    revised = out["revise"].structured_content["candidate"]
    assert revised["tags"] == ["ci"] and revised["provenance"]["agent"] == "mcp-agent"
    assert [(x["agent"], x["fields"]) for x in revised["revisions"]] == [("mcp-reviser", ["tags"])]
    assert out["forget_other"].is_error and "[memory/not-owner]" in text_of(out["forget_other"])
    assert out["forget"].structured_content["forgotten"] is True
    assert out["forget_again"].is_error and "[memory/not-found]" in text_of(out["forget_again"])
    assert files_containing(home, SECRET) == []
