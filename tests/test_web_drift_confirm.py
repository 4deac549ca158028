"""The drift page's Confirm button (issue 37, item 2) in a real headless Chromium against a real `jgm serve`:
it writes the record's `reviewed` line in the served working tree and says what to commit; a POST without
the session's CSRF token, or from another site, changes nothing; a refusal is an error page with its code."""

from __future__ import annotations

from types import SimpleNamespace

import httpx
import pytest
from api_helpers import Server, workspace_id
from conftest import Repo
from web_helpers import csrf_of, http_login, shot

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """A served repo whose two records' cited code changed after they were written, and one citing no code."""
    base = tmp_path_factory.mktemp("web-confirm")
    repo = Repo(base / "shop")
    repo.write("src/billing/invoice.py", "def total(): return 1\n")
    repo.write("src/search/index.py", "N = 1\n")
    repo.record("dec-cents", title="Invoice totals are integers in cents", source="src/billing/invoice.py")
    repo.record("dec-search", title="Search reads one index", source="src/search/index.py")
    repo.record("dec-style", title="We follow the style guide", source="https://example.com/style")
    repo.commit("start")
    repo.write("src/billing/invoice.py", "def total(): return 100\n")
    repo.write("src/search/index.py", "N = 2\n")
    repo.commit("Totals in cents, two indexes")
    home = base / "home"
    home.mkdir()
    server = Server([repo.path], home)
    ws = workspace_id(repo.path)
    with server.client() as client:
        assert client.post(f"/v1/workspaces/{ws}/seed").status_code == 200
    yield SimpleNamespace(server=server, ui=server.url + "/ui", ws=ws, repo=repo)
    server.stop()


def test_confirm_button_writes_the_reviewed_line_and_says_what_to_commit(page, env):
    page.goto(f"{env.ui}/w/{env.ws}/drift")
    assert page.locator("#drift tr[data-id=dec-cents]").get_attribute("data-state") == "drifted"
    page.locator("#drift tr[data-id=dec-cents] button[data-action=confirm]").click()
    page.wait_for_load_state()
    notice = page.locator("#drift-confirmed").inner_text()
    head = env.repo.git("rev-parse", "HEAD").stdout.strip()
    assert f"reviewed: {head} on " in notice and "git commit" in notice and "knowledge/dec-cents.md" in notice
    assert env.repo.git("diff", "--numstat").stdout == "1\t0\tknowledge/dec-cents.md\n"  # one line, nothing else
    queued = {r.get_attribute("data-id") for r in page.locator("#drift tbody tr").all()}
    assert queued == {"dec-search"}  # dec-cents is being edited: fresh until committed, then from the review on
    shot(page, "drift-confirmed")
    env.repo.commit("Confirm dec-cents")
    page.goto(f"{env.ui}/w/{env.ws}/drift?state=fresh")
    assert page.locator("#drift tr[data-id=dec-cents]").get_attribute("data-state") == "fresh"


def test_a_confirm_post_needs_the_session_csrf_token_and_a_refusal_names_its_code(env):
    action = f"/ui/w/{env.ws}/drift/dec-search/confirm"
    with httpx.Client(base_url=env.server.url, timeout=120) as c:
        http_login(c, env.server.token)
        csrf = csrf_of(c.get(f"/ui/w/{env.ws}/drift").text)
        assert c.post(action, data={}).status_code == 403
        assert c.post(action, data={"csrf": csrf + "x"}).status_code == 403
        forged = c.post(action, data={"csrf": csrf}, headers={"origin": "http://evil.example"})
        assert forged.status_code == 403 and "csrf/cross-site" in forged.text
        assert env.repo.git("status", "--porcelain").stdout == ""  # nothing was written
        refused = c.post(f"/ui/w/{env.ws}/drift/dec-style/confirm", data={"csrf": csrf})
        assert refused.status_code == 409 and "confirm/uncited" in refused.text
        done = c.post(action, data={"csrf": csrf}, follow_redirects=False)
        assert done.status_code == 303 and "/drift?shown=" in done.headers["location"]
        assert env.repo.git("status", "--porcelain").stdout == " M knowledge/dec-search.md\n"
