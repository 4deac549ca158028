"""`jgm agent install|uninstall|status CLIENT`: connect a client to this repository's memory, and take it back.

Uninstall restores every file byte for byte: before jgm first changes a file it keeps the file's bytes in the
repository's git dir (`<git-dir>/jgm/agent/<client>/`, never committed, per worktree), with the hash of what jgm
wrote. A file still holding exactly jgm's bytes gets its original back (a file jgm created is removed, and so is
a folder it created and left empty). A file the user edited since is not overwritten: only jgm's entries are
taken out of it, its other keys and hooks kept (and the answer says so).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...base import error_codes as E
from ...base.errors import JgmError
from ...base.files import atomic_write
from ...git.state import absolute_git_dir
from ...git.workspace import find_workspace
from .clients import CLIENTS, LOCAL, NO_LOCAL_SCOPE, RETIRED, SCOPES, Launch, ManagedFile


class AgentConfigError(JgmError, ValueError):
    entry = E.AGENT_BAD_CONFIG


class AgentWriteFailed(JgmError, OSError):
    """A write failed midway (a full or read-only disk): the repository's, not the store's, so it is named
    here rather than as a store problem, with the assurance that every file is as it was."""

    entry = E.AGENT_WRITE_FAILED


class UnknownClient(JgmError, ValueError):
    entry = E.AGENT_UNKNOWN_CLIENT


class NoSuchScope(JgmError, ValueError):
    entry = E.AGENT_NO_SUCH_SCOPE


def _client(name: str, scope: str = "project") -> tuple[ManagedFile, ...]:
    if name not in CLIENTS:
        raise UnknownClient(f"unknown client {name!r}: use one of {', '.join(CLIENTS)}")
    if scope not in SCOPES:
        raise NoSuchScope(f"unknown scope {scope!r}: use project (files a team commits) or local (this machine)")
    if scope == "local" and name not in LOCAL:
        raise NoSuchScope(
            f"{name} has no local scope: {NO_LOCAL_SCOPE[name]}; use --scope project (portable: `jgm` on PATH)"
        )
    return LOCAL[name] if scope == "local" else CLIENTS[name]


def locate(root: Path, rel: str) -> Path:
    """A managed file's path: in the repository, or (`~/…`) in the user's home, each checked as `in_repo` does."""
    if rel.startswith("~/"):
        return in_repo(Path.home(), rel[2:])
    return in_repo(root, rel)


def _sha(b: bytes | None) -> str | None:
    return hashlib.sha256(b).hexdigest() if b is not None else None


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _parse(path: Path, raw: bytes | None, text: bool = False) -> Any:
    if text:
        try:
            return (raw or b"").decode("utf-8")
        except UnicodeDecodeError as e:
            raise AgentConfigError(f"{path}: not UTF-8 ({e}); fix the file, then run this again") from None
    if raw is None or not raw.strip():
        return {}
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise AgentConfigError(f"{path}: not UTF-8 ({e}); fix the file, then run this again") from None
    except json.JSONDecodeError as e:
        raise AgentConfigError(f"{path}:{e.lineno}: invalid JSON: {e.msg}; fix the file, then run this again") from None
    if not isinstance(data, dict):
        raise AgentConfigError(f"{path}: the top level must be a JSON object; fix the file, then run this again")
    return data


def _dump(data: Any) -> bytes:
    if isinstance(data, str):
        return data.encode("utf-8")
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _write(path: Path, data: bytes, executable: bool = False) -> None:
    """Atomically, keeping the file's mode (a client's settings are the user's files, not the store's); a new
    file a client runs (Cline's hook scripts) gets the execute bits the umask allows."""
    mode = path.stat().st_mode & 0o777 if path.exists() else (0o777 if executable else 0o666) & ~_umask()
    atomic_write(path, data, mode)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def in_repo(root: Path, rel: str) -> Path:
    """`root / rel`, refused (naming the path) when any part of it that exists is a symbolic link or not what
    it should be: a repository is anyone's, and one that commits `.claude -> ~/.claude` or
    `AGENTS.md -> ~/.ssh/id_ed25519` would have jgm write the user's global settings, or copy a private key
    into a committed file (issue 35, item 7). Nothing is followed, so nothing outside the repository is read
    or written."""
    path = root / rel
    parts = Path(rel).parts
    for i in range(1, len(parts) + 1):
        at = root.joinpath(*parts[:i])
        try:
            st = os.lstat(at)
        except FileNotFoundError:
            break  # the rest is created by jgm, as real folders and a real file
        if stat.S_ISLNK(st.st_mode):
            raise AgentConfigError(
                f"{at}: is a symbolic link (to {os.readlink(at)}); jgm writes only real files inside the "
                "repository: replace the link with a real file or folder, then run this again"
            )
        want_dir = i < len(parts)
        if want_dir != stat.S_ISDIR(st.st_mode) or (not want_dir and not stat.S_ISREG(st.st_mode)):
            kind = "a folder" if want_dir else "a regular file"
            raise AgentConfigError(f"{at}: is not {kind}; move it away, then run this again")
    return path


def state_dir(root: Path, client: str, scope: str = "project") -> Path:
    try:
        return absolute_git_dir(root) / "jgm" / "agent" / (client if scope == "project" else f"{client}.{scope}")
    except subprocess.CalledProcessError as e:
        raise AgentConfigError(
            f"{root}: cannot find its git dir: {e.stderr.decode(errors='replace').strip()}"
        ) from None


def _manifest(sdir: Path) -> dict[str, Any]:
    try:
        return json.loads((sdir / "manifest.json").read_text("utf-8"))
    except FileNotFoundError:
        return {"files": {}, "dirs": []}


def install(repo: Path | str | None, client: str, python: str | None = None, scope: str = "project") -> dict:
    """Plan every file first (read, parse, merge): a refusal (a broken `.claude/settings.json`, a link) writes
    nothing. Then write; a write that fails midway (a full disk) puts back every file, folder and backup this
    install had written, so a refused or failed install leaves the repository byte for byte as it was.

    Project scope writes `jgm` (found on PATH) and nothing of this machine, so the same bytes on every clone;
    local scope writes `python` (default: this interpreter) into the client's uncommitted files."""
    files = _client(client, scope)
    root = find_workspace(repo).repo_root
    python = python or sys.executable
    launch = Launch.portable(str(root)) if scope == "project" else Launch.interpreter(python, str(root))
    sdir = state_dir(root, client, scope)
    plan = _plan(root, files, launch)
    changed = [mf.path for mf, _path, _before, _out in plan]
    if changed:
        try:
            _apply(root, sdir, plan)
        except OSError as e:
            where = e.filename or root
            raise AgentWriteFailed(
                f"{where}: could not be written ({e.strerror or e}); nothing was changed: every file this install "
                "had written is back as it was. Free space or fix the permissions, then run this again",
                path=str(where),
            ) from e
    return {
        "client": client,
        "scope": scope,
        "repo": str(root),
        "command": launch.argv[0],
        "changed": changed,
        "files": [f.path for f in files],
    }


Step = tuple[ManagedFile, Path, bytes | None, bytes]  # (file, its path, its bytes before, jgm's bytes)


def _plan(root: Path, files: tuple[ManagedFile, ...], launch: Launch) -> list[Step]:
    """What installing would write, file by file; reads only. Raises AgentConfigError naming the file."""
    paths = {mf.path: locate(root, mf.path) for mf in files}  # every file checked before any is read
    plan = []
    for mf in files:
        path = paths[mf.path]
        before = _read(path)
        data = _parse(path, before, mf.text)
        try:
            new = mf.merge(json.loads(json.dumps(data)), launch)
        except TypeError as e:
            raise AgentConfigError(f"{path}: {e}; fix the file, then run this again") from None
        if before is not None and new == data:
            continue  # already in place: nothing written, nothing to restore
        plan.append((mf, path, before, _dump(new)))
    return plan


def _apply(root: Path, sdir: Path, plan: list[Step]) -> None:
    """Write the plan: backups and the manifest (in the git dir) first, then the repository's files. On any
    failure, undo in reverse what was done, and re-raise."""
    undo: list[Callable[[], object]] = []  # run last first
    man_path = sdir / "manifest.json"
    old_manifest = _read(man_path)
    made = next((d for d in reversed([sdir, *sdir.parents]) if not d.exists()), None)  # the first folder made
    if made is not None:
        undo.append(lambda: shutil.rmtree(made, ignore_errors=True))
    try:
        man = _manifest(sdir)
        sdir.mkdir(parents=True, exist_ok=True)
        for mf, path, before, out in plan:
            entry = man["files"].get(mf.path)
            if entry is None:  # the first change jgm makes to this file: keep what was there
                entry = {"created": before is None}
                if before is not None:
                    backup = sdir / _backup_name(mf.path)
                    backup.write_bytes(before)
                    undo.append(lambda b=backup: b.unlink(missing_ok=True))
            entry["installed_sha256"] = _sha(out)
            man["files"][mf.path] = entry
            for parent in _new_parents(root, path):
                if str(parent) not in man["dirs"] and not (root / parent).exists():
                    man["dirs"].append(str(parent))
        _write_manifest(man_path, man)
        undo.append(lambda: _restore(man_path, old_manifest))
        for mf, path, before, out in plan:
            for parent in _new_parents(root, path):
                if not (root / parent).exists():
                    (root / parent).mkdir()
                    undo.append(lambda d=root / parent: d.rmdir())
            undo.append(lambda p=path, b=before: _restore(p, b))
            _write(path, out, mf.executable)
    except BaseException:
        for step in reversed(undo):
            with contextlib.suppress(OSError):  # put back all that can be; the error that stopped us is raised
                step()
        raise


def _new_parents(root: Path, path: Path) -> list[Path]:
    """The repository folders above `path`, top first (a file in the user's home: none, home exists)."""
    if not path.is_relative_to(root):
        return []
    return list(reversed(path.relative_to(root).parents[:-1]))


def _write_manifest(path: Path, man: dict) -> None:
    atomic_write(path, json.dumps(man, indent=2) + "\n", 0o600)


def _restore(path: Path, before: bytes | None) -> None:
    """`path` as it was: its old bytes, or gone when there were none."""
    if before is None:
        path.unlink(missing_ok=True)
    elif _read(path) != before:
        _write(path, before)


def _backup_name(rel: str) -> str:
    return rel.replace("/", "%2F") + ".orig"


def uninstall(repo: Path | str | None, client: str, scope: str = "project") -> dict:
    """Decide for every file first (a file it cannot parse refuses before any is touched), then write. Files an
    older jgm wrote where the client had no hooks yet (RETIRED: Codex's AGENTS.md block, Cursor's rule) come out
    too."""
    files = _client(client, scope) + (RETIRED.get(client, ()) if scope == "project" else ())
    root = find_workspace(repo).repo_root
    launch = Launch.portable(str(root))  # unmerge needs only the repository's top
    sdir = state_dir(root, client, scope)
    man = _manifest(sdir)
    restored, removed, edited, untouched = [], [], [], []
    todo: list[tuple[Path, bytes | None]] = []  # (file, its new bytes, or None: remove it)
    paths = {mf.path: locate(root, mf.path) for mf in files}
    for mf in files:
        path = paths[mf.path]
        cur = _read(path)
        entry = man["files"].get(mf.path)
        if cur is None:
            continue
        if entry is None and mf.marker.encode("utf-8") not in cur:
            untouched.append(mf.path)  # never ours and holds nothing of ours: not even parsed
            continue
        if entry and _sha(cur) == entry.get("installed_sha256"):
            if entry["created"]:
                todo.append((path, None))
                removed.append(mf.path)
            else:
                todo.append((path, (sdir / _backup_name(mf.path)).read_bytes()))
                restored.append(mf.path)
            continue
        # edited since install (or installed elsewhere): take out exactly jgm's entries, keep the rest
        data = _parse(path, cur, mf.text)
        kept = _read(sdir / _backup_name(mf.path)) if entry and not entry["created"] else None
        original = _parse(path, kept, mf.text)
        new = mf.unmerge(json.loads(json.dumps(data)), original, launch)
        if new == data:
            untouched.append(mf.path)
        elif not new and ((entry and entry["created"]) or mf.executable):  # a script that was jgm's whole
            todo.append((path, None))
            removed.append(mf.path)
        else:
            todo.append((path, _dump(new)))
            edited.append(mf.path)
    for path, data in todo:
        if data is None:
            path.unlink()
        else:
            _write(path, data)
    for d in reversed(man["dirs"]):
        try:
            (root / d).rmdir()  # only if empty: a folder the user has put files in stays
        except OSError:
            pass
    shutil.rmtree(sdir, ignore_errors=True)
    for d in (sdir.parent, sdir.parent.parent):  # <git-dir>/jgm/agent, <git-dir>/jgm: only when left empty
        with contextlib.suppress(OSError):
            d.rmdir()
    return {
        "client": client,
        "scope": scope,
        "repo": str(root),
        "restored": restored,
        "removed": removed,
        "edited": edited,
    }
