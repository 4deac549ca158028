"""The review UI in a real headless Chromium (Debian's, launched by Playwright) against a real `jgm serve`
on 127.0.0.1 with real git repos: login, the queue, propose, reject, relations, the recall inspector,
untrusted Markdown, CSRF and workspace scoping. One browser and one server for the module."""

from __future__ import annotations

import re

import pytest
from conftest import run_git
from web_helpers import Attacker, Env, csrf_of, http_login, logged_in, shot

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    e = Env(tmp_path_factory.mktemp("web-ui"))
    yield e
    e.close()


def test_login_gives_an_httponly_strict_session_cookie_and_never_the_token(browser, env):
    c = browser.new_context()
    p = c.new_page()
    p.goto(f"{env.ui}/w/{env.ws_a}/records")
    assert "/ui/login" in p.url  # no session: to the login page, and back here after it
    p.fill("#token", "jgm_not-a-real-token")
    p.click("form button[type=submit]")
    assert "unknown token" in p.inner_text("[role=alert]")
    p.fill("#token", env.server.token)
    p.click("form button[type=submit]")
    p.wait_for_url(f"{env.ui}/w/{env.ws_a}/records")
    assert "dec-a-db" in p.inner_text("#records")
    cookies = {k["name"]: k for k in c.cookies()}
    session = cookies["jgm_ui"]
    assert session["httpOnly"] and session["sameSite"] == "Strict" and session["path"] == "/ui/"
    assert env.server.token not in session["value"]
    assert p.evaluate("document.cookie") == ""  # HttpOnly: script cannot read it
    c.close()


def test_queue_lists_open_candidates_oldest_first_with_their_warnings(page, env):
    page.goto(f"{env.ui}/w/{env.ws_a}/")
    rows = page.locator("#queue tbody tr")
    ids = [rows.nth(i).get_attribute("data-id") for i in range(rows.count())]
    wanted = [env.ids[n] for n in ("redis", "friday", "xss", "target")]
    assert [i for i in ids if i in wanted] == wanted
    first = rows.nth(ids.index(env.ids["redis"]))
    text = first.inner_text()
    assert "decision" in text and "codex-7" in text and "Keep user sessions in Redis" in text
    assert "similar to proposed decision dec-a-redis" in text  # the validation warning from recording
    page.keyboard.press("j")  # keyboard: j focuses the first row's link
    assert page.evaluate("document.activeElement.classList.contains('rowlink')")
    shot(page, "queue")


def test_propose_from_the_browser_makes_the_branch_in_the_real_repo(page, env):
    head_before = run_git(env.alpha.path, "rev-parse", "HEAD").stdout
    page.goto(f"{env.ui}/w/{env.ws_a}/candidates/{env.ids['redis']}")
    assert "Memcached drops every session" in page.inner_text("#candidate-body")
    assert page.locator("#near .pair").count() >= 1  # side by side with dec-a-redis
    assert "dec-a-redis" in page.inner_text("#near")
    page.check("input[name=status][value=accepted]")
    page.check("input[name=open_pr]")  # enabled: the server finds `gh` on its PATH
    page.click("#propose-form button[type=submit]")
    branch = page.inner_text("#proposed-branch")
    assert branch.startswith("jgm/dec-")
    assert page.inner_text("#pr-url") == "https://github.example/org/alpha/pull/7"
    shot(page, "proposed")
    pushed = run_git(env.remote, "rev-parse", f"refs/heads/{branch}").stdout.strip()
    assert pushed == run_git(env.alpha.path, "rev-parse", branch).stdout.strip()
    files = run_git(env.alpha.path, "show", "--name-only", "--format=", branch).stdout.split()
    assert len(files) == 1 and files[0].startswith("knowledge/decisions/")
    content = run_git(env.alpha.path, "show", f"{branch}:{files[0]}").stdout
    assert "status: accepted" in content and f"candidate: {env.ids['redis']}" in content
    assert run_git(env.alpha.path, "rev-parse", "HEAD").stdout == head_before
    assert run_git(env.alpha.path, "status", "--porcelain").stdout == ""
    c = env.candidate("redis")
    assert c["state"] == "proposed" and c["proposal"]["branch"] == branch
    page.goto(f"{env.ui}/w/{env.ws_a}/candidates/{env.ids['redis']}")  # the page keeps showing the proposal
    assert branch in page.inner_text("aside") and "gh pr create" in page.inner_text("aside")


def test_reject_with_a_reason(page, env):
    page.goto(f"{env.ui}/w/{env.ws_a}/candidates/{env.ids['friday']}")
    page.fill("#why", "Team policy lives in the handbook, not in agent memory.")
    page.click("#reject-form button[type=submit]")
    assert "Done: rejected" in page.inner_text("[role=status]")
    assert env.ids["friday"] not in page.inner_text("#queue")
    c = env.candidate("friday")
    assert (c["state"], c["reason"]) == ("rejected", "Team policy lives in the handbook, not in agent memory.")


def test_a_records_relations_are_a_graph_you_can_follow_by_keyboard(page, env):
    page.goto(f"{env.ui}/w/{env.ws_a}/records/dec-a-db")
    assert "declared accepted" in page.inner_text("#status-why")
    link = page.locator("svg.graph a[href$='/records/dec-a-mysql']")
    assert link.count() == 1
    shot(page, "record")
    link.focus()
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r".*/records/dec-a-mysql$"))
    assert page.inner_text("#effective") == "superseded"
    assert "superseded by dec-a-db (accepted)" in page.inner_text("#status-why")
    assert page.locator("svg.graph a[href$='/records/dec-a-db']").count() == 1


def test_recall_inspector_shows_evidence_cuts_and_a_verifiable_receipt(page, env):
    page.goto(f"{env.ui}/w/{env.ws_a}/recall")
    page.fill("#q", "Which database do we use?")
    page.click("#recall-form button[type=submit]")
    results = page.inner_text("#results")
    assert "dec-a-db" in results and "COS" in results.upper() and "WEIGHT" in results.upper()
    assert page.inner_text("#floor-source").strip()
    cut = page.inner_text("#cut")
    assert "dec-a-mysql" in cut and "filter: status superseded" in cut
    shot(page, "recall")
    page.click("#receipt-link")
    page.click("#verify-link")
    assert "Same answer" in page.inner_text("#verify-result")


def test_untrusted_candidate_markdown_renders_inert(page, env):
    msgs = []
    page.on("dialog", lambda d: (msgs.append(d.message), d.dismiss()))
    page.goto(f"{env.ui}/w/{env.ws_a}/candidates/{env.ids['xss']}")
    body = page.locator("#candidate-body")
    assert "<script>window.__pwned = 1</script>" in body.inner_text()
    assert body.locator("script, img").count() == 0
    assert page.locator("a[href^='javascript:']").count() == 0
    assert page.evaluate("window.__pwned") is None and not msgs


def test_a_cross_site_post_without_the_csrf_token_is_refused_and_changes_nothing(page, env):
    action = f"{env.ui}/w/{env.ws_a}/candidates/{env.ids['target']}/reject"
    attacker = Attacker(action, {"why": "forged by another site"})
    try:
        with page.expect_response(action) as info:
            page.goto(attacker.url)
        assert info.value.status == 403
    finally:
        attacker.close()
    assert "csrf/" in page.inner_text("h1")
    # same origin but no token (a script on our own origin, or a stale form): refused as well
    page.goto(f"{env.ui}/w/{env.ws_a}/")
    status = page.evaluate(
        """async (url) => (await fetch(url, {method: 'POST',
        body: new URLSearchParams({why: 'no token'})})).status""",
        action,
    )
    assert status == 403
    c = env.candidate("target")
    assert (c["state"], c["reason"]) == ("open", None)


def test_a_token_for_workspace_a_cannot_open_workspace_b(browser, env):
    c, p = logged_in(browser, env.ui, env.token_a)
    assert f"/ui/w/{env.ws_a}/" in p.url  # the only granted workspace
    for path in ("/", "/records", "/records/dec-b-payments", "/recall", "/health"):
        resp = p.goto(f"{env.ui}/w/{env.ws_b}{path}")
        assert resp.status == 403, path
        assert "workspace/forbidden" in p.inner_text("h1")
        assert "Stripe" not in p.content()
    c.close()


def test_forms_need_the_session_csrf_token_and_a_revoked_token_ends_the_session(env):
    """Plain HTTP (no browser): the guards run before any service call, so a refused POST changes nothing."""
    import httpx

    from jupiter_git_memory.surfaces.api.tokens import TokenStore

    secret = TokenStore(env.home).create("revoke-me", [env.ws_a])
    action = f"/ui/w/{env.ws_a}/candidates/{env.ids['target']}/reject"
    with httpx.Client(base_url=env.server.url, timeout=60) as c:
        http_login(c, secret)
        csrf = csrf_of(c.get(f"/ui/w/{env.ws_a}/candidates/{env.ids['target']}").text)
        assert c.post(action, data={"why": "no token"}).status_code == 403
        assert (
            c.post(action, data={"why": "forged", "csrf": csrf}, headers={"origin": "http://evil.example"}).status_code
            == 403
        )
        assert c.post(action, data={"why": "stale", "csrf": csrf + "x"}).status_code == 403
        assert env.candidate("target")["state"] == "open"
        # with the token, revise and forget go through the candidate service (re-checked like a new one)
        made = env.http.post(
            f"/v1/workspaces/{env.ws_a}/candidates",
            json={
                "kind": "decision",
                "title": "Lint commit messages in CI",
                "agent": "codex-7",
                "body": "CI lints commit messages because release notes are generated from them.",
            },
        ).json()["id"]
        page = f"/ui/w/{env.ws_a}/candidates/{made}"
        r = c.post(
            page + "/revise",
            data={
                "csrf": csrf,
                "title": "Lint commit messages with commitlint in CI",
                "body": "CI runs commitlint because release notes are generated from commit messages.",
                "tags": "ci, release",
            },
        )
        assert r.status_code == 303
        got = env.http.get(f"/v1/workspaces/{env.ws_a}/candidates/{made}").json()["candidate"]
        assert (got["title"], got["tags"]) == ("Lint commit messages with commitlint in CI", ["ci", "release"])
        assert got["provenance"]["agent"] == "codex-7" and got["revisions"][0]["agent"] == "reviewer:revoke-me"
        assert re.search(r'id="revisions".*reviewer:revoke-me</strong> changed title, body, tags', c.get(page).text)
        r = c.post(page + "/revise", data={"csrf": csrf, "title": "Lint", "body": "TODO"})
        assert r.status_code == 422 and "candidate/" in r.text  # the service's checks answer, not the UI's
        assert c.post(page + "/forget", data={"csrf": csrf}).status_code == 303
        assert env.http.get(f"/v1/workspaces/{env.ws_a}/candidates/{made}").status_code == 404
        r = c.post(f"/ui/w/{env.ws_a}/candidates/dec-a-db/forget", data={"csrf": csrf})
        assert r.status_code == 409 and "memory/file-backed" in r.text
        TokenStore(env.home).revoke("revoke-me")
        r = c.get(f"/ui/w/{env.ws_a}/")
        assert r.status_code == 303 and "/ui/login" in r.headers["location"]
        assert c.post(action, data={"why": "after revoke", "csrf": csrf}).status_code == 403
    assert env.candidate("target")["state"] == "open"


def test_records_filters_and_health_with_the_doctor_summary(env):
    import time

    import httpx

    head = run_git(env.alpha.path, "rev-parse", "HEAD").stdout.strip()
    with httpx.Client(base_url=env.server.url, timeout=60) as c:
        http_login(c, env.server.token)
        deadline = time.monotonic() + 90
        while True:
            html = c.get(f"/ui/w/{env.ws_a}/health").text
            if "data-doctor-running" not in html or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        found = {
            q: re.findall(
                r'class="rowlink" href="[^"]+/records/([^"]+)"', c.get(f"/ui/w/{env.ws_a}/records", params=q).text
            )
            for q in ("q=replication", "q=dec-a-mysql", "tag=cache", "kind=fact&status=invalidated")
        }
    assert found == {
        "q=replication": ["dec-a-db"],
        "q=dec-a-mysql": ["dec-a-mysql"],
        "tag=cache": ["dec-a-cache", "dec-a-redis"],
        "kind=fact&status=invalidated": ["fact-a-old-port"],
    }
    assert head[:12] in html and "shipped-default" in html
    assert re.search(r'records\?kind=decision&(amp;)?status=superseded">1<', html)  # counts link to the filtered list
    assert "consistent" in html and "vectors" in html  # the doctor's verdict and counts
