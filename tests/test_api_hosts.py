"""DNS-rebinding defence: `jgm serve` (API and review UI) answers only Host headers that name it."""

from __future__ import annotations

import http.client
import json
from urllib.parse import urlsplit

import pytest
from api_helpers import Server, make_beta, workspace_id

from jupiter_git_memory.surfaces.api.hosts import allowed_hosts, host_name

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    base = tmp_path_factory.mktemp("hosts")
    (base / "home").mkdir()
    repo = make_beta(base / "beta")
    s = Server([repo.path], base / "home", extra_args=("--allow-host", "Memory.Internal"))
    s.ws = workspace_id(repo.path)
    yield s
    s.stop()


def send(server: Server, method: str, path: str, host: str | None, token: str | None = None):
    """A request with exactly this Host header (None: none at all), on a real connection to 127.0.0.1."""
    u = urlsplit(server.url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        if host is not None:
            conn.putheader("Host", host)
        if token:
            conn.putheader("Authorization", f"Bearer {token}")
        conn.putheader("Content-Length", "0")
        conn.endheaders()
        resp = conn.getresponse()
        return resp.status, resp.getheader("content-type") or "", resp.read()
    finally:
        conn.close()


@pytest.mark.parametrize(
    "host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST", "[::1]:{port}", "memory.internal:8080"]
)
def test_the_servers_own_names_are_answered(server, host):
    port = urlsplit(server.url).port
    status, _, body = send(server, "GET", "/v1/health", host.format(port=port))
    assert status == 200 and json.loads(body)["status"] == "ok"


@pytest.mark.parametrize(
    "path", ["/v1/health", "/ui/login", "/docs", "/openapi.json", "/v1/workspaces/{ws}/seed", "/nowhere"]
)
@pytest.mark.parametrize("host", ["evil.example:{port}", "127.0.0.1.evil.example", "localhost:{port}@evil", None])
def test_any_other_host_gets_421_with_the_json_error_before_any_route_runs(server, path, host):
    port = urlsplit(server.url).port
    method = "POST" if path.endswith("/seed") else "GET"
    status, ctype, body = send(
        server, method, path.format(ws=server.ws), host and host.format(port=port), token=server.token
    )
    assert status == 421 and ctype.startswith("application/json"), (status, body[:200])
    err = json.loads(body)["error"]
    assert err["code"] == "request/bad-host"
    assert "--allow-host" in err["message"]


def test_a_refused_seed_changed_nothing(server):
    """The guard runs before auth and routes: an authorised POST with a rebinding Host does not seed."""
    before = server.client().get(f"/v1/workspaces/{server.ws}").json()
    send(server, "POST", f"/v1/workspaces/{server.ws}/seed", "evil.example", token=server.token)
    after = server.client().get(f"/v1/workspaces/{server.ws}").json()
    assert after == before


def test_host_names_parse_strictly():
    assert host_name("Example.COM:80") == "example.com"
    assert host_name("[::1]:8765") == "::1" and host_name("[::1]") == "::1"
    assert host_name("localhost.") == "localhost"
    for bad in ("", ":80", "a:b", "[::1", "[::1]x", "host:80:90", "a b:1x"):
        assert host_name(bad) is None, bad
    assert allowed_hosts("0.0.0.0", ["[fe80::1]", "Box.lan"]) >= {"127.0.0.1", "localhost", "::1", "0.0.0.0"}
    assert {"fe80::1", "box.lan"} <= allowed_hosts("0.0.0.0", ["[fe80::1]", "Box.lan"])
