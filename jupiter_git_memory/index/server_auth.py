"""Who may use the team's Chroma server: the token jgm sends, and the errors a refusal becomes.

The token comes from JGM_CHROMA_TOKEN or the store's `chroma-token` file, never from the repository (a
branch's jgm.toml must not be able to hand a server someone's credentials, or take them). It goes out as
`Authorization: Bearer <token>`. `chroma run` 1.x (the installed chromadb) ignores CHROMA_SERVER_AUTHN_*,
so what enforces it is a gate in front of the server (`python -m jupiter_git_memory.surfaces.chroma_gate`, or any
proxy that answers 401 for an unknown token and 403 for a write with a read-only one); jgm turns those answers
into errors that name what to set (dec-team-vectors-by-content).
"""

from __future__ import annotations

from pathlib import Path

from ..base import error_codes as E
from ..base.environment import CHROMA_TOKEN
from ..base.errors import JgmError

TOKEN_FILE = "chroma-token"


def token_file() -> Path:
    from ..base.store import store_path

    return store_path() / TOKEN_FILE


def chroma_token() -> str | None:
    """The token for the server: JGM_CHROMA_TOKEN, else the store's `chroma-token` file, else None."""
    got = CHROMA_TOKEN.get()
    if got:
        return got.strip()
    try:
        text = token_file().read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return text or None


def client_settings(token: str | None) -> dict[str, str]:
    """chromadb Settings that send `token`, or none."""
    if not token:
        return {}
    return {
        "chroma_client_auth_provider": "chromadb.auth.token_authn.TokenAuthClientProvider",
        "chroma_client_auth_credentials": token,
    }


class ChromaAuthRefused(JgmError, RuntimeError):
    """The server answered 401: no token, or one it does not know."""

    entry = E.INDEX_CHROMA_AUTH

    def __init__(self, location: str):
        have = "the token jgm sent was refused" if chroma_token() else "jgm sent no token"
        super().__init__(
            f"{location}: the Chroma server asks for a token and {have}; set JGM_CHROMA_TOKEN, or write the token "
            f"to {token_file()} (never into the repository)"
        )


class ChromaReadOnly(JgmError, RuntimeError):
    """The server answered 403 to a write: the token may read (recall) but not write (seed)."""

    entry = E.INDEX_CHROMA_READ_ONLY

    def __init__(self, location: str):
        super().__init__(
            f"{location}: the Chroma server's token may read but not write: recall works, but seeding needs a "
            "write token (JGM_CHROMA_TOKEN or the store's chroma-token file), or leave seeding to the team's CI"
        )


def _status(e: BaseException) -> int | None:
    """The HTTP status behind a chromadb or httpx error, if it is an authentication refusal."""
    code = getattr(e, "code", None)
    if callable(code):
        try:
            got = code()  # chromadb's ChromaError.code(): the HTTP status it stands for
        except TypeError:  # some other error's `code` method that wants arguments
            got = None
        if got in (401, 403):
            return got
    resp = getattr(e, "response", None)
    status = getattr(resp, "status_code", None)
    if status in (401, 403):
        return status
    text = str(e)
    for s in (401, 403):
        if f"{s} " in text and ("Unauthorized" in text or "Forbidden" in text):
            return s
    return None


def refusal(e: BaseException, location: str) -> JgmError | None:
    """The named error for a server's 401/403 behind `e`, or None."""
    seen: set[int] = set()
    cur: BaseException | None = e
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        status = _status(cur)
        if status == 401:
            return ChromaAuthRefused(location)
        if status == 403:
            return ChromaReadOnly(location)
        cur = cur.__cause__ or cur.__context__
    return None
