"""Paths a person or an agent gives, as the repository-relative paths records cite: the one place where
`payments.py` typed in `src/shop/`, `../shop/payments.py`, `./payments.py` and `/home/me/repo/src/shop/
payments.py` all become `src/shop/payments.py` (docs/commands.md#paths; dec-paths-from-where-you-stand).

The rules, for every surface (CLI options and arguments, the HTTP API's and the MCP tools' `files` with
their optional `cwd`, the agent hooks' payloads):

- an absolute path must lie inside the repository;
- a relative path is read from `cwd` when `cwd` is inside the repository (the CLI's current folder, a hook's
  `cwd`); when `cwd` is outside it (`--repo` names another checkout) it is read from `cwd` if it names
  something there that lies inside the repository, else from the repository root;
- without `cwd` (an API or MCP call that sends none) a relative path is repository-relative.

A path that lands outside the repository is refused with `request/path-outside-repo`, naming the path and
the fix: matched as written it could only ever answer an empty list, which would read as "nothing governs
this file". A path that names nothing in the view is still answered (a record may cite a folder a new file
will live in), with a note saying so (`missing_in_view`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from ..base import error_codes as E
from ..base.errors import JgmError

CWD_DOC = (
    "The folder relative `files` are given from (an agent's working directory), absolute or relative to the "
    "repository root; without it they are repository-relative. Absolute paths must lie inside the repository."
)


class PathOutsideRepo(JgmError):
    """A path that names a place outside the repository the command works on."""

    entry = E.REQUEST_PATH_OUTSIDE_REPO

    def __init__(self, path: str, root: Path, where: str) -> None:
        super().__init__(
            f"{path} is outside the repository {root}: name a path inside it (absolute, or relative to {where}); "
            "a file of another repository is asked of that repository (`--repo`, or its workspace)",
            path=path,
            repository=str(root),
        )


def _lexical(path: str) -> str | None:
    """`a/./b/../c` as `a/c` without touching the disk (a symlink is not followed); None when it climbs out."""
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                return None
            parts.pop()
        else:
            parts.append(part)
    return "/".join(parts)


def _inside(root: Path, path: Path) -> str | None:
    """`path` (absolute) relative to `root`, as written or with symlinks resolved (`/tmp` is `/private/tmp`
    on macOS); None when it lies outside."""
    lexical = Path(os.path.normpath(path))
    for top, p in ((root, lexical), (root.resolve(), lexical), (root.resolve(), path.resolve())):
        try:
            rel = p.relative_to(top).as_posix()
        except ValueError:
            continue
        return "" if rel == "." else rel
    return None


def repo_path(root: Path, path: str, cwd: str | Path | None = None) -> str:
    """`path` as a repository-relative POSIX path ("" for the root itself; a trailing `/` is kept), by the
    module's rules; PathOutsideRepo when it lies outside the repository."""
    text = str(path).strip()
    posix = text.replace("\\", "/")
    trail = "/" if posix.endswith("/") and posix.strip("/") else ""
    root = Path(root)
    here = None if cwd is None or str(cwd) == "" else Path(cwd)
    if here is not None and not here.is_absolute():
        here = root / here
    if Path(posix).is_absolute():
        rel = _inside(root, Path(posix))
        if rel is None:
            raise PathOutsideRepo(text, root, "the current folder" if here else "the repository root")
        return _with(rel, trail)
    if here is not None:
        from_here = _inside(root, here)
        if from_here is not None:  # standing in the repository: the path is read from where one stands
            rel = _lexical(f"{from_here}/{posix}" if from_here else posix)
            if rel is None:
                raise PathOutsideRepo(text, root, f"the current folder {here}")
            return _with(rel, trail)
        there = here / posix
        if there.exists():  # `--repo` elsewhere: a path that exists from here and lies in the repository
            rel = _inside(root, there)
            if rel is not None:
                return _with(rel, trail)
    rel = _lexical(posix)
    if rel is None:
        raise PathOutsideRepo(text, root, "the repository root")
    return _with(rel, trail)


# what may follow a cited path: a line or range (`:22`, `:10-40`) or a symbol / pytest id (`::Class.method`)
_CITED_SUFFIX = re.compile(r"(?:::[\w.\[\]-]+|:\d+(?:-\d+)?)$")


def cited_path(root: Path, text: str, cwd: str | Path | None = None) -> str:
    """A citation a candidate brings (`evidence`, `source`) with its path part read as `repo_path` reads it,
    its `:22` / `::name` suffix kept. Only what names a repository path is rewritten: an absolute path inside
    the repository, an explicit `./` or `../` one, or a bare one that exists from `cwd` but not at the root.
    Anything else (a URL, a command, a report outside the repository, a path already repository-relative)
    is kept as written, for the evidence reader to judge."""
    t = text.strip()
    if not t or any(c.isspace() for c in t) or "://" in t:
        return text
    m = _CITED_SUFFIX.search(t)
    path, suffix = (t[: m.start()], m.group()) if m else (t, "")
    if not path.startswith(("./", "../", "/")):
        here = None if cwd is None else Path(root) / cwd
        if here is None or not (here / path).exists() or (Path(root) / path).exists():
            return text
    try:
        rel = repo_path(root, path, cwd)
    except PathOutsideRepo:
        return text
    return rel + suffix if rel else text


def _with(rel: str, trail: str) -> str:
    return rel + trail if rel else rel


def repo_paths(root: Path, paths: Iterable[str], cwd: str | Path | None = None) -> list[str]:
    """Each of `paths` through `repo_path`, blanks dropped, each once, in the order given. The repository
    root itself (`.` typed at the top) is no file a record could cite: a ValueError names the fix."""
    out: list[str] = []
    for p in paths:
        if not str(p).strip():
            continue
        rel = repo_path(root, p, cwd)
        if not rel:
            raise ValueError(f"{p} names the whole repository {root}: name a file or a folder in it")
        if rel not in out:
            out.append(rel)
    return out


def missing_in_view(root: Path, files: Iterable[str], at: str | None = None) -> list[str]:
    """A note for each of `files` that names nothing in the view: the working tree, or the commit `at` names.
    A glob is a pattern, not a file, and is never reported; nor is anything when `at` names no commit (the
    operation itself says so)."""
    from ..records.citations import classify

    commit = None
    if at:
        from ..git.listing import object_exists
        from ..git.revisions import commit_of

        commit = commit_of(root, at)
        if commit is None:
            return []
    notes = []
    for f in files:
        name = f.rstrip("/")
        if not name or classify(f) == "glob":
            continue
        found = object_exists(root, f"{commit}:{name}") if commit else (Path(root) / name).exists()
        if not found:
            notes.append(f"no file {f} in this view" + (f" ({at})" if at else ""))
    return notes
