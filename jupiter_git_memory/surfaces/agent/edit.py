"""`jgm hook CLIENT edit`: the records that govern a file, put in front of the agent when it is about to change
it (Claude Code's PreToolUse on Edit/Write/MultiEdit; the other clients' shapes in edit_payloads.py).

Once per file per client session (edit_seen.py: a later edit of the same file costs a Python start and one
small file read), within `edit_budget` tokens, and nothing at all when no in-force record cites the file.
Quieter than the session and prompt hooks on failure: it runs on every edit, so it never prints a line to the
user; a missing store, a broken one, a busy index, a crash or its deadline exit 0 with nothing on stdout and
the reason in the store log. It never blocks an edit (exit 0 always; no permission decision in its answer).
Nothing heavy is imported before the store is known to exist and the file is known to be new to the session.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import TextIO

from ...base.environment import HOOK_DEADLINE
from .deadline import Deadline, on_alarm
from .edit_payloads import ADAPTERS, Edit
from .hook_events import answered_natively

DEADLINE_SECONDS = 10.0  # an edit waits on a PreToolUse hook: less than the prompt hooks' 20 s


def repo_paths(root: Path, cwd: Path, files: tuple[str, ...]) -> list[str]:
    """The files inside the repository at `root`, as repository paths (`a/b.py`); a file outside it, or the
    `.git` folder, is no file any record governs. (The CLI's shared path resolver may take this over.)"""
    top = root.resolve()
    out = []
    for f in files:
        p = Path(f) if os.path.isabs(f) else cwd / f
        try:
            rel = p.resolve().relative_to(top).as_posix()
        except (ValueError, OSError, RuntimeError):
            continue
        if rel not in ("", ".") and rel.split("/", 1)[0] != ".git" and rel not in out:
            out.append(rel)
    return out


def _answer(edit: Edit, client: str, payload: dict) -> tuple[str | None, Path | None, dict[str, list[str]]]:
    """(the note or None, the store, what to mark seen)."""
    from ...base.store import workspace_dir
    from ...git.home import use_store
    from ...git.workspace import NotARepo, find_workspace
    from .edit_seen import seen

    cwd = Path(edit.cwd or os.getcwd())
    try:
        ws = find_workspace(cwd)
    except NotARepo:
        return None, None, {}
    if answered_natively(client, payload, ws.repo_root):
        return None, None, {}  # another client running Claude Code's hooks, with jgm's own hooks here
    files = repo_paths(ws.repo_root, cwd, edit.files)
    if not files:
        return None, None, {}
    store = use_store(None, ws.repo_root, fresh=True)
    if not (workspace_dir(ws.id, store, create=False) / "catalog.sqlite").exists():
        return None, None, {}  # not seeded: the session hook says so, once
    keys = [f"{ws.id}:{f}" for f in files]
    done = seen(store, edit.session) if edit.session else {}
    new = [f for f, k in zip(files, keys, strict=True) if k not in done]
    if not new:
        return None, None, {}
    from ..daemon.client import ask

    warm = ask("edit-hook", {"files": new}, store=store, repo=str(ws.repo_root))
    if warm is not None:
        text = warm["text"]
    else:
        from ...recall.service import Recaller
        from .edit_answer import governing_note

        text = governing_note(Recaller(ws.repo_root), new)
    shown = _ids(text)
    return text, store, {f"{ws.id}:{f}": shown for f in new}


def _ids(text: str | None) -> list[str]:
    return [line[2:].split(" — ", 1)[0] for line in (text or "").splitlines() if line.startswith("- ")]


def _log(message: str) -> None:
    from ...base.store import try_log

    try_log(f"hook: edit: {message}")  # where the store is (git config jgm.home, JGM_HOME); never raises


def run(client: str, stdin: str, out: TextIO | None = None) -> int:
    """Answer one edit event of `client`; always exit status 0 (2 would block the edit)."""
    out = out or sys.stdout  # looked up per call: a caller may have replaced it (an in-process runner)
    adapter = ADAPTERS.get(client)
    if adapter is None:
        print(f"usage: jgm hook {'|'.join(ADAPTERS)} edit  (reads the client's JSON on stdin)", file=sys.stderr)
        return 0
    deadline = float(HOOK_DEADLINE.get_or(DEADLINE_SECONDS))
    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, deadline)
    text, edit = None, None
    try:
        payload = json.loads(stdin) if stdin.strip() else {}
        edit = adapter.read(payload) if isinstance(payload, dict) else None
        if edit is not None:
            text, store, shown = _answer(edit, client, payload)
            if store is not None and edit.session:
                from .edit_seen import mark

                mark(store, edit.session, shown)
    except Deadline:
        text = None
        _log(f"no answer within {deadline:g}s")
    except Exception as e:  # noqa: BLE001 - fail open, whatever broke: an edit must never wait on memory
        text = None
        _log(f"{type(e).__name__}: {e}")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    if text and edit is not None:
        out.write(json.dumps(adapter.answer(edit, text)) + "\n")
    return 0
