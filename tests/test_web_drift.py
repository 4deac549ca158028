"""The drift queue page (issue 25) in a real headless Chromium against a real `jgm serve`: drifted and
missing records listed with their cited paths, commits since and diff, fresh ones on their own tab."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from api_helpers import Server, workspace_id
from conftest import Repo
from web_helpers import shot

pytestmark = [pytest.mark.e2e, pytest.mark.slow]  # slow: scheduled first (conftest.py)


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """One repo whose records' cited code changed (drifted), went away (missing) or did not (fresh), served."""
    base = tmp_path_factory.mktemp("web-drift")
    repo = Repo(base / "shop")
    repo.write("src/billing/invoice.py", "def total(): return 1\n")
    repo.write("src/auth/login.py", "def login(): pass\n")
    repo.write("src/search/index.py", "N = 1\n")
    repo.record("dec-cents", title="Invoice totals are integers in cents", source="src/billing/invoice.py")
    repo.record("dec-auth", title="Logins go through the auth module", source="src/auth/")
    repo.record("dec-search", title="Search reads one index", source="src/search/index.py")
    repo.commit("start")
    repo.write("src/billing/invoice.py", "def total(): return 100\n")
    repo.commit("Totals in cents everywhere")
    repo.write("src/billing/invoice.py", "def total(): return 100  # cents\n")
    repo.commit("Comment the unit")
    repo.git("rm", "-q", "-r", "src/auth")
    repo.commit("Move login to the gateway")
    home = base / "home"
    home.mkdir()
    server = Server([repo.path], home)
    ws = workspace_id(repo.path)
    with server.client() as client:
        assert client.post(f"/v1/workspaces/{ws}/seed").status_code == 200
    yield SimpleNamespace(server=server, ui=server.url + "/ui", ws=ws)
    server.stop()


def test_drift_queue_lists_drifted_and_missing_records_with_commits_and_diff(page, env):
    page.goto(f"{env.ui}/w/{env.ws}/drift")
    rows = page.locator("#drift tbody tr")
    states = {
        rows.nth(i).get_attribute("data-id"): rows.nth(i).get_attribute("data-state") for i in range(rows.count())
    }
    assert states == {"dec-auth": "missing", "dec-cents": "drifted"}  # the fresh one is not queued
    cents = page.locator("#drift tr[data-id=dec-cents]").inner_text()
    assert "Totals in cents everywhere" in cents and "Comment the unit" in cents and "src/billing/invoice.py" in cents
    assert "git diff" in cents and "1 files, +2 -2" in cents  # lines the two commits changed
    assert "(gone)" in page.locator("#drift tr[data-id=dec-auth]").inner_text()
    assert page.locator("nav[aria-label=Sections] a[aria-current=page]").inner_text() == "Drift"
    shot(page, "drift", docs=True)
    page.goto(f"{env.ui}/w/{env.ws}/drift?state=fresh")
    assert page.locator("#drift tbody tr").get_attribute("data-id") == "dec-search"
