"""Read candidate record files from the working tree or straight from Git objects (`--rev`)."""

from __future__ import annotations

import fnmatch
import functools
import os
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..config import DEFAULT_IGNORE, Settings
from ..git import state
from ..git.listing import blobs, tree_entries
from ..git.revisions import resolve_commit
from ..git.state import status_paths
from ..records.formats.ids import collection_number, folder_record
from ..records.formats.sidecar import SIDECAR_NAMES, Sidecar, read_sidecar, sidecar_paths
from ..records.model import Issue

_FOLDER_RECORD_PATTERNS = frozenset({"**/README.md", "**/index.md"})  # a numbered folder's README is its record


@dataclass
class SourceFile:
    path: str  # repo-relative POSIX
    data: bytes | None  # None with an issue when unreadable
    sidecar: Sidecar | None = None  # its status file (a KEP's kep.yaml beside its README)


def worktree_sidecar(root: Path, rel: str) -> Sidecar | None:
    """The status file beside a record in the working tree (records/formats/sidecar.py), if there is one."""
    for name in sidecar_paths(rel):
        full = root / name
        if full.is_file() and not full.is_symlink():
            try:
                return read_sidecar(name, full.read_bytes())
            except OSError:
                return None
    return None


@functools.lru_cache(maxsize=512)
def _compiled(pat: str) -> tuple[re.Pattern[str], re.Pattern[str] | None, tuple[re.Pattern[str], ...] | None]:
    """`pat` compiled once: the glob over the whole path, a `**/` pattern's glob over the name, and the
    segments `PurePosixPath.match` compares from the right (None for an anchored pattern: pathlib decides)."""
    name = re.compile(fnmatch.translate(pat[3:])) if pat.startswith("**/") else None
    parts = (
        None
        if pat.startswith("/")
        else tuple(re.compile(fnmatch.translate(x)) for x in pat.split("/") if x not in ("", "."))
    )
    return re.compile(fnmatch.translate(pat)), name, parts


def _match(path: str, pat: str) -> bool:
    """`PurePosixPath(path).match(pat)` (segments from the right), the glob over the whole path, or a `**/`
    pattern against the name, as fnmatch would answer them (POSIX: case as written). Compiled once per
    pattern: every seed asks this for every Markdown file and every ignore pattern."""
    whole, name, parts = _compiled(pat)
    have = [x for x in path.split("/") if x not in ("", ".")]
    if whole.match(path) or (name is not None and name.match(have[-1] if have else "")):
        return True
    if parts is None:
        return PurePosixPath(path).match(pat)
    return bool(parts) and len(parts) <= len(have) and all(w.match(h) for h, w in zip(reversed(have), reversed(parts)))


@functools.lru_cache(maxsize=1 << 16)
def _ignored(path: str, patterns: tuple[str, ...]) -> bool:
    """Our default patterns ignore case (`0000-TEMPLATE.md`, `Readme.md`); the user's are matched as written.
    A numbered folder's README is not ignored: it is that folder's record (`rfcs/0006-x/README.md`).
    Pure, so remembered per (path, patterns): a long-lived seeder (watcher, server) asks it every seed."""
    low = path.lower()
    for pat in patterns:
        if pat in DEFAULT_IGNORE:
            if pat in _FOLDER_RECORD_PATTERNS and folder_record(path):
                continue
            if _match(low, pat.lower()):
                return True
        elif _match(path, pat):
            return True
    return False


def in_root(path: str, root: str, shallow: bool = False) -> bool:
    """True when `path` lies under `root` (`.` is the whole repository). A shallow root holds only its own
    files and its numbered folders' READMEs, not its subfolders (discovery's root-level collection)."""
    r = root.strip("/")
    if r in ("", "."):
        rest = path
    elif path.startswith(r + "/"):
        rest = path[len(r) + 1 :]
    else:
        return path == r
    return not shallow or "/" not in rest or (rest.count("/") == 1 and folder_record(path))


def root_of(path: str, settings: Settings) -> str | None:
    """The deepest root holding `path` (`knowledge/x.md` belongs to `knowledge`, not to `.`)."""
    return _root_of(path, tuple(settings.roots), tuple(settings.shallow_roots))


@functools.lru_cache(maxsize=1 << 16)
def _root_of(path: str, roots: tuple[str, ...], shallow_roots: tuple[str, ...]) -> str | None:
    best = None
    for r in roots:
        if in_root(path, r, r in shallow_roots) and (best is None or len(r.strip("./")) > len(best.strip("./"))):
            best = r
    return best


def is_record_path(path: str, settings: Settings) -> bool:
    """True for a Markdown file under a knowledge root that is not ignored."""
    if not path.lower().endswith((".md", ".markdown")):
        return False
    if root_of(path, settings) is None:
        return False
    return not _ignored(path, tuple(settings.ignore))


def display_path(path: str) -> str:
    """A path as printable text: bytes that are not UTF-8 (kept as surrogates by os and git) shown as \\xNN."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _name_issue(path: str) -> Issue | None:
    """A file name that is not UTF-8 cannot be stored (catalog, Chroma metadata, JSON): name it instead."""
    try:
        path.encode("utf-8")
        return None
    except UnicodeEncodeError:
        return Issue(
            display_path(path),
            "file name is not valid UTF-8, so it cannot be indexed",
            "rename the file (e.g. `git mv`) to a UTF-8 name",
        )


def ignored_reason(path: str, settings: Settings) -> str | None:
    """Why a Markdown file under a root is not read (for the per-root report), or None when it is read."""
    if not path.lower().endswith((".md", ".markdown")) or not _ignored(path, tuple(settings.ignore)):
        return None
    name = PurePosixPath(path).name.lower()
    if name in ("readme.md", "index.md") or "template" in name:
        return "ignored: README, index or template"
    return "ignored by `ignore` patterns"


def walk_root(base: Path, shallow: bool):
    """os.walk of a root as seeding reads it: no dot folders, and a shallow root's own files plus the README
    of each numbered folder right under it. The no-op check (seed/unchanged.py) walks the same folders."""
    for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        if shallow:
            dirnames[:] = [d for d in dirnames if Path(dirpath) == base and collection_number(d) is not None]
        yield dirpath, dirnames, filenames


def read_worktree(
    root: Path, settings: Settings, ignored: list[dict] | None = None
) -> tuple[list[SourceFile], list[Issue]]:
    """Record files under the roots; Markdown files left out by `ignore` go to `ignored` when given."""
    files: list[SourceFile] = []
    issues: list[Issue] = []
    seen: set[str] = set()  # a root inside another root (`.` and `knowledge`) reads each file once
    real_root = root.resolve()
    for r in settings.roots:
        base = root / r
        shallow = r in settings.shallow_roots
        if not base.is_dir():
            continue
        if not base.resolve().is_relative_to(real_root):  # the same rule as for files: nothing from outside
            issues.append(
                Issue(
                    r,
                    f"knowledge root points outside the repository ({base.resolve()})",
                    "replace the link with the folder itself, or change `roots` in jgm.toml",
                )
            )
            continue
        for dirpath, dirnames, filenames in walk_root(base, shallow):
            for d in dirnames:  # os.walk does not follow them: say so instead of silently skipping records
                if (Path(dirpath) / d).is_symlink():
                    issues.append(
                        Issue(
                            (Path(dirpath) / d).relative_to(root).as_posix(),
                            "symlinked folder under a knowledge root is not followed",
                            "move the records into the repository instead of linking the folder",
                            severity="warning",
                        )
                    )
            reldir = Path(dirpath).relative_to(root).as_posix()
            for fn in sorted(filenames):
                rel = fn if reldir == "." else f"{reldir}/{fn}"  # what `relative_to(root).as_posix()` gives
                if rel in seen:
                    continue
                seen.add(rel)
                if not is_record_path(rel, settings):
                    why = ignored_reason(rel, settings) if ignored is not None else None
                    if why:
                        ignored.append({"path": rel, "reason": why})
                    continue
                full = Path(dirpath) / fn
                if bad := _name_issue(rel):
                    issues.append(bad)
                    continue
                if full.is_symlink():
                    try:  # a loop raises RuntimeError (3.11) or OSError (3.13); a dangling link FileNotFoundError
                        target = full.resolve(strict=True)
                    except (OSError, RuntimeError):
                        issues.append(
                            Issue(
                                rel,
                                f"symlink cannot be resolved: a loop or a missing target ({os.readlink(full)})",
                                "point the link at an existing file inside the repository, or remove it",
                            )
                        )
                        continue
                    if not target.is_relative_to(real_root):
                        issues.append(
                            Issue(
                                rel,
                                f"symlink points outside the repository ({os.readlink(full)})",
                                "replace the link with the file itself, or remove it",
                            )
                        )
                        continue
                try:
                    files.append(SourceFile(rel, full.read_bytes(), worktree_sidecar(root, rel)))
                except OSError as e:
                    issues.append(Issue(rel, f"cannot read file: {e.strerror}", "check the file's permissions"))
    return files, issues


def read_rev(
    root: Path, rev: str, settings: Settings, ignored: list[dict] | None = None
) -> tuple[list[SourceFile], list[Issue]]:
    """Files at commit `rev`, from Git objects only (the working tree is not touched)."""
    commit = resolve_commit(root, rev)  # UnknownRevision (revision/not-found) naming it
    listing = tree_entries(root, commit, settings.roots)
    entries = []
    issues: list[Issue] = []
    status_files: dict[str, str] = {}  # path -> blob of every possible status file (kep.yaml)
    for item in filter(None, listing):
        info, _, path_b = item.partition(b"\t")
        mode, otype, sha = info.decode().split()
        path = path_b.decode("utf-8", "surrogateescape")
        if otype == "blob" and mode != "120000" and PurePosixPath(path).name in SIDECAR_NAMES:
            status_files[path] = sha
        if otype != "blob" or not is_record_path(path, settings):
            why = ignored_reason(path, settings) if ignored is not None and otype == "blob" else None
            if why and root_of(path, settings) is not None:
                ignored.append({"path": path, "reason": why})
            continue
        if bad := _name_issue(path):
            issues.append(bad)
            continue
        if mode == "120000":
            issues.append(Issue(path, "symlink in the commit is not followed by `--rev`", "commit the file itself"))
            continue
        entries.append((path, sha))
    if not entries:
        return [], issues
    wanted = {p: status_files[p] for path, _ in entries for p in sidecar_paths(path) if p in status_files}
    datas = blobs(root, [sha for _, sha in entries] + list(wanted.values()))
    side = {p: read_sidecar(p, d) for p, d in zip(wanted, datas[len(entries) :], strict=True)}
    files = []
    for (path, _sha), data in zip(entries, datas, strict=False):
        near = next((side[p] for p in sidecar_paths(path) if p in side), None)
        files.append(SourceFile(path, data, near))
    return files, issues


def dirty_paths(root: Path, settings: Settings, status: bytes | None = None) -> set[str]:
    """Paths under the roots whose working-tree content differs from HEAD (incl. untracked). `status`: the
    whole worktree's `git status` (git/state.status), which a seed reads anyway for evidence drift:
    filtered here as the roots' pathspecs would (a folder and everything below it, a shallow root included),
    instead of asking git a second time. Roots a pathspec would read as a pattern still ask git."""
    prefixes = _pathspec_prefixes(settings.roots)
    if status is not None and prefixes is not None:
        return {p for p in status_paths(status) if any(not r or p == r or p.startswith(r + "/") for r in prefixes)}
    return set(status_paths(state.status(root, settings.roots)))


def _pathspec_prefixes(roots) -> list[str] | None:
    """The roots as the folder prefixes git's pathspecs match ("" for the whole repository), or None when
    one would be read by git as more than a folder (glob characters, `:` magic, outside the repository)."""
    out = []
    for r in roots:
        n = posixpath.normpath(r)
        if n.startswith(":") or n == ".." or n.startswith("../") or n.startswith("/") or any(c in n for c in "*?[]\\"):
            return None
        out.append("" if n == "." else n)
    return out
