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
from typing import Any

from ..base.files import atomic_write
from ..config import Settings
from ..records.formats.sidecar import SIDECAR_NAMES, sidecar_paths
from .sources import is_record_path, walk_root
from .unchanged import RACY_NS, content

FILE = "record-files.json"  # in the workspace folder: view -> what its last worktree seed read
SHOWN = 5  # files a warning names; the rest are counted


Sig = tuple[int, int, int, int] | None  # (size, mtime ns, ctime ns, inode); None: no such file


def _sig(path: str) -> Sig:
    """The metadata that moves when a file is written, replaced or moved over (symlinks followed)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def _racy(sig: Sig, after: int) -> bool:
    """Modified so close to the seed's look that a second write could have left the same metadata."""
    return sig is not None and sig[1] >= after


def look(root: Path, settings: Settings) -> tuple[dict[str, Sig], dict[str, Sig]]:
    """(repo-relative path -> signature of every file a worktree seed reads as a record or a status sidecar,
    the same for every folder walked to find them and for each root, "missing" where there is none)."""
    out: dict[str, Sig] = {}
    folders: dict[str, Sig] = {}
    top = str(root)
    for r in settings.roots:
        base = root / r
        if not base.is_dir():
            folders[os.path.normpath(r)] = None
            continue
        for dirpath, _dirs, files in walk_root(base, r in settings.shallow_roots):
            reldir = os.path.relpath(dirpath, top)
            folders[reldir] = _sig(dirpath)
            for fn in files:
                rel = fn if reldir == "." else f"{reldir}/{fn}"
                if rel not in out and (is_record_path(rel, settings) or _beside_a_record(rel, files, reldir, settings)):
                    out[rel] = _sig(os.path.join(dirpath, fn))
    return out, folders


def _quick(plan: _Plan) -> list[str] | None:
    """The kept files whose metadata moved or that are racy, without walking: a folder whose metadata is
    unchanged holds the same entries (adding, removing or renaming one moves its mtime). None when a
    folder changed or was changed too close to the seed's look to be sure: walk instead."""
    if plan.folders is None or any(_sig(d) != sig for d, sig in plan.folders):
        return None
    return [rel for rel, full, sig in plan.files if _sig(full) != sig] + plan.racy


def _key(settings: Settings) -> str:
    return repr((settings.roots, settings.shallow_roots, settings.ignore))


def _beside_a_record(rel: str, files: list[str], reldir: str, settings: Settings) -> bool:
    """A status sidecar (a KEP's kep.yaml) that a record in the same folder reads its status from."""
    if rel.rpartition("/")[2] not in SIDECAR_NAMES:
        return False
    names = (f if reldir == "." else f"{reldir}/{f}" for f in files)
    return any(rel in sidecar_paths(n) for n in names if is_record_path(n, settings))


@dataclass
class Taken:
    """A look taken before a seed reads: what `remember` keeps once the seed has written."""

    files: dict[str, Sig]
    folders: dict[str, Sig]
    key: str
    at: int = field(default_factory=time.time_ns)


def take(root: Path, settings: Settings) -> Taken:
    at = time.time_ns()
    files, folders = look(root, settings)
    return Taken(files, folders, _key(settings), at)


def remember(wsdir: Path, view: str, taken: Taken, digests: dict[str, str]) -> None:
    """Keep what the seed of `view` read: each file's signature before reading and the digest of its bytes."""
    stored = dict(_load(wsdir / FILE))  # a copy: the parsed file is cached
    stored[view] = {
        "at": taken.at,
        "key": taken.key,
        "folders": taken.folders,
        "files": {p: [s, digests.get(p)] for p, s in taken.files.items()},
    }
    atomic_write(wsdir / FILE, json.dumps(stored))


def renew(wsdir: Path, view: str, taken: Taken) -> None:
    """After a no-op seed: keep `taken` (looked at before the no-op check, so a later edit still shows) with
    the digests the last full seed kept, which the no-op check has just found still true. Why: a look
    kept while files were racy makes every read walk and hash them until something changes; written only
    when the kept look differs or was racy."""
    entry = _load(wsdir / FILE).get(view)
    if not isinstance(entry, dict) or not isinstance(entry.get("files"), dict):
        return
    kept = entry["files"]
    if set(kept) != set(taken.files):
        return  # cannot happen after a no-op; a full seed will keep a new look
    after = int(entry.get("at") or 0) - RACY_NS
    racy = any(_racy(_tuple(v), after) for v in [*(f[0] for f in kept.values()), *entry.get("folders", {}).values()])
    same = entry.get("key") == taken.key and entry.get("folders") == {k: _list(v) for k, v in taken.folders.items()}
    same = same and all(kept[p][0] == _list(sig) for p, sig in taken.files.items())
    if same and not racy:
        return
    remember(wsdir, view, taken, {p: d for p, (_s, d) in kept.items() if d})


def _list(sig: Sig) -> list[int] | None:
    return list(sig) if sig is not None else None


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


@dataclass(frozen=True)
class _Plan:
    """A kept look ready to compare: absolute paths and signatures as tuples, built once per version."""

    files: list[tuple[str, str, Sig]]  # (repo-relative, absolute, kept signature) of the files not racy
    racy: list[str]  # kept files always compared by content
    folders: list[tuple[str, Sig]] | None  # None: some folder was racy, or the settings moved: walk


@functools.lru_cache(maxsize=16)
def _plan(file: str, version: tuple, view: str, top: str, key: str) -> _Plan | None:
    entry = _parsed(file, *version).get(view)
    if not isinstance(entry, dict) or not isinstance(entry.get("files"), dict):
        return None
    after = int(entry.get("at") or 0) - RACY_NS
    files, racy = [], []
    for rel, (sig, _digest) in entry["files"].items():
        kept = _tuple(sig)
        if _racy(kept, after):
            racy.append(rel)
        else:
            files.append((rel, os.path.join(top, rel), kept))
    folders = [(os.path.join(top, d), _tuple(sig)) for d, sig in (entry.get("folders") or {}).items()]
    sure = entry.get("key") == key and "folders" in entry and not any(_racy(sig, after) for _, sig in folders)
    return _Plan(files, racy, folders if sure else None)


def _tuple(sig: Any) -> Sig:
    return tuple(sig) if isinstance(sig, list) and len(sig) == 4 else None  # type: ignore[return-value]


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


def look_key(wsdir: Path, settings: Settings, view: str) -> tuple:
    """What a result of `changes` holds for, besides the files themselves: the view, the roots and the kept
    look's version (a seed rewrites it). seed/stale_watch.py keys its quiet result on it."""
    try:
        st = (wsdir / FILE).stat()
    except OSError:
        return (view, _key(settings), None)
    return (view, _key(settings), (st.st_mtime_ns, st.st_size, st.st_ino))


def kept_files(wsdir: Path, view: str) -> list[str]:
    """The repo-relative record files the view's last worktree seed read."""
    entry = _load(wsdir / FILE).get(view)
    files = entry.get("files") if isinstance(entry, dict) else None
    return list(files) if isinstance(files, dict) else []


def changes(wsdir: Path, root: Path, settings: Settings, view: str) -> Changes | None:
    """What changed since the view's last worktree seed; None when no seed of this version kept its look
    (a store seeded before this check existed: its next seed keeps one)."""
    path = wsdir / FILE
    try:
        st = path.stat()
    except OSError:
        return None
    version = (st.st_mtime_ns, st.st_size, st.st_ino)
    plan = _plan(str(path), version, view, str(root), _key(settings))
    if plan is None:
        return None
    kept: dict[str, list] = _parsed(str(path), *version)[view]["files"]
    out = Changes()
    moved = _quick(plan)
    if moved is None:  # walk: new and deleted files too
        now = look(root, settings)[0]
        out.added = sorted(p for p in now if p not in kept)
        out.deleted = sorted(p for p in kept if p not in now)
        racy = set(plan.racy)
        moved = [p for p, sig in now.items() if p in kept and (p in racy or sig != _tuple(kept[p][0]))]
    out.edited = sorted(p for p in moved if kept[p][1] is None or content(root / p) != kept[p][1])
    return out
