"""Record files changed since the last seed of a worktree view, seen by a read without reading them.

Why: a read refreshes a view whose git state moved (git/state.fingerprint: HEAD, refs, the index file), but an
unstaged edit, a new untracked record or a deleted file moves none of that, and without a watcher the old
index answered as if nothing had changed. A full no-op look (seed/unchanged.py) runs `git status` and hashes
settings and code: tens of milliseconds, too much for every recall. This is cheaper: each worktree seed keeps,
per view, the metadata of every record file (and status sidecar) it was about to read, taken before reading,
and the digest of the bytes it read. A read walks the same folders (sources.walk_root), stats the same files
and compares: a path not kept is added, a kept one gone is deleted, a changed signature is read and compared
by digest (a `touch`, or a checkout of the same bytes, is no change). A file changed within RACY_NS of the
seed's look may change again without its metadata showing it, so it is always compared by content. The cost
at 1,000 records is in bench/stale_check.py (a few milliseconds, within the warm API's 25 ms p50).
"""

from __future__ import annotations

import functools
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..base.files import atomic_write
from ..config import Settings
from ..records.formats.sidecar import SIDECAR_NAMES, sidecar_paths
from .sources import is_record_path, walk_root
from .unchanged import RACY_NS, content

FILE = "record-files.json"  # in the workspace folder: view -> what its last worktree seed read
SHOWN = 5  # files a warning names; the rest are counted


def _sig(path: str) -> str:
    """The metadata that moves when a file is written, replaced or moved over (symlinks followed)."""
    try:
        st = os.stat(path)
    except OSError:
        return "missing"
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}"


def look(root: Path, settings: Settings) -> dict[str, str]:
    """repo-relative path -> signature, for every file a worktree seed reads as a record or a status sidecar."""
    out: dict[str, str] = {}
    top = str(root)
    for r in settings.roots:
        base = root / r
        if not base.is_dir():
            continue
        for dirpath, _dirs, files in walk_root(base, r in settings.shallow_roots):
            reldir = os.path.relpath(dirpath, top)
            for fn in files:
                rel = fn if reldir == "." else f"{reldir}/{fn}"
                if rel not in out and (is_record_path(rel, settings) or _beside_a_record(rel, files, reldir, settings)):
                    out[rel] = _sig(os.path.join(dirpath, fn))
    return out


def _beside_a_record(rel: str, files: list[str], reldir: str, settings: Settings) -> bool:
    """A status sidecar (a KEP's kep.yaml) that a record in the same folder reads its status from."""
    if rel.rpartition("/")[2] not in SIDECAR_NAMES:
        return False
    names = (f if reldir == "." else f"{reldir}/{f}" for f in files)
    return any(rel in sidecar_paths(n) for n in names if is_record_path(n, settings))


@dataclass
class Taken:
    """A look taken before a seed reads: what `remember` keeps once the seed has written."""

    files: dict[str, str]
    at: int = field(default_factory=time.time_ns)


def take(root: Path, settings: Settings) -> Taken:
    at = time.time_ns()
    return Taken(look(root, settings), at)


def remember(wsdir: Path, view: str, taken: Taken, digests: dict[str, str]) -> None:
    """Keep what the seed of `view` read: each file's signature before reading and the digest of its bytes."""
    stored = dict(_load(wsdir / FILE))  # a copy: the parsed file is cached
    stored[view] = {"at": taken.at, "files": {p: [s, digests.get(p)] for p, s in taken.files.items()}}
    atomic_write(wsdir / FILE, json.dumps(stored))


def _load(path: Path) -> dict:
    try:
        st = path.stat()
    except OSError:
        return {}
    return _parsed(str(path), st.st_mtime_ns, st.st_size, st.st_ino)


@functools.lru_cache(maxsize=16)
def _parsed(path: str, _mtime: int, _size: int, _ino: int) -> dict:
    """The kept looks, parsed once per version of the file (a server reads them on every recall)."""
    try:
        got = json.loads(Path(path).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return got if isinstance(got, dict) else {}


@dataclass
class Changes:
    """Record files whose content differs from what the view's last seed indexed."""

    edited: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.edited) + len(self.added) + len(self.deleted)

    def named(self) -> str:
        """`a.md (edited), b.md (added) and 3 more`: the first SHOWN files by name."""
        kinds = (("edited", self.edited), ("added", self.added), ("deleted", self.deleted))
        items = [f"{p} ({how})" for how, paths in kinds for p in paths]
        more = len(items) - SHOWN
        return ", ".join(items[:SHOWN]) + (f" and {more} more" if more > 0 else "")


def changes(wsdir: Path, root: Path, settings: Settings, view: str) -> Changes | None:
    """What changed since the view's last worktree seed; None when no seed of this version kept its look
    (a store seeded before this check existed: its next seed keeps one)."""
    entry = _load(wsdir / FILE).get(view)
    if not isinstance(entry, dict) or not isinstance(entry.get("files"), dict):
        return None
    kept: dict[str, list] = entry["files"]
    racy_after = int(entry.get("at") or 0) - RACY_NS
    now = look(root, settings)
    out = Changes()
    for path, sig in now.items():
        was = kept.get(path)
        if was is None:
            out.added.append(path)
            continue
        if sig == was[0] and not _racy(sig, racy_after):
            continue
        if was[1] is None or content(root / path) != was[1]:
            out.edited.append(path)
    out.deleted = sorted(p for p in kept if p not in now)
    out.added.sort()
    out.edited.sort()
    return out


def _racy(sig: str, after: int) -> bool:
    """Modified so close to the seed's look that a second write could have left the same metadata."""
    parts = sig.split(":")
    return len(parts) == 4 and int(parts[1]) >= after
