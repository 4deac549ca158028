"""A token gate in front of a `chroma run` server: read tokens may recall, write tokens may also seed.

Why: `chroma run` of chromadb 1.x ignores CHROMA_SERVER_AUTHN_* (its Rust frontend has no token check), so a
team server that anyone on the network may write to needs something in front of it. This is the smallest such
thing: a reverse proxy that checks `Authorization: Bearer <token>` (or `X-Chroma-Token`) against a tokens file
and lets a read token through only to what recall uses (GETs, and the `get`/`query` POSTs of a collection).
Any proxy that answers 401 for an unknown token and 403 for a refused write does the same for jgm.

    python -m jupiter_git_memory.surfaces.chroma_gate --upstream http://127.0.0.1:8000 \\
        --tokens /etc/jgm/chroma-tokens --host 0.0.0.0 --port 8001

The tokens file: one `<token> read|write` a line, `#` comments. It is read again when it changes.
"""

from __future__ import annotations

import argparse
import hmac
import http.client
import json
import os
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlparse

from .api.tokens import bearer_secret

READS = re.compile(r"^/api/v\d+/.*/collections/[^/]+/(get|query)$")  # POSTs that only read
JSON = b"application/json"  # a media type (bytes: not one of our error codes, which are str "family/name")
_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-authorization"}


class Tokens:
    """The tokens file, re-read when its modification time changes."""

    def __init__(self, path: Path):
        self.path, self._stamp, self._tokens = path, None, {}
        self._lock = threading.Lock()

    def access(self, token: str | None) -> str | None:
        """`read`, `write`, or None for no or an unknown token (compared in constant time)."""
        with self._lock:
            stamp = os.stat(self.path).st_mtime_ns
            if stamp != self._stamp:
                self._tokens, self._stamp = parse_tokens(self.path.read_text(encoding="utf-8"), self.path), stamp
            known = dict(self._tokens)
        found = None
        for t, access in known.items():
            if token is not None and hmac.compare_digest(t.encode(), token.encode()):
                found = access
        return found


def parse_tokens(text: str, source: Path | str = "tokens file") -> dict[str, str]:
    out: dict[str, str] = {}
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2 or parts[1] not in ("read", "write"):
            raise ValueError(f"{source} line {n}: expected `<token> read|write`, got {line!r}")
        out[parts[0]] = parts[1]
    return out


def allowed(access: str | None, method: str, path: str) -> int:
    """200 (let through), 401 (no or unknown token) or 403 (a read token asking to write)."""
    if path.rstrip("/").endswith(("/heartbeat", "/version", "/pre-flight-checks")):
        return 200  # what a client asks before anything else; nothing stored is exposed
    if access is None:
        return 401
    if access == "write" or method in ("GET", "HEAD") or (method == "POST" and READS.match(path)):
        return 200
    return 403


def _token(headers) -> str | None:
    return bearer_secret(headers.get("Authorization")) or headers.get("X-Chroma-Token")


def handler(upstream: str, tokens: Tokens) -> type[BaseHTTPRequestHandler]:
    target = urlparse(upstream)
    local = threading.local()

    class Gate(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args) -> None:  # quiet: a gate in front of recall logs nothing
            pass

        def _refuse(self, status: int) -> None:
            kind = "AuthorizationError" if status == 401 else "AuthError"
            text = "no or unknown token" if status == 401 else "this token may read but not write"
            body = json.dumps({"error": kind, "message": text}).encode()
            self.send_response(status)
            self.send_header("Content-Type", JSON.decode())
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _forward(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            status = allowed(tokens.access(_token(self.headers)), self.command, self.path.split("?", 1)[0])
            if status != 200:
                self._refuse(status)
                return
            headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP | {"host", "authorization"}}
            for attempt in (0, 1):  # a kept-alive upstream connection may have been closed meanwhile
                conn = getattr(local, "conn", None) or http.client.HTTPConnection(
                    target.hostname or "127.0.0.1", target.port or 80, timeout=300
                )
                local.conn = conn
                try:
                    conn.request(self.command, self.path, body=body, headers=headers)
                    resp = conn.getresponse()
                    data = resp.read()
                    break
                except (OSError, http.client.HTTPException):
                    conn.close()
                    local.conn = None
                    if attempt:
                        raise
            self.send_response(resp.status)
            for k, v in resp.getheaders():
                if k.lower() not in _HOP and k.lower() != "content-length":
                    self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = _forward

    return Gate


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m jupiter_git_memory.surfaces.chroma_gate", description=__doc__)
    p.add_argument("--upstream", required=True, help="the `chroma run` server, e.g. http://127.0.0.1:8000")
    p.add_argument("--tokens", required=True, type=Path, help="file of `<token> read|write` lines")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8001)
    args = p.parse_args(argv)
    tokens = Tokens(args.tokens)
    tokens.access(None)  # a bad tokens file fails now, not on the first request
    server = ThreadingHTTPServer((args.host, args.port), handler(args.upstream, tokens))
    server.daemon_threads = True
    server.serve_forever()


if __name__ == "__main__":
    main()
