"""Which files the edit hook already answered for in a client session: once per file per session.

An agent edits a file in many small steps; the records governing it matter once, before the first. So the
hook keeps, per session id, the files it answered for (and the record ids it showed), in the store's runtime
folder (`<store>/runtime/edits/<sha256 of the session id>.json`, 0600 in the 0700 store): nothing of it is
committed or shared, and a session id never appears in a file name. Bounded: at most MAX_FILES files per
session, MAX_SESSIONS session files (the least recently used go), none older than MAX_AGE_SECONDS. Every
read or write failure counts as "not seen yet": the worst case is a repeated answer, never a lost edit.
Light: the hook reads this before anything heavy is imported.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

RUNTIME = "runtime"
FOLDER = "edits"
MAX_FILES = 512
MAX_SESSIONS = 64
MAX_AGE_SECONDS = 2 * 24 * 3600


def folder(store: Path) -> Path:
    return Path(store) / RUNTIME / FOLDER


def _path(store: Path, session: str) -> Path:
    return folder(store) / (hashlib.sha256(session.encode("utf-8", "replace")).hexdigest()[:32] + ".json")


def seen(store: Path, session: str) -> dict[str, list[str]]:
    """file key -> the record ids shown for it, in this session; {} when nothing is known."""
    try:
        data = json.loads(_path(store, session).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    files = data.get("files") if isinstance(data, dict) else None
    return {k: v for k, v in files.items() if isinstance(v, list)} if isinstance(files, dict) else {}


def mark(store: Path, session: str, shown: dict[str, list[str]]) -> None:
    """Add `shown` (file key -> record ids) to the session's files, then drop old sessions."""
    files = seen(store, session)
    files.update(shown)
    if len(files) > MAX_FILES:  # the oldest entries first (dicts keep insertion order)
        files = dict(list(files.items())[-MAX_FILES:])
    d = folder(store)
    try:
        d.mkdir(mode=0o700, parents=True, exist_ok=True)
        target = _path(store, session)
        tmp = target.with_suffix(f".{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"files": files}, f)
        os.replace(tmp, target)
        _prune(d)
    except OSError:
        pass  # a full or read-only disk: the next edit of this file answers again


def _prune(d: Path) -> None:
    now = time.time()
    entries = []
    for p in d.glob("*.json"):
        try:
            entries.append((p.stat().st_mtime, p))
        except OSError:
            continue
    entries.sort(reverse=True)
    for i, (mtime, p) in enumerate(entries):
        if i >= MAX_SESSIONS or now - mtime > MAX_AGE_SECONDS:
            try:
                p.unlink()
            except OSError:
                pass
