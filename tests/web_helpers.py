"""Helpers for the review UI's browser tests: a served pair of workspaces, Debian's Chromium via Playwright,
an attacker page on another origin, and where screenshots go."""

from __future__ import annotations

import http.server
import os
import re
import shutil
import threading
from pathlib import Path

import pytest
from api_helpers import Server, make_alpha, make_beta, workspace_id
from conftest import run_git

ARTIFACTS = Path(os.environ.get("JGM_ARTIFACTS") or Path(__file__).resolve().parents[1] / "tmp" / "artifacts") / "ui"
REQUIRE = os.environ.get("JGM_REQUIRE_BROWSER") == "1"  # set by .ci/run: no browser is a failure there

CANDIDATES = {  # name -> API body; each passes the checks and none duplicates another
    "redis": {
        "kind": "decision",
        "title": "Keep user sessions in Redis with AOF persistence",
        "body": "Sessions move to Redis with append-only persistence because Memcached drops every session on restart.",
        "tags": ["cache"],
        "source": "incident review 2026-05",
        "agent": "codex-7",
        "session": "s-991",
        "work_item": "WI-310",
        "run_key": "ui-redis",
        "evidence": ["ops/postmortem-42.md"],
    },
    "friday": {
        "kind": "decision",
        "title": "Freeze production deploys on Fridays",
        "body": "No production deploys after Friday noon because weekend on-call coverage is thin.",
        "agent": "claude-3",
        "run_key": "ui-friday",
    },
    "xss": {
        "kind": "fact",
        "title": "Webhook signatures use HMAC-SHA256",
        "body": "Checked `src/webhooks.py`: signatures are HMAC-SHA256. <script>window.__pwned = 1</script> "
        '<img src=x onerror="window.__pwned = 2"> [click](javascript:window.__pwned=3)',
        "source": "src/webhooks.py",
        "agent": "mallory",
        "run_key": "ui-xss",
    },
    "target": {
        "kind": "decision",
        "title": "Pin the Node.js runtime to version 22 in CI",
        "body": "CI pins Node.js 22 because the build tool breaks on 23.",
        "agent": "codex-7",
        "run_key": "ui-target",
    },
}


class Env:
    """The module's world: repos A (alpha) and B (beta) served by one `jgm serve`, candidates in A."""

    def __init__(self, base: Path):
        self.home = base / "home"
        self.home.mkdir()
        self.alpha, self.beta = make_alpha(base / "alpha"), make_beta(base / "beta")
        # GitHub is out of reach: `gh` is a stand-in that prints a PR URL; the push goes to a real bare remote
        self.remote = base / "alpha-remote.git"
        run_git(base, "init", "-q", "--bare", str(self.remote))
        self.alpha.git("remote", "add", "origin", str(self.remote))
        bin_dir = base / "bin"
        bin_dir.mkdir()
        (bin_dir / "gh").write_text("#!/bin/sh\necho https://github.example/org/alpha/pull/7\n")
        (bin_dir / "gh").chmod(0o755)
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
            self.server = Server([self.alpha.path, self.beta.path], self.home)
        self.http = self.server.client()
        self.ws_a, self.ws_b = workspace_id(self.alpha.path), workspace_id(self.beta.path)
        for ws in (self.ws_a, self.ws_b):
            r = self.http.post(f"/v1/workspaces/{ws}/seed")
            assert r.status_code == 200, r.text
        self.ids = {}
        for name, body in CANDIDATES.items():
            r = self.http.post(f"/v1/workspaces/{self.ws_a}/candidates", json=body)
            assert r.status_code == 201, r.text
            self.ids[name] = r.json()["id"]
        from jupiter_git_memory.surfaces.api.tokens import TokenStore

        self.token_a = TokenStore(self.home).create("only-a", [self.ws_a])
        self.ui = self.server.url + "/ui"
        assert self.server.info["ui"] == self.ui + "/"  # the ready line names the UI

    def candidate(self, name: str) -> dict:
        r = self.http.get(f"/v1/workspaces/{self.ws_a}/candidates/{self.ids[name]}")
        assert r.status_code == 200, r.text
        return r.json()["candidate"]

    def close(self) -> None:
        self.http.close()
        self.server.stop()


def launch_browser():
    """(playwright, browser), or skip/fail with the reason when Chromium or Playwright is missing."""
    exe = os.environ.get("JGM_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright, missing = None, "playwright is not installed: pip install -e '.[test]'"
    else:
        missing = None if exe else "no Chromium on PATH: apt-get install chromium (or set JGM_CHROMIUM)"
    if missing:
        print(f"\nbrowser tests: {missing}")
        (pytest.fail if REQUIRE else pytest.skip)(missing)
    pw = sync_playwright().start()
    return pw, pw.chromium.launch(executable_path=exe, args=["--no-sandbox"])


def login(page, ui: str, token: str) -> None:
    page.goto(ui + "/")
    page.fill("#token", token)
    page.click("form button[type=submit]")
    page.wait_for_load_state()


def logged_in(browser, ui: str, token: str, **viewport: int):
    """(context, page): a new browser context logged in with `token` (its size `width`/`height` if given);
    the caller closes the context."""
    c = browser.new_context(viewport=viewport) if viewport else browser.new_context()
    p = c.new_page()
    login(p, ui, token)
    return c, p


def http_login(client, token: str) -> None:
    """Log an httpx client in through the login form (the pre-login token travels in a cookie and a field)."""
    pre = re.search(r'name="pre" value="([^"]+)"', client.get("/ui/login").text).group(1)
    assert client.post("/ui/login", data={"token": token, "pre": pre}).status_code == 303


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


DOCS = Path(__file__).resolve().parents[1] / "docs"
WRITE_DOCS = os.environ.get("JGM_DOCS_SCREENSHOTS") == "1"  # regenerate docs/ui-*.png (docs/review-ui.md)


def shot(page, name: str, docs: bool = False) -> Path:
    """A full-page screenshot into the artifacts; `docs` ones also replace docs/ui-NAME.png when asked to."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    if docs and WRITE_DOCS:
        page.screenshot(path=str(DOCS / f"ui-{name}.png"), full_page=True)
    return path


class Attacker:
    """Another origin (another port on 127.0.0.1) serving a page that auto-submits a form to `action`."""

    def __init__(self, action: str, fields: dict[str, str]):
        inputs = "".join(f'<input name="{k}" value="{v}">' for k, v in fields.items())
        html = (
            f'<form id="f" method="post" action="{action}">{inputs}</form>'
            '<script>document.getElementById("f").submit()</script>'
        ).encode()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("content-type", "text/html")
                self.end_headers()
                self.wfile.write(html)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
