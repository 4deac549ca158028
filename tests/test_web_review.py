"""The reviewer's conclusions in a real headless Chromium against a real `jgm serve` and real git repos:
the word diff against near-duplicates, duplicate of / merge into / supersedes, post/redirect/get for every
form, the promoted record <-> candidate links, revision diffs, the doctor panel refreshing in place, recall
modes on a record's page, and a layout that holds from 420 px to 1920 px."""

from __future__ import annotations

import re

import pytest
import yaml
from conftest import run_git
from web_helpers import Env, logged_in, shot

pytestmark = [pytest.mark.e2e, pytest.mark.slow]  # slow: scheduled first (conftest.py)

EXTRA = {  # name -> API body: near-duplicates that disagree (numbers), so none was merged when recorded
    "export_a": (
        "fact",
        "Nightly export peaks at 1,860 requests per minute",
        "The nightly export job peaks at 1,860 requests per minute on 41 workers.",
    ),
    "export_b": (
        "fact",
        "Nightly export peaks at 2,470 requests per minute",
        "The nightly export job peaks at 2,470 requests per minute on 63 workers.",
    ),
    "export_c": (
        "fact",
        "Nightly export peaks at 3,100 requests per minute",
        "The nightly export job peaks at 3,100 requests per minute on 80 workers <b>at most</b>.",
    ),
    "gateway": ("fact", "The API gateway listens on port 9443", "The public API gateway terminates TLS on port 9443."),
    "postgres": (
        "decision",
        "Use PostgreSQL 15 as the primary database",
        "All services store their primary data in PostgreSQL 15 because we need JSONB.",
    ),
    "ttl": (
        "decision",
        "Session cache TTL is 45 minutes",
        "## Context\n\nUser sessions are cached in Memcached with a 45 minute TTL because logins are slow.",
    ),
}
WIDTHS = (420, 768, 1280, 1920)
STRUCTURED = {  # every field an agent may send, markup in some, so the page must show each one as text
    "kind": "finding",
    "title": "Invoice PDFs render blank when the font cache is cold",
    "body": "The first invoice PDF after a deploy renders blank pages until the font cache is warmed.",
    "tags": ["pdf", "fonts"],
    "source": "incident INC-4411 <i>pdf</i>",
    "evidence": ["logs/pdf-worker.txt", "tests/test_pdf.py::test_cold_cache"],
    "agent": "claude-code-reviewer-3",
    "session": "s-pdf-2",
    "work_item": "WI-4411",
    "run_key": "rv-structured",
    "trigger": "Blank invoice <script>window.__pwned = 4</script> after each deploy",
    "change": "The PDF worker warms the font cache at start.\nThe first render waits for it.",
    "verification": "pytest tests/test_pdf.py -k cold_cache passes; 30 deploys on staging, no blank page",
    "scope": "project",
    "files": ["services/pdf/worker.py", "services/pdf/fonts.py"],
}


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    e = Env(tmp_path_factory.mktemp("web-review"))
    for name, (kind, title, body) in EXTRA.items():
        r = e.http.post(
            f"/v1/workspaces/{e.ws_a}/candidates",
            json={
                "kind": kind,
                "title": title,
                "body": body,
                "agent": "claude-code-reviewer-3",
                "run_key": f"rv-{name}",
                "evidence": [f"logs/{name}.txt"],
            },
        )
        assert r.status_code == 201 and r.json()["decision"] == "created", r.text
        e.ids[name] = r.json()["id"]
    r = e.http.post(f"/v1/workspaces/{e.ws_a}/candidates", json=STRUCTURED)
    assert r.status_code == 201 and r.json()["decision"] == "created", r.text
    e.ids["structured"] = r.json()["id"]
    yield e
    e.close()


def cand_url(env, name: str) -> str:
    return f"{env.ui}/w/{env.ws_a}/candidates/{env.ids[name]}"


def submit(page, selector: str) -> str:
    """Click a form's submit button: the POST must answer 303, and reloading what it led to posts nothing."""
    with page.expect_response(lambda r: r.request.method == "POST") as info:
        page.click(selector)
    assert info.value.status == 303, (selector, info.value.status)
    page.wait_for_load_state()
    posts = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    page.reload()
    assert posts == [], posts
    return page.url


def texts(page, selector: str) -> list[str]:
    return [t.strip() for t in page.locator(selector).all_inner_texts()]


def test_the_diff_highlights_the_numbers_that_differ_and_renders_markup_inert(page, env):
    page.goto(cand_url(env, "export_b"))
    pair = f"#near .pair[data-near='{env.ids['export_a']}']"
    assert texts(page, f"{pair} [data-side=this] mark.num") == ["2,470", "2,470", "63"]  # title, then body
    assert texts(page, f"{pair} [data-side=other] mark.num") == ["1,860", "1,860", "41"]
    assert texts(page, f"{pair} [data-side=this] mark") == texts(page, f"{pair} [data-side=this] mark.num")
    assert "numbers differ" in page.inner_text("#near")
    summary = page.inner_text("#near .diff-summary")
    assert "2,470, 63 here" in summary and "1,860, 41 there" in summary
    shot(page, "candidate", docs=True)
    page.goto(cand_url(env, "export_a"))
    other = f"#near .pair[data-near='{env.ids['export_c']}'] .diff:not(.card-title)[data-side=other]"
    assert "<b>at most</b>" in page.inner_text(other)  # an agent's markup is a changed word, shown as text
    assert page.locator(f"{other} b").count() == 0


def test_the_near_duplicate_diff_says_differs_with_both_sides_labelled_and_nothing_struck_through(page, env):
    page.goto(cand_url(env, "export_b"))
    pair = f"#near .pair[data-near='{env.ids['export_a']}']"
    assert page.locator("#near mark.d-removed, #near mark.d-added").count() == 0  # nothing reads as deleted
    assert texts(page, f"{pair} [data-side=this] mark.d-differs") == ["2,470", "2,470", "63"]
    assert texts(page, f"{pair} [data-side=other] mark.d-differs") == ["1,860", "1,860", "41"]
    assert texts(page, f"{pair} .side-label") == ["This candidate", "Existing candidate"]
    legend = page.inner_text("#diff-legend")
    assert "differs from" in legend and "nothing is deleted" in legend
    style = page.locator(f"{pair} [data-side=this] mark.d-differs").first.evaluate(
        "e => { const s = getComputedStyle(e); return [s.textDecorationLine, s.backgroundColor]; }"
    )
    theirs = page.locator(f"{pair} [data-side=other] mark.d-differs").first.evaluate(
        "e => getComputedStyle(e).backgroundColor"
    )
    assert style == ["none", theirs] and theirs != "rgb(253, 226, 226)"  # one neutral colour, not the red of deleted
    page.goto(cand_url(env, "gateway"))  # a file record's side says so
    assert texts(page, "#near .pair[data-near='fact-a-port'] .side-label") == ["This candidate", "Existing record"]


def test_every_field_the_agent_sent_is_on_the_page_and_in_the_api_as_sent(page, env):
    page.goto(cand_url(env, "structured"))
    rows = page.locator("#said-fields tr[data-field]")
    names = [rows.nth(i).get_attribute("data-field") for i in range(rows.count())]
    assert names == [n for n in STRUCTURED if n not in ("title", "body")]  # CandidateInput's order, all of them
    for name, value in STRUCTURED.items():
        if name in ("title", "body"):
            continue
        cell = page.locator(f"#said-fields tr[data-field={name}] td")
        if isinstance(value, list):
            assert texts(page, f"#said-fields tr[data-field={name}] td li") == value, name
        else:
            assert cell.inner_text() == value, name  # markup as text, line breaks kept
    assert page.locator("#said-fields script, #said-fields i").count() == 0
    assert page.evaluate("window.__pwned") is None
    assert page.inner_text("h1") == STRUCTURED["title"]
    shown = env.candidate("structured")
    assert {k: shown[k] for k in ("trigger", "change", "verification", "scope", "files", "tags", "source")} == {
        k: STRUCTURED[k] for k in ("trigger", "change", "verification", "scope", "files", "tags", "source")
    }
    assert shown["provenance"] == {k: STRUCTURED[k] for k in ("agent", "session", "work_item", "run_key")}
    page.goto(cand_url(env, "friday"))  # a candidate with its text and agent only: no rows of blanks
    assert [page.locator("#said-fields tr[data-field]").nth(i).get_attribute("data-field") for i in range(3)] == [
        "kind",
        "agent",
        "run_key",
    ]
    assert page.locator("#said-fields tr[data-field]").count() == 3


def test_duplicate_of_a_candidate_closes_it_and_moves_its_evidence(page, env):
    page.goto(cand_url(env, "export_b"))
    submit(page, f"#near .pair[data-near='{env.ids['export_a']}'] + .actions button[data-action=duplicate]")
    assert f"closed {env.ids['export_b']} as a duplicate of {env.ids['export_a']}" in page.inner_text("[role=status]")
    assert page.locator(f"#queue tr[data-id='{env.ids['export_b']}']").count() == 0
    shot(page, "queue", docs=True)
    closed, target = env.candidate("export_b"), env.candidate("export_a")
    assert (closed["state"], env.ids["export_a"]) == ("rejected", closed["reason"].split()[2])
    moved = [e for e in target["evidence"] if e.get("moved_from") == env.ids["export_b"]]
    assert [e["evidence"] for e in moved] == [["logs/export_b.txt"]] and moved[0]["agent"] == "claude-code-reviewer-3"
    page.goto(cand_url(env, "export_b"))
    page.click("#closed-into a")
    assert page.url.endswith(env.ids["export_a"]) and "logs/export_b.txt" in page.inner_text("#prov-h + table ~ ol")


def test_merge_into_a_candidate_keeps_its_text_as_an_observation(page, env):
    page.goto(cand_url(env, "export_c"))
    submit(page, f"#near .pair[data-near='{env.ids['export_a']}'] + .actions button[data-action=merge]")
    assert f"merged {env.ids['export_c']} into {env.ids['export_a']}" in page.inner_text("[role=status]")
    merged, target = env.candidate("export_c"), env.candidate("export_a")
    assert merged["state"] == "rejected" and "merged into" in merged["reason"]
    entry = next(e for e in target["evidence"] if e.get("moved_from") == env.ids["export_c"])
    assert (
        entry["title"] == EXTRA["export_c"][1]
        and "3,100" in entry["body"]
        and entry["evidence"] == ["logs/export_c.txt"]
    )


def test_duplicate_of_a_record_closes_it_and_the_record_page_shows_its_evidence(page, env):
    page.goto(cand_url(env, "postgres"))
    page.fill("#target", "dec-a-db")
    submit(page, "#conclude-form button:has-text('Duplicate of it')")
    assert env.candidate("postgres")["state"] == "rejected"
    page.goto(f"{env.ui}/w/{env.ws_a}/records/dec-a-db")
    dups = page.inner_text("#duplicates")
    assert env.ids["postgres"] in dups and "claude-code-reviewer-3" in dups and "logs/postgres.txt" in dups
    page.goto(cand_url(env, "ttl"))  # a record cannot be merged into: the service says so, nothing changes
    page.fill("#target", "dec-a-cache")
    with page.expect_response(lambda r: r.request.method == "POST") as info:
        page.click("#conclude-form button:has-text('Merge into it')")
    assert info.value.status == 400 and "request/bad-target" in page.inner_text("h1")
    assert env.candidate("ttl")["state"] == "open"


def test_supersede_then_propose_writes_the_link_and_promotion_links_both_ways(page, env):
    head = run_git(env.alpha.path, "rev-parse", "HEAD").stdout.strip()
    page.goto(cand_url(env, "gateway"))
    submit(page, "#near .pair[data-near='fact-a-port'] + .actions button[data-action=supersede]")
    assert "will supersede fact-a-port" in page.inner_text("[role=status]")
    assert "fact-a-port" in page.inner_text("#will-supersede")
    page.check("input[name=status][value=accepted]")
    submit(page, "#propose-form button[type=submit]")  # reload after it shows the result, posts nothing
    branch = page.inner_text("#proposed-branch")
    assert branch.startswith("jgm/fact-")
    files = run_git(env.alpha.path, "show", "--name-only", "--format=", branch).stdout.split()
    assert len(files) == 1 and files[0].startswith("knowledge/facts/fact-")
    text = run_git(env.alpha.path, "show", f"{branch}:{files[0]}").stdout
    front = yaml.safe_load(text.split("---\n")[1])
    assert front["supersedes"] == ["fact-a-port"] and front["status"] == "verified"
    assert front["candidate"] == env.ids["gateway"]
    assert run_git(env.alpha.path, "rev-parse", "HEAD").stdout.strip() == head  # the checkout is untouched
    # the reviewer merges the pull request; the post-merge seed promotes the candidate
    run_git(env.alpha.path, "merge", "-q", "--ff-only", branch)
    assert env.http.post(f"/v1/workspaces/{env.ws_a}/seed").status_code == 200
    rid = front["id"]
    page.goto(f"{env.ui}/w/{env.ws_a}/records/{rid}")
    page.click("#from-candidate a")
    assert page.url == cand_url(env, "gateway")
    assert "promoted" in page.inner_text(".sub")
    page.click(f"aside a[href$='/records/{rid}']")
    assert page.url.endswith(f"/records/{rid}")
    page.goto(f"{env.ui}/w/{env.ws_a}/records/fact-a-port")
    assert page.inner_text("#effective") == "superseded" and rid in page.inner_text("#status-why")


def test_a_revision_is_listed_with_its_reviewer_time_and_diff(browser, env):
    """The revision names the reviewer who made it: the name of the token this session logged in with (a
    token of its own here, not the server's default), as stored and as shown."""
    c, page = logged_in(browser, env.ui, env.token_a)  # the token named "only-a", granted workspace A
    try:
        page.goto(cand_url(env, "ttl"))
        page.click("summary:has-text('Revise')")
        page.fill(
            "#rbody",
            "## Context\n\nUser sessions are cached in Memcached with a 60 minute TTL because logins are slow.",
        )
        submit(page, "form[action$='/revise'] button[type=submit]")
        rev = page.locator("#revisions li").last
        assert rev.locator("strong").inner_text() == "reviewer:only-a"
        assert env.candidate("ttl")["revisions"][-1]["agent"] == "reviewer:only-a"
        assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", rev.inner_text())
        assert texts(page, "#revisions [data-field=body] .diff-before mark.num") == ["45"]
        assert texts(page, "#revisions [data-field=body] .diff-after mark.num") == ["60"]
    finally:
        c.close()


def test_reject_forget_recall_and_logout_answer_303_and_a_reload_posts_nothing(browser, page, env):
    page.goto(cand_url(env, "friday"))
    page.fill("#why", "Team policy lives in the handbook.")
    submit(page, "#reject-form button[type=submit]")
    page.goto(cand_url(env, "target"))
    page.once("dialog", lambda d: d.accept())
    submit(page, "form[action$='/forget'] button[type=submit]")
    assert env.http.get(f"/v1/workspaces/{env.ws_a}/candidates/{env.ids['target']}").status_code == 404
    page.goto(f"{env.ui}/w/{env.ws_a}/recall")
    page.fill("#q", "Which database do we use?")
    page.select_option("#mode", "lexical")
    submit(page, "#recall-form button[type=submit]")
    assert "dec-a-db" in page.inner_text("#results")  # the kept answer, shown again after the reload
    page.goto(f"{env.ui}/w/{env.ws_a}/records/dec-a-db")
    assert "lexical" in page.inner_text("#recalls tbody tr:first-child")  # the mode of the recall that returned it
    shot(page, "record", docs=True)
    c, p = logged_in(browser, env.ui, env.server.token)
    submit(p, "header form button[type=submit]")
    assert "/ui/login" in p.url
    c.close()


def test_the_doctor_panel_refreshes_in_place_without_a_reload(page, env):
    r = env.http.post(  # a write moves the catalog generation: the next health page starts a doctor run
        f"/v1/workspaces/{env.ws_a}/candidates",
        json={
            "kind": "fact",
            "title": "Database backups start every night",
            "agent": "codex-7",
            "body": "Checked `ops/backup.cron`: database backups start every night and finish within an hour.",
            "source": "ops/backup.cron",
        },
    )
    assert r.status_code == 201, r.text
    page.goto(f"{env.ui}/w/{env.ws_a}/health")
    assert page.locator("#doctor[data-doctor-running]").count() == 1 and "Checking" in page.inner_text("#doctor")
    page.evaluate("window.__same_page = 1")
    page.locator("#doctor:not([data-doctor-running])").wait_for(timeout=120_000)  # (CSP: no eval in the page)
    assert page.evaluate("window.__same_page") == 1  # swapped in, not reloaded
    assert "consistent" in page.inner_text("#doctor") and "Checking" not in page.inner_text("#doctor")


OVERFLOW = """() => {
  const vw = document.documentElement.clientWidth, bad = [];
  if (document.documentElement.scrollWidth > vw + 1) bad.push(`page ${document.documentElement.scrollWidth} > ${vw}`);
  for (const el of document.querySelectorAll('main .panel, main .table-wrap, main .pair > div, main .cards')) {
    const r = el.getBoundingClientRect();
    if (el.scrollWidth > el.clientWidth + 1) bad.push(`${el.id || el.className} scrolls ${el.scrollWidth} > ${el.clientWidth}`);
    if (r.right > vw + 1) bad.push(`${el.id || el.className} ends at ${r.right} > ${vw}`);
  }
  return bad;
}"""


@pytest.mark.parametrize("width", WIDTHS)
def test_the_layout_holds_without_horizontal_overflow(browser, env, width):
    c, p = logged_in(browser, env.ui, env.server.token, width=width, height=900)
    try:
        for path in (
            "/",
            f"/candidates/{env.ids['export_a']}",
            f"/candidates/{env.ids['structured']}",
            "/records/dec-a-db",
            "/health",
            "/recall",
            "/records",
        ):
            p.goto(f"{env.ui}/w/{env.ws_a}{path}")
            assert p.evaluate(OVERFLOW) == [], (width, path)
        p.goto(f"{env.ui}/w/{env.ws_a}/health")
        cell = "#counts thead th" if width > 900 else "#counts tbody td"  # narrower: a block per kind
        last = p.locator(cell).last.bounding_box()
        panel = p.locator("#counts-panel").bounding_box()
        assert last["x"] + last["width"] <= panel["x"] + panel["width"] + 1  # the last column is visible
        if width >= 768:  # the queue's agent names stay on one line (no break at a hyphen)
            p.goto(f"{env.ui}/w/{env.ws_a}/")
            lines = p.evaluate(
                """() => [...document.querySelectorAll('td.agent .name')].map(e => {
                const r = document.createRange(); r.selectNodeContents(e);
                return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size; })"""
            )
            assert lines and set(lines) == {1}, lines
    finally:
        c.close()


def test_a_cards_title_stands_clear_of_the_bodys_first_heading(page, env):
    page.goto(cand_url(env, "ttl"))
    card = page.locator("#near .pair").first.locator(".card").first
    card.locator("summary").click()
    title = card.locator("details .card-title").bounding_box()
    heading = card.locator("details .md h2").bounding_box()
    assert heading["y"] >= title["y"] + title["height"] + 6  # a gap, not touching
    size = lambda sel: float(card.locator(sel).evaluate("e => parseFloat(getComputedStyle(e).fontSize)"))  # noqa: E731
    assert size("details .md h2") <= size("details .card-title") * 1.05  # the body's heading is not bigger
