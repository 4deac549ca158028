"""The local HTTP API, end to end: `jgm serve` as a real process on 127.0.0.1, real seeded repos, real model."""

from __future__ import annotations

import concurrent.futures
import json
import os
import stat

import pytest
from api_helpers import Server, error_code, make_alpha, make_beta, raw_get, seed_in_process, workspace_id
from conftest import Repo

pytestmark = pytest.mark.e2e

DB_QUESTION = "Which database engine stores our primary data?"


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """One store, three seeded repos (alpha, beta, gamma for seeding), one server serving all three."""
    base = tmp_path_factory.mktemp("api")
    home = base / "home"
    home.mkdir()
    alpha, beta = make_alpha(base / "alpha"), make_beta(base / "beta")
    gamma = Repo(base / "gamma")
    gamma.record("dec-g-first", title="Deploy with Helm charts", body="Deployments use Helm charts in the infra repo.")
    gamma.commit("gamma")
    for r in (alpha, beta, gamma):
        seed_in_process(r.path, home)
    server = Server([alpha.path, beta.path, gamma.path], home)
    ns = type("Env", (), {})()
    ns.home, ns.server, ns.alpha, ns.beta, ns.gamma = home, server, alpha, beta, gamma
    ns.A, ns.B, ns.G = workspace_id(alpha.path), workspace_id(beta.path), workspace_id(gamma.path)
    ns.http = server.client()
    yield ns
    ns.http.close()
    server.stop()


def ws(env, wsid: str, rest: str = "") -> str:
    return f"/v1/workspaces/{wsid}{rest}"


# -- auth ----------------------------------------------------------------------------------------------


def test_health_needs_no_token_and_everything_else_does(env):
    anon = env.server.client(token=None)
    h = anon.get("/v1/health")
    assert h.status_code == 200 and h.json()["status"] == "ok"
    r = anon.post(ws(env, env.A, "/recall"), json={"query": DB_QUESTION})
    assert r.status_code == 401 and error_code(r) == "auth/missing-token"
    assert r.headers["www-authenticate"].startswith("Bearer")
    bad = env.server.client(token="jgm_not-a-real-token")
    r = bad.get("/v1/workspaces")
    assert r.status_code == 401 and error_code(r) == "auth/invalid-token"


def test_token_files_are_private_and_hold_no_secret(env):
    for name in ("tokens.json", "api-token"):
        mode = stat.S_IMODE(os.stat(env.home / name).st_mode)
        assert mode == 0o600, (name, oct(mode))
    assert env.server.token not in (env.home / "tokens.json").read_text()


def test_token_granted_one_workspace_gets_403_for_another(env):
    from jupiter_git_memory.surfaces.api.tokens import TokenStore

    secret = TokenStore(env.home).create("only-alpha", [env.A, "ghost-0000000000"])
    c = env.server.client(token=secret)
    ok = c.post(ws(env, env.A, "/recall"), json={"query": DB_QUESTION})
    assert ok.status_code == 200 and ok.json()["results"][0]["id"] == "dec-a-db"
    for path in ("/recall", "/records", "/records/dec-b-payments"):
        method = c.post if path == "/recall" else c.get
        r = method(ws(env, env.B, path), **({"json": {"query": "payments"}} if path == "/recall" else {}))
        assert r.status_code == 403 and error_code(r) == "workspace/forbidden", (path, r.text)
    # granted but not served by this server
    r = c.get(ws(env, "ghost-0000000000", "/records"))
    assert r.status_code == 404 and error_code(r) == "workspace/not-found"
    listed = c.get("/v1/workspaces").json()["workspaces"]
    assert [w["id"] for w in listed] == [env.A]


# -- recall, receipts ----------------------------------------------------------------------------------


def test_recall_returns_the_record_with_status_source_and_a_receipt(env):
    r = env.http.post(ws(env, env.A, "/recall"), json={"query": DB_QUESTION, "k": 3})
    assert r.status_code == 200, r.text
    body = r.json()
    top = body["results"][0]
    assert (top["id"], top["status"], top["kind"]) == ("dec-a-db", "accepted", "decision")
    assert top["source"] == "ADR meeting 2026-03-02" and top["path"] == "knowledge/dec-a-db.md"
    ids = [x["id"] for x in body["results"]]
    assert "dec-a-mysql" not in ids  # superseded: excluded by default
    assert body["receipt"]["ids"] == ids and body["workspace"] == env.A
    shown = env.http.get(ws(env, env.A, f"/receipts/{body['receipt']['id']}"))
    assert shown.status_code == 200 and shown.json()["ids"] == ids and shown.json()["query"] == DB_QUESTION
    verified = env.http.post(ws(env, env.A, f"/receipts/{body['receipt']['id']}/verify"))
    assert verified.status_code == 200, verified.text
    assert verified.json()["same"] is True and verified.json()["new_ids"] == ids
    head = env.alpha.git("rev-parse", "HEAD").stdout.strip()
    at = env.http.post(ws(env, env.A, "/recall"), json={"query": DB_QUESTION, "k": 3, "at": "HEAD"}).json()
    assert [x["id"] for x in at["results"]] == ids and at["receipt"]["index"]["at"] == head
    on_commit = env.http.post(ws(env, env.A, f"/receipts/{body['receipt']['id']}/verify?on_commit=true"))
    assert on_commit.json()["same"] is True and on_commit.json()["new_index"]["at"] == head
    bad = env.http.post(ws(env, env.A, "/recall"), json={"query": DB_QUESTION, "at": "no-such-tag"})
    assert bad.status_code == 404 and bad.json()["error"]["code"] == "revision/not-found"


def test_unknown_receipt_is_a_json_404(env):
    for method, path in (
        ("GET", "/receipts/rcpt_00000000000000000000"),
        ("POST", "/receipts/rcpt_00000000000000000000/verify"),
    ):
        r = env.http.request(method, ws(env, env.A, path))
        assert r.status_code == 404 and error_code(r) == "memory/not-found"


def test_workspaces_never_see_each_others_records(env):
    a = env.http.post(ws(env, env.A, "/recall"), json={"query": "Which payment processor handles card refunds?"})
    b = env.http.post(ws(env, env.B, "/recall"), json={"query": DB_QUESTION})
    b2 = env.http.post(ws(env, env.B, "/recall"), json={"query": "Which payment processor handles card refunds?"})
    assert not any(x["id"].startswith(("dec-b", "fact-b", "dec-g")) for x in a.json()["results"])
    assert not any(x["id"].startswith(("dec-a", "fact-a", "hist-a")) for x in b.json()["results"])
    assert b2.json()["results"][0]["id"] == "dec-b-payments"
    assert env.http.get(ws(env, env.B, "/records/dec-a-db")).status_code == 404


def test_recall_task_and_context(env):
    t = env.http.post(
        ws(env, env.A, "/recall-task"),
        json={"goal": "add a table to the primary database", "errors": ["relation does not exist"]},
    )
    assert t.status_code == 200, t.text
    assert t.json()["status"] == "ok" and "dec-a-db" in [x["id"] for x in t.json()["results"]]
    c = env.http.post(
        ws(env, env.A, "/context"), json={"goal": "choose where to store primary data", "budget_tokens": 400}
    )
    assert c.status_code == 200, c.text
    assert "dec-a-db" in [x["id"] for x in c.json()["records"]] and "PostgreSQL" in c.json()["text"]
    r = env.http.post(ws(env, env.A, "/context"), json={"goal": "x", "budget_tokens": 5})
    assert r.status_code == 422 and error_code(r) == "request/invalid"


# -- records -------------------------------------------------------------------------------------------


def test_get_record_has_body_and_effective_status(env):
    r = env.http.get(ws(env, env.A, "/records/dec-a-mysql"))
    assert r.status_code == 200
    rec = r.json()["record"]
    assert rec["status"] == "superseded" and rec["declared_status"] == "accepted"
    assert "MySQL 5.7" in rec["body"] and rec["commit"] == env.alpha.git("rev-parse", "HEAD").stdout.strip()
    missing = env.http.get(ws(env, env.A, "/records/dec-nope"))
    assert missing.status_code == 404 and error_code(missing) == "memory/not-found"


def test_list_records_filters_and_pages(env):
    def ids(**params):
        r = env.http.get(ws(env, env.A, "/records"), params=params)
        assert r.status_code == 200, r.text
        return [x["id"] for x in r.json()["records"]], r.json()

    everything, page = ids()
    assert page["total"] == 7 and everything == sorted(everything)
    assert ids(kind="fact")[0] == ["fact-a-old-port", "fact-a-port"]
    assert ids(status="superseded")[0] == ["dec-a-mysql"]
    assert ids(status="invalidated")[0] == ["fact-a-old-port"]
    assert ids(tag="db")[0] == ["dec-a-db", "dec-a-mysql", "hist-a-2019"]
    assert ids(tag="db", kind="decision", status="accepted")[0] == ["dec-a-db"]
    seen, offset = [], 0
    while offset is not None:
        got, page = ids(limit=3, offset=offset)
        assert len(got) <= 3 and page["total"] == 7
        seen += got
        offset = page["next_offset"]
    assert seen == everything
    r = env.http.get(ws(env, env.A, "/records"), params={"kind": "nonsense"})
    assert r.status_code == 422 and error_code(r) == "request/invalid"
    r = env.http.get(ws(env, env.A, "/records"), params={"limit": 0})
    assert r.status_code == 422


def test_relations_show_the_supersede_graph_with_effective_statuses(env):
    old = env.http.get(ws(env, env.A, "/records/dec-a-mysql/relations")).json()
    assert old["status"] == "superseded"
    assert [(e["id"], e["status"], e["retires"]) for e in old["superseded_by"]] == [("dec-a-db", "accepted", True)]
    assert old["current"] == ["dec-a-db"]
    new = env.http.get(ws(env, env.A, "/records/dec-a-db/relations")).json()
    assert [(e["id"], e["status"], e["retires"]) for e in new["supersedes"]] == [("dec-a-mysql", "superseded", True)]
    assert new["superseded_by"] == [] and new["current"] == ["dec-a-db"]
    # a proposed superseder is shown but retires nothing
    cache = env.http.get(ws(env, env.A, "/records/dec-a-cache/relations")).json()
    assert cache["status"] == "accepted"
    assert [(e["id"], e["status"], e["retires"]) for e in cache["superseded_by"]] == [
        ("dec-a-redis", "proposed", False)
    ]
    assert cache["current"] == ["dec-a-cache"]


# -- seeding ---------------------------------------------------------------------------------------------


def test_seed_endpoint_indexes_a_new_commit_while_recalls_continue(env):
    env.gamma.record(
        "dec-g-argo",
        title="Roll out with Argo CD",
        body="Production rollouts are driven by Argo CD syncing the Helm charts from the infra repository.",
    )
    head = env.gamma.commit("add argo")

    def recall_loop(wsid, query, n=6):
        return [env.http.post(ws(env, wsid, "/recall"), json={"query": query}).status_code for _ in range(n)]

    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        others = [pool.submit(recall_loop, env.A, DB_QUESTION), pool.submit(recall_loop, env.B, "card refunds")]
        seeded = env.http.post(ws(env, env.G, "/seed"), json={})
        statuses = [s for f in others for s in f.result()]
    assert seeded.status_code == 200, seeded.text
    assert seeded.json()["added"] == ["dec-g-argo"] and seeded.json()["commit"] == head
    assert statuses == [200] * len(statuses)
    r = env.http.post(ws(env, env.G, "/recall"), json={"query": "How are production rollouts done?"})
    assert r.json()["results"][0]["id"] == "dec-g-argo" and r.json()["receipt"]["index"]["commit"] == head
    info = env.http.get(ws(env, env.G)).json()
    assert info["records"] == 2 and info["last_seeded_commit"] == head


# -- request hygiene -----------------------------------------------------------------------------------


def test_oversize_bodies_get_413_json(env):
    big = {"query": "x" * (300 * 1024)}
    r = env.http.post(ws(env, env.A, "/recall"), json=big)
    assert r.status_code == 413 and error_code(r) == "request/too-large"

    def chunks():  # no Content-Length: the limit must hold for chunked uploads too
        for _ in range(40):
            yield b"a" * 8192

    r = env.http.post(ws(env, env.A, "/recall"), content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413 and error_code(r) == "request/too-large"


def test_bad_ids_and_unknown_routes_are_json_errors(env):
    for bad in (".hidden", "a%20b", "-dash", "x" * 200):
        r = env.http.get(ws(env, env.A, f"/records/{bad}"))
        assert r.status_code == 422 and error_code(r) == "request/invalid", (bad, r.text)
        assert r.json()["error"]["details"][0]["loc"] == ["path", "record_id"]
    # traversal attempts, sent byte for byte: refused by the id pattern or matched by no route
    status, body = raw_get(env.server.url, ws(env, env.A, "/records/.."), env.server.token)
    assert (status, body["error"]["code"]) == (422, "request/invalid")
    status, body = raw_get(env.server.url, ws(env, env.A, "/records/..%2F..%2Fapi-token"), env.server.token)
    assert (status, body["error"]["code"]) == (404, "route/not-found")
    status, body = raw_get(env.server.url, ws(env, env.A, "/receipts/..%2F..%2Fapi-token/verify"), env.server.token)
    assert status == 404 and body["error"]["code"] == "route/not-found"
    r = env.http.get("/v1/nowhere")
    assert r.status_code == 404 and error_code(r) == "route/not-found"
    r = env.http.put(ws(env, env.A, "/records/dec-a-db"), json={})
    assert r.status_code == 405 and error_code(r) == "route/method-not-allowed"
    r = env.http.post(ws(env, env.A, "/recall"), json={"query": "db", "k": 0, "surprise": 1})
    assert r.status_code == 422 and error_code(r) == "request/invalid"
    assert {tuple(d["loc"]) for d in r.json()["error"]["details"]} == {("body", "k"), ("body", "surprise")}
    r = env.http.post(ws(env, env.A, "/recall"), content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 422 and error_code(r) == "request/invalid"
    r = env.http.get("/v1/workspaces/bad..id%2F/records")
    assert r.status_code in (403, 404, 422) and "error" in r.json()


def test_openapi_schema_documents_auth_and_error_shape(env):
    schema = env.http.get("/openapi.json").json()
    assert "bearer" in schema["components"]["securitySchemes"]
    recall = schema["paths"]["/v1/workspaces/{workspace}/recall"]["post"]
    assert recall["responses"]["422"]["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorBody")
    assert "HTTPValidationError" not in schema["components"]["schemas"]


# -- schema-driven fuzzing -----------------------------------------------------------------------------


def _outside_the_repo(case, response) -> bool:
    """A schema-valid body naming an absolute path (cwd or a file) outside the workspace's repository: the
    API refuses it with 400 `request/path-outside-repo`, which the schema cannot express (it depends on where
    the repository is), so only that answer to only such a body is not a rejected valid request."""
    if response.status_code != 400 or not isinstance(case.body, dict):
        return False
    named = [case.body.get("cwd"), *(case.body.get("files") or [])]
    absolute = any(isinstance(p, str) and p.startswith("/") for p in named)
    return absolute and response.json()["error"]["code"] == "request/path-outside-repo"


def test_schemathesis_finds_no_server_errors(env):
    """Positive and negative cases for every operation in the OpenAPI schema: no 5xx; status codes, content
    types and bodies conform to the schema; schema-valid requests to recall/records/admin are accepted.

    Not checked: `negative_data_rejection` (we override the generated Authorization header with a valid token,
    which can turn a negative case valid, and unknown query parameters are ignored by design), and
    `positive_data_acceptance` on the candidate routes (their checks refuse schema-valid low-signal text with
    422 on purpose)."""
    import schemathesis
    from hypothesis import HealthCheck, given, settings
    from schemathesis.generation import GenerationMode
    from schemathesis.specs.openapi.checks import negative_data_rejection, positive_data_acceptance

    raw = env.http.get("/openapi.json").json()
    schema = schemathesis.openapi.from_dict(raw)
    auth = {"Authorization": f"Bearer {env.server.token}"}
    failures: list[str] = []
    ran = 0
    for result in schema.get_all_operations():
        op = result.ok()
        fixed = {"workspace": env.G} if "{workspace}" in op.path else None  # gamma: writes land there
        excluded = [negative_data_rejection]
        if "/candidates" in op.path or op.method.upper() in ("PATCH", "DELETE"):
            excluded.append(positive_data_acceptance)
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            strategy = op.as_strategy(mode, path_parameters=fixed)

            @settings(
                max_examples=8, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck)
            )
            @given(case=strategy)
            def run(case):
                nonlocal ran
                ran += 1
                try:
                    response = case.call(base_url=env.server.url, headers=auth)
                    skip = [positive_data_acceptance] if _outside_the_repo(case, response) else []
                    case.validate_response(response, excluded_checks=excluded + skip)
                except (Exception, BaseExceptionGroup) as e:  # collect, so one report names every failing operation
                    failures.append(f"{op.method.upper()} {op.path} [{mode.value}]: {str(e)[:600]}")
                    raise

            try:
                run()
            except (Exception, BaseExceptionGroup):  # recorded in `failures` (FailureGroup is an exception group)
                pass
    assert ran > 100
    assert not failures, "\n\n".join(failures)


def test_token_commands_take_effect_without_restart(env, monkeypatch):
    from typer.testing import CliRunner

    from jupiter_git_memory.surfaces.cli.main import app

    monkeypatch.setenv("JGM_HOME", str(env.home))
    cli = CliRunner()
    made = cli.invoke(app, ["token", "create", "ci-bot", "-w", env.A])
    assert made.exit_code == 0, made.output
    c = env.server.client(token=made.stdout.strip())
    assert c.get(ws(env, env.B, "/records")).status_code == 403
    assert cli.invoke(app, ["token", "grant", "ci-bot", env.B]).exit_code == 0
    assert c.get(ws(env, env.B, "/records")).status_code == 200
    listed = cli.invoke(app, ["token", "list", "--json"])
    tokens = {t["name"]: t for t in json.loads(listed.stdout)["tokens"]}
    assert tokens["ci-bot"]["workspaces"] == sorted([env.A, env.B])
    assert cli.invoke(app, ["token", "revoke", "ci-bot"]).exit_code == 0
    r = c.get(ws(env, env.A, "/records"))
    assert r.status_code == 401 and error_code(r) == "auth/invalid-token"


# -- issue 10: grants hold for global workspaces, and the open routes are the documented ones -----------


def test_global_results_come_only_from_workspaces_the_token_is_granted(env):
    """A workspace marked global is shared with its readers, not with every token (nor through a server
    that does not serve it)."""
    from jupiter_git_memory.surfaces.api.tokens import TokenStore

    delta = Repo(env.home.parent / "delta")
    delta.write("jgm.toml", "global = true\n")
    delta.record(
        "dec-d-style",
        title="All teams use Black for Python formatting",
        body="Python code across the company is formatted with Black.",
    )
    delta.commit("delta")
    seed_in_process(delta.path, env.home)
    D = workspace_id(delta.path)
    ask = {"goal": "how should I format python code?", "include_global": True}
    only_a = env.server.client(token=TokenStore(env.home).create("only-a-global", [env.A]))
    r = only_a.post(ws(env, env.A, "/recall-task"), json=ask)
    assert r.status_code == 200 and r.json()["global_results"] == []
    both = env.server.client(token=TokenStore(env.home).create("a-and-delta", [env.A, D]))
    r = both.post(ws(env, env.A, "/recall-task"), json=ask)
    assert [(g["workspace"], g["id"]) for g in r.json()["global_results"]] == [(D, "dec-d-style")]


def test_the_routes_open_without_a_token_are_exactly_those_the_api_page_names(env):
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "docs" / "api.md").read_text("utf-8")
    sentence = next(s for s in readme.split("\n\n") if "Every route except" in s)
    documented = set(re.findall(r"`GET (/[^`\s]*)`", sentence))
    anon = env.server.client(token=None)
    paths = {
        p.replace("{workspace}", env.A).replace("{record_id}", "dec-a-db").replace("{receipt_id}", "x")
        for p in env.http.get("/openapi.json").json()["paths"]
    }
    candidates = paths | {"/docs", "/redoc", "/openapi.json", "/docs/oauth2-redirect"}
    open_ = {p for p in candidates if anon.get(p).status_code not in (401, 404, 405)}
    assert open_ == documented, (open_, documented)
