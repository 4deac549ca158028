"""Browser sessions for the review UI: an API token is exchanged once for an opaque session cookie.

Why server-side sessions keyed by a random id: the cookie must be HttpOnly and SameSite=Strict and must
never carry the token itself. The session remembers only the token's name and sha256 digest; every
request looks the token up again, so `jgm token revoke`/`rotate` ends a browser session at once and the
session sees exactly the workspaces the token is granted *now*. Each session has its own CSRF token,
which every state-changing form must send back (compared in constant time) before anything runs.
Sessions are capped per token, not globally: logging in over and over with one token evicts only that
token's own oldest sessions, never another reviewer's (memory stays bounded: tokens x the cap).
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from ..api.tokens import TokenInfo, TokenStore, digest

COOKIE = "jgm_ui"
PRE_COOKIE = "jgm_ui_login"  # double-submit CSRF token for the login form (no session exists yet)
IDLE_SECONDS = 12 * 3600
MAX_RESULTS = 20  # per session: the results of its recent POSTs, shown by the pages they redirect to
MAX_SESSIONS_PER_TOKEN = 50  # a reviewer's browsers and devices; a script's thousand logins stay its own


@dataclass
class Session:
    sid: str
    token_name: str
    token_sha256: str
    csrf: str
    created: float = field(default_factory=time.time)
    seen: float = field(default_factory=time.time)
    grants: frozenset[str] = frozenset()  # refreshed from the token store on every request
    results: dict[str, Any] = field(default_factory=dict)  # what a POST showed, for the GET it redirects to

    def keep(self, value: Any) -> str:
        """Keep what a POST produced under a new key, for the page it redirects to (post/redirect/get): a
        reload then shows it again without running the action again. The newest MAX_RESULTS are kept."""
        key = secrets.token_urlsafe(9)
        self.results[key] = value
        while len(self.results) > MAX_RESULTS:
            self.results.pop(next(iter(self.results)))
        return key

    def kept(self, key: str | None) -> Any:
        return self.results.get(key or "")

    def may_read(self, wsid: str) -> bool:
        return wsid in self.grants

    def csrf_ok(self, sent: str | None) -> bool:
        return bool(sent) and hmac.compare_digest(self.csrf.encode(), str(sent).encode())


class Sessions:
    """In-memory sessions of one server process (a restart logs everyone out, which is fine locally)."""

    def __init__(self, tokens: TokenStore):
        self.tokens = tokens
        self._by_id: dict[str, Session] = {}
        self._lock = threading.Lock()

    def login(self, secret: str) -> Session | None:
        info = self.tokens.authenticate((secret or "").strip())
        if info is None:
            return None
        s = Session(
            secrets.token_urlsafe(32),
            info.name,
            digest(secret.strip()),
            secrets.token_urlsafe(32),
            grants=info.workspaces,
        )
        with self._lock:
            self._expire(s.token_name)
            self._by_id[s.sid] = s
        return s

    def get(self, sid: str | None) -> Session | None:
        """The live session for a cookie value, with grants re-read; None when expired, revoked or rotated."""
        if not sid:
            return None
        with self._lock:
            s = self._by_id.get(sid)
            if s is None or time.time() - s.seen > IDLE_SECONDS:
                self._by_id.pop(sid, None)
                return None
        info = self._current(s)
        if info is None:
            self.logout(sid)
            return None
        s.grants, s.seen = info.workspaces, time.time()
        return s

    def _current(self, s: Session) -> TokenInfo | None:
        t = self.tokens.tokens().get(s.token_name)
        if not t or not hmac.compare_digest(str(t.get("sha256", "")), s.token_sha256):
            return None
        return TokenInfo(s.token_name, frozenset(t.get("workspaces", [])))

    def logout(self, sid: str | None) -> None:
        with self._lock:
            self._by_id.pop(sid or "", None)

    def _expire(self, token_name: str) -> None:
        """Drop idle sessions, then make room for one more of `token_name` among its own (oldest first)."""
        now = time.time()
        for sid in [k for k, s in self._by_id.items() if now - s.seen > IDLE_SECONDS]:
            del self._by_id[sid]
        own = sorted((s.seen, k) for k, s in self._by_id.items() if s.token_name == token_name)
        for _, sid in own[: max(0, len(own) - MAX_SESSIONS_PER_TOKEN + 1)]:
            del self._by_id[sid]


def cookie_args(path: str) -> dict:
    """HttpOnly (no script reads it), SameSite=Strict (no cross-site request carries it), scoped to the UI."""
    return {"httponly": True, "samesite": "strict", "path": path}
