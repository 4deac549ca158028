"""A worktree seed that would change nothing, known before reading a file: the no-op every hook, watcher
and daemon refresh pays.

Why: a full seed that finds nothing to change still reads, parses and resolves every record and rewrites
the view (0.2-0.3 s for 1,000 records, 3-4 % of a cold seed). What it depends on is cheaper to look at: the
git state (HEAD, refs, the index file), `git status` (which the seed reads anyway), the metadata of every
file and folder under the roots and of every path git reports, the settings, the package's code and the
model, and the index it would write to (the catalog's file and generation, the vector collection and its
count). When all of that equals what it was before the last seed of the view, that seed left the index as
a full seed would leave it now, so the answer is that seed's report as a no-op (nothing added, updated,
removed or embedded; the same records, errors and warnings) and nothing is written, as `make` trusts a
target newer than its inputs.

The look is taken before the seed reads, so an edit made while it runs changes the next look. A file
changed within two seconds of the look is not trusted to its metadata (a file system may keep one
timestamp per second or two, as git's "racily clean" check knows): its content is compared instead, with
the bytes the seed read, and when the seed read none (a non-record file, uncommitted code outside the
roots) nothing is remembered. Once its window has passed (at the end of a seed that ran longer, or at a
later check) a racy file whose bytes are still those the seed read is trusted to its metadata again.
Folders are looked at by kind and inode only: what they hold is the list of their entries, each looked at
on its own. Anything else that writes to the catalog bumps its generation, and the next seed reads
everything.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import __version__
from ..base.files import atomic_write
from ..config import Settings
from ..git import drift as drift_git
from ..git.state import fingerprint, status_paths
from ..index.handle import Index
from .reading import options_key
from .sources import walk_root

FILE = "noop-seeds.json"  # in the workspace folder: view -> what its last seed looked at, and its no-op report
RACY_NS = 2_000_000_000  # a file changed this close to the look is compared by content, not by metadata
NOTHING_DONE = {"added": [], "updated": [], "removed": [], "embedded_chunks": 0, "deleted_vectors": 0}


def _stat(st: os.stat_result) -> tuple[list[Any], int]:
    if stat.S_ISDIR(st.st_mode):  # its entries are looked at one by one; its times change with theirs
        return [st.st_mode, st.st_ino], 0
    return [st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino], st.st_mtime_ns


def _meta(path: str) -> tuple[str, int]:
    """(what identifies this version of the path, its modification time; 0 for a folder): a symlink's
    target's too."""
    try:
        out, newest = _stat(os.lstat(path))
    except OSError:
        return "missing", 0
    if stat.S_ISLNK(out[0]):
        try:
            target, t = _stat(os.stat(path))
            out += [*target, os.readlink(path)]
            newest = max(newest, t)
        except OSError:
            out.append("dangling")
    return " ".join(map(str, out)), newest


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def content(path: Path) -> str:
    """What a racy path is compared by: the digest of its bytes, as the seed read them (symlinks followed)."""
    try:
        return digest(path.read_bytes())
    except OSError:
        return "unreadable"


@dataclass(frozen=True)
class Look:
    """What a worktree seed's reading depends on, as seen before it read anything."""

    view: str
    status: bytes  # the worktree's `git status`: the full seed uses it for dirty paths and drift
    base: str  # a hash of what is not a file: versions, settings, model, git state, `git status`
    paths: dict[str, tuple[str, int]]  # repo-relative path -> (its metadata, its modification time ns)
    at: int  # when it was looked at (ns)

    def racy(self) -> set[str]:
        """The files changed too close to the look for their metadata to show a second change."""
        return {p for p, (_, t) in self.paths.items() if t >= self.at - RACY_NS}

    def seen(self, contents: dict[str, str]) -> str:
        """A hash of all of it, the paths in `contents` by their content instead of their metadata."""
        h = hashlib.sha256(self.base.encode())
        for p in sorted(self.paths):
            h.update(f"{p}\0{contents.get(p) or self.paths[p][0]}\n".encode("utf-8", "surrogateescape"))
        return h.hexdigest()


@functools.cache
def code_fingerprint() -> str:
    """A hash of the package's code as this process loaded it (every `.py` file, by content). A seed's answer
    depends on more than the parser (`options_key` covers `records/`): lifecycle, chunking, drift, the catalog
    writes. After a fix in any of them the next seed must not be a no-op, or a record the fixed code retires
    stays `accepted` until a record file changes (issue 35, item 5). Once per process, ~5 ms."""
    pkg = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for p in sorted(pkg.rglob("*.py")):
        h.update(p.relative_to(pkg).as_posix().encode() + b"\0" + p.read_bytes())
    return h.hexdigest()[:16]


def take_look(root: Path, settings: Settings, identity: str, view: str) -> Look:
    at = time.time_ns()
    status = drift_git.status(root)
    h = hashlib.sha256()
    parts = [__version__, code_fingerprint(), identity, options_key(settings), repr(settings), fingerprint(root)]
    h.update(json.dumps(parts).encode())
    h.update(status)
    paths: dict[str, tuple[str, int]] = {}
    for rel in status_paths(status):  # uncommitted edits to cited code, outside the roots too
        paths[rel] = _meta(os.path.join(root, rel))
    for r in settings.roots:
        base = root / r
        paths[f"{r}\0root"] = _meta(str(base))
        if not base.is_dir():
            continue
        for dirpath, dirnames, filenames in walk_root(base, r in settings.shallow_roots):
            reldir = os.path.relpath(dirpath, root)
            for name in filenames + dirnames:  # a folder: a symlinked one is a warning
                rel = name if reldir == "." else f"{reldir}/{name}"
                paths[rel] = _meta(os.path.join(dirpath, name))
    return Look(view, status, h.hexdigest(), paths, at)


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


def stored_report(wsdir: Path, root: Path, look: Look, index: Index) -> dict[str, Any] | None:
    """The no-op report of the view's last seed when nothing it depends on has changed since. A file that
    was racy then and has its bytes but is no longer racy now is from now on looked at by its metadata."""
    stored = _read(wsdir)
    entry = stored.get(look.view)
    if not isinstance(entry, dict) or entry.get("index") != index_state(index):
        return None
    racy, report = entry.get("racy"), entry.get("report")
    if not isinstance(racy, list) or not isinstance(report, dict) or not set(racy) <= look.paths.keys():
        return None
    contents = {p: content(root / p) for p in racy}
    if entry.get("seen") != look.seen(contents):
        return None
    still = look.racy()  # within the old racy set: any other file kept the metadata it had then
    if still < set(racy):
        entry.update(seen=look.seen({p: contents[p] for p in still}), racy=sorted(still))
        atomic_write(wsdir / FILE, json.dumps(stored))
    return report


def _settled(root: Path, look: Look, racy: set[str], read: dict[str, str]) -> set[str]:
    """The racy files a seed that ran past their racy window can trust to their metadata from now on: read
    again after the window, they still hold the bytes the seed read, and any later write moves their mtime."""
    now = time.time_ns()
    return {p for p in racy if look.paths[p][1] + RACY_NS <= now and p in read and content(root / p) == read[p]}


def remember(wsdir: Path, root: Path, look: Look, index: Index, report: dict, read: dict[str, str]) -> bool:
    """Keep what a seed looked at, with `report` as the no-op it becomes; `read`: the digest of every file
    the seed read (path -> `content()`). False when a file changed too recently to be trusted to its
    metadata was not read by the seed (then any earlier look of the view is forgotten)."""
    stored = _read(wsdir)
    racy = look.racy()
    racy -= _settled(root, look, racy, read)
    if racy - read.keys():
        if stored.pop(look.view, None) is None:
            return False  # nothing to forget: no write
    else:
        stored[look.view] = {
            "seen": look.seen({p: read[p] for p in racy}),
            "racy": sorted(racy),
            "index": index_state(index),
            "report": {**report, **NOTHING_DONE, "unchanged": report["records"]},
        }
    atomic_write(wsdir / FILE, json.dumps(stored))
    return look.view in stored
