"""A worktree seed that would change nothing, known before reading a file: the no-op every hook, watcher
and daemon refresh pays.

Why: a full no-op seed reads, parses and resolves every record and rewrites the view to find out that nothing
changed (0.3 s for 1,000 records, 4 % of a cold seed). What it depends on is cheaper to look at: the git
state (HEAD, refs, the index file), `git status` (which the seed reads anyway), the metadata of every file
and folder under the roots, the settings, the parser's code and the model, and the index it would write to (the catalog's file
and generation, the vector collection and its count). When all of that equals what it was before a seed
that found nothing to change, the next seed's answer is that seed's report, and it writes nothing.

Stored only after a seed that changed nothing, so the report it gives back is a no-op's. A file changed
within two seconds of the look is never trusted to its metadata (a file system may keep one timestamp per
second or two, as git's "racily clean" check knows): the next seed then reads everything again. Anything
else that writes to the catalog bumps its generation, and the next seed reads everything.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import __version__
from ..base.files import atomic_write
from ..config import Settings
from ..index import drift_git
from ..index.handle import Index
from ..index.views import fingerprint
from .reading import options_key
from .sources import status_paths, walk_root

FILE = "noop-seeds.json"  # in the workspace folder: view -> what the last no-op seed looked at, and its report
RACY_NS = 2_000_000_000  # a file changed this close to the look is read, not trusted to its metadata


def _meta(path: str) -> tuple[list[Any], int]:
    """(what identifies this version of the path, its modification time): a symlink's target's too."""
    try:
        st = os.lstat(path)
    except OSError:
        return ["missing"], 0
    out: list[Any] = [st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]
    newest = st.st_mtime_ns  # a later write moves mtime past it: only mtime's granularity makes a race
    if os.path.islink(path):
        try:
            tg = os.stat(path)
            out += [tg.st_mode, tg.st_size, tg.st_mtime_ns, tg.st_ctime_ns, tg.st_ino, os.readlink(path)]
            newest = max(newest, tg.st_mtime_ns)
        except OSError:
            out.append("dangling")
    return out, newest


@dataclass(frozen=True)
class Look:
    """What a worktree seed's reading depends on, as seen before it read anything."""

    view: str
    status: bytes  # the worktree's `git status`: the full seed uses it for dirty paths and drift
    seen: str  # a hash of all of it
    newest: int  # the newest modification time among the files looked at (ns)
    at: int  # when it was looked at (ns)


def take_look(root: Path, settings: Settings, identity: str, view: str) -> Look:
    at = time.time_ns()
    status = drift_git.status(root)
    seen, newest = _hash(root, settings, identity, status)
    return Look(view, status, seen, newest, at)


def _hash(root: Path, settings: Settings, identity: str, status: bytes) -> tuple[str, int]:
    """(a hash of everything a worktree seed reads, the newest timestamp among the files it looked at)."""
    h = hashlib.sha256()
    h.update(json.dumps([__version__, identity, options_key(settings), repr(settings), fingerprint(root)]).encode())
    h.update(status)
    newest = 0
    for rel in sorted(set(status_paths(status))):  # uncommitted edits to cited code, outside the roots too
        meta, t = _meta(os.path.join(root, rel))
        h.update(json.dumps([rel, meta]).encode("utf-8", "surrogateescape"))
        newest = max(newest, t)
    for r in settings.roots:
        base = root / r
        h.update(json.dumps(["root", r, _meta(str(base))[0]]).encode())
        if not base.is_dir():
            continue
        for dirpath, dirnames, filenames in walk_root(base, r in settings.shallow_roots):
            for name in sorted(filenames) + sorted(dirnames):  # a folder: a symlinked one is a warning
                meta, t = _meta(os.path.join(dirpath, name))
                h.update(json.dumps([dirpath, name, meta]).encode("utf-8", "surrogateescape"))
                newest = max(newest, t)
    return h.hexdigest(), newest


def index_state(index: Index) -> list[Any]:
    """What the index a seed writes to looks like: another writer changes one of these."""
    file, generation = index.catalog.stamp()
    return [repr(file), generation, index.vectors.name, index.vectors.count()]


def _read(wsdir: Path) -> dict[str, Any]:
    try:
        got = json.loads((wsdir / FILE).read_text("utf-8"))
        return got if isinstance(got, dict) else {}
    except (OSError, ValueError):
        return {}


def stored_report(wsdir: Path, look: Look, index: Index) -> dict[str, Any] | None:
    """The report of the last no-op seed of the view when nothing it depends on has changed since."""
    entry = _read(wsdir).get(look.view)
    if not isinstance(entry, dict) or entry.get("seen") != look.seen or entry.get("index") != index_state(index):
        return None
    report = entry.get("report")
    return report if isinstance(report, dict) else None


def remember(wsdir: Path, look: Look, index: Index, report: dict) -> bool:
    """Keep what a seed that changed nothing looked at; False when a file was changed too recently to be
    trusted to its metadata next time (then any earlier look of the view is forgotten)."""
    stored = _read(wsdir)
    if look.newest >= look.at - RACY_NS:
        if stored.pop(look.view, None) is None:
            return False  # nothing to forget: no write
    else:
        stored[look.view] = {"seen": look.seen, "index": index_state(index), "report": report}
    atomic_write(wsdir / FILE, json.dumps(stored))
    return look.view in stored
