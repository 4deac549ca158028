"""API tokens: bearer secrets, each granted an explicit list of workspace ids.

Stored in `$JGM_HOME/tokens.json` (mode 0600) as sha256 digests, never as secrets, so the file leaks
no usable credential. The one exception is the `default` token, whose secret is also written to
`$JGM_HOME/api-token` (0600) so local agents and scripts can read it without a copy-paste step.
A token reads only the workspaces it was granted; `jgm serve` grants what it serves to `default`.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import re
import secrets
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ...base import error_codes as E
from ...base.errors import JgmError, store_failures
from ...base.files import atomic_write, file_lock
from ...base.store import store_root

DEFAULT = "default"
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"


def bearer_secret(authorization: str | None) -> str | None:
    """The secret of an `Authorization: Bearer <secret>` header (the scheme in any case), else None: how
    every server reads a token (the API's routes, MCP over HTTP, its tools' grants)."""
    scheme, _, secret = (authorization or "").partition(" ")
    return (secret.strip() or None) if scheme.lower() == "bearer" else None


class TokenError(JgmError, ValueError):
    entry = E.AUTH_TOKEN


@dataclass(frozen=True)
class TokenInfo:
    name: str
    workspaces: frozenset[str]

    def may_read(self, wsid: str) -> bool:
        return wsid in self.workspaces


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


class TokenStore:
    def __init__(self, root: Path | None = None):
        self.store_root = root or store_root()
        self.path = self.store_root / "tokens.json"
        self.secret_path = self.store_root / "api-token"
        self._cache: tuple[tuple[int, int, int], dict] | None = None
        self._cache_lock = threading.Lock()

    # -- file access ---------------------------------------------------------------------------
    @contextlib.contextmanager
    def _locked(self):
        """Every change of tokens.json and api-token holds this lock; a full or read-only store says so."""
        with store_failures(self.store_root), file_lock(self.store_root / "tokens.lock"):
            yield

    def _write(self, path: Path, text: str) -> None:
        """Atomic, 0600 from the first byte (no window where a secret is world-readable). Under `_locked`."""
        with store_failures(path):
            atomic_write(path, text)

    def _read(self) -> dict:
        try:
            data = json.loads(self.path.read_text("utf-8"))
        except FileNotFoundError:
            return {"version": 1, "tokens": {}}
        except (OSError, json.JSONDecodeError) as e:
            raise TokenError(
                f"{self.path}: unreadable token file ({e}); delete it (the next `jgm serve` recreates the default token)"
            ) from e
        if not isinstance(data, dict) or not isinstance(data.get("tokens"), dict):
            raise TokenError(
                f'{self.path}: expected {{"tokens": {{...}}}}; delete it (the next `jgm serve` recreates the default token)'
            )
        return data

    def _save(self, data: dict) -> None:
        self._write(self.path, json.dumps(data, indent=2, sort_keys=True) + "\n")

    def tokens(self) -> dict[str, dict]:
        """name -> {sha256, workspaces, created_at}; re-read only when the file changed (cheap per request)."""
        try:
            st = self.path.stat()
            key = (st.st_mtime_ns, st.st_size, st.st_ino)
        except FileNotFoundError:
            return {}
        with self._cache_lock:
            if self._cache is None or self._cache[0] != key:
                self._cache = (key, self._read()["tokens"])
            return self._cache[1]

    # -- mutations -----------------------------------------------------------------------------
    def _mutate(self, fn, after=None):
        """`fn(tokens)` and save, then `after()` (e.g. the default token's secret file), all under the lock."""
        with self._locked():
            data = self._read()
            result = fn(data["tokens"])
            self._save(data)
            if after is not None:
                after()
            return result

    def create(self, name: str, workspaces: list[str] = (), replace: bool = False) -> str:
        """A new secret for `name` (printed once by the CLI). Existing grants are kept on replace."""
        if not re.match(NAME_PATTERN, name or ""):
            raise TokenError(f"token name {name!r} must match {NAME_PATTERN}")
        secret = "jgm_" + secrets.token_urlsafe(32)

        def do(tokens: dict):
            if name in tokens and not replace:
                raise TokenError(f"token {name!r} exists; `jgm token rotate {name}` gives it a new secret")
            old = set(tokens.get(name, {}).get("workspaces", []))
            tokens[name] = {
                "sha256": digest(secret),
                "workspaces": sorted(old | set(workspaces)),
                "created_at": time.time(),
            }

        # the secret file is written under the same lock: a concurrent create of the default token can never
        # leave api-token holding a secret other than the one tokens.json accepts
        self._mutate(do, (lambda: self._write(self.secret_path, secret + "\n")) if name == DEFAULT else None)
        return secret

    def ensure_default(self) -> str:
        """The default token's secret, created on first run (and re-created if its secret file is gone)."""
        with self._locked():
            tokens = self._read()["tokens"]
            secret = self.secret_path.read_text("utf-8").strip() if self.secret_path.is_file() else ""
            if secret and DEFAULT in tokens and hmac.compare_digest(tokens[DEFAULT]["sha256"], digest(secret)):
                return secret
        return self.create(DEFAULT, replace=True)

    def grant(self, name: str, workspaces: list[str]) -> list[str]:
        def do(tokens: dict):
            if name not in tokens:
                raise TokenError(f"no token {name!r}; `jgm token list` shows them")
            tokens[name]["workspaces"] = sorted(set(tokens[name]["workspaces"]) | set(workspaces))
            return tokens[name]["workspaces"]

        return self._mutate(do)

    def revoke(self, name: str, workspaces: list[str] | None = None) -> None:
        """Remove some grants, or (workspaces=None) the whole token."""

        def do(tokens: dict):
            if name not in tokens:
                raise TokenError(f"no token {name!r}; `jgm token list` shows them")
            if workspaces is None:
                del tokens[name]
            else:
                tokens[name]["workspaces"] = sorted(set(tokens[name]["workspaces"]) - set(workspaces))

        def forget_secret() -> None:
            with contextlib.suppress(FileNotFoundError):
                self.secret_path.unlink()

        self._mutate(do, forget_secret if workspaces is None and name == DEFAULT else None)

    # -- auth ----------------------------------------------------------------------------------
    def authenticate(self, secret: str | None) -> TokenInfo | None:
        if not secret:
            return None
        d = digest(secret)
        for name, t in self.tokens().items():
            if hmac.compare_digest(str(t.get("sha256", "")), d):
                return TokenInfo(name, frozenset(t.get("workspaces", [])))
        return None
