"""DNS-rebinding defence for `jgm serve` (API and review UI): answer only requests whose Host header names
this server.

Why: a page on evil.example can make its name resolve to 127.0.0.1; the browser then sends that page's
requests to our loopback port as same-origin, with `Host: evil.example`. Checking the Host refuses them
before any route runs. Only the name is compared, not the port: rebinding is a matter of names, and an
ssh port forward legitimately changes the port. The MCP server gets the same check from its SDK.
"""

from __future__ import annotations

from collections.abc import Iterable

from .errors import BAD_HOST, send_error

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def _name(host: str) -> str:
    return host.strip().lower().removeprefix("[").removesuffix("]").rstrip(".")


def allowed_hosts(bound: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """The loopback names, the bound host (as given to --host) and any --allow-host names."""
    return frozenset(_name(h) for h in (*LOOPBACK_HOSTS, bound, *extra) if _name(h))


def host_name(header: str) -> str | None:
    """The name in a Host header ("name", "name:port", "[v6]" or "[v6]:port"); None when malformed."""
    h = header.strip().lower()
    if h.startswith("["):
        end = h.find("]")
        name, port = (h[1:end], h[end + 1 :]) if end > 0 else ("", "")
    else:
        name, sep, port = h.partition(":")
        port = sep + port
    if not name or (port and not (port[0] == ":" and port[1:].isdigit())):
        return None
    return name.rstrip(".")


class HostGuard:
    """Raw ASGI, outermost: a Host outside `hosts` gets 421 with the JSON error body, before anything else."""

    def __init__(self, app, hosts: Iterable[str] = LOOPBACK_HOSTS):
        self.app, self.hosts = app, frozenset(_name(h) for h in hosts)

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        header = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1")
        name = host_name(header) if header else None
        if name in self.hosts:
            return await self.app(scope, receive, send)
        if scope["type"] == "websocket":  # no routes use one; close it rather than answer
            return await send({"type": "websocket.close", "code": 1008})
        shown = repr(header[:100]) if header else "missing"
        message = (
            f"Host header {shown} is not an address this server answers for ({', '.join(sorted(self.hosts))}); "
            "use one of those, or start `jgm serve` with `--allow-host NAME` for a name that reaches it"
        )
        await send_error(send, 421, BAD_HOST, message)
