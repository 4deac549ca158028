"""`jgm hook CLIENT EVENT`: what a client runs at session start and on every prompt.

It reads the client's JSON from stdin and answers in the client's form (hook_events.py: Claude Code, Codex,
Gemini CLI and VS Code `{"hookSpecificOutput": {"hookEventName": ..., "additionalContext": ...}}`, Cursor
`{"additional_context"}`, Cline `{"contextModification"}`; on stdout, exit 0). It fails
open: outside a repository, without a store, not seeded, a busy index, a crash or running past its deadline,
it exits 0 with at most one short line for the user (`systemMessage`) and writes the reason to the store log:
a memory hook must never block or slow a prompt into being turned off. `python -m jupiter_git_memory hook`
reaches this module without loading the CLI, and nothing heavy is imported before a store is known to exist.
The store's resident recall process answers when it can (surfaces/daemon/, started here on demand).
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
from .hook_events import EVENTS, answer, answered_natively, payload_context

USAGE = f"usage: jgm hook {'|'.join(EVENTS)} session-start|prompt|edit  (reads the client's JSON on stdin)"
DEADLINE_SECONDS = 20.0  # below the client's own timeout (clients.HOOK_TIMEOUT_SECONDS)
MAX_STDIN = 1 << 20


class Unavailable(Exception):
    """Memory cannot answer here; the message is the one line the user sees."""


def _answer(client: str, event: str, payload: dict) -> str | None:
    from ...base.errors import JgmError
    from ...base.store import LockTimeout, workspace_dir
    from ...git.home import use_store
    from ...git.workspace import NotARepo, find_workspace

    cwd, prompt = payload_context(client, payload)
    cwd = cwd or os.getcwd()
    try:
        ws = find_workspace(Path(cwd))
    except NotARepo:
        return None  # not a repository: there is no memory to speak of, and nothing is wrong
    if answered_natively(client, payload, ws.repo_root):
        return None  # another client running Claude Code's hooks, with jgm's own hooks of its own here
    store = use_store(None, ws.repo_root)
    if not (workspace_dir(ws.id, store, create=False) / "catalog.sqlite").exists():
        raise Unavailable(f"jgm: no memory for {ws.repo_root.name} yet (run `jgm seed`)")
    if event == "prompt" and not isinstance(prompt, str):
        return None
    from ..daemon.client import ask

    asked = {"event": event, "prompt": prompt, "cwd": str(cwd)}  # the files a prompt names are read from there
    warm = ask("hook", asked, store=store, repo=str(ws.repo_root))
    if warm is not None:  # the resident process answered (an error there means: answer here)
        return warm["text"]
    from ...recall.service import Recaller
    from .brief import prompt_recall, session_brief

    try:
        recaller = Recaller(ws.repo_root)
        if event == "session-start":
            return session_brief(recaller)
        return prompt_recall(recaller, prompt, str(cwd))
    except LockTimeout:
        raise Unavailable("jgm: memory busy (the index is being rewritten); skipped") from None
    except JgmError as e:  # not seeded, no vectors, model missing, bad jgm.toml: the message names the fix
        raise Unavailable(f"jgm: memory unavailable: {str(e).splitlines()[0][:160]}") from None


def _log(message: str) -> None:
    try:
        from ...base.store import log, store_root

        store_root().mkdir(parents=True, exist_ok=True)
        log(f"hook: {message}")
    except Exception:  # noqa: BLE001 - a log that cannot be written must not fail the hook
        pass


def run(client: str, event: str, stdin: str, out: TextIO | None = None) -> int:
    out = out or sys.stdout  # looked up per call: a caller may have replaced it (an in-process runner)
    if client not in EVENTS or event not in EVENTS[client].names or event == "edit":
        print(USAGE, file=sys.stderr)
        return 0  # never a blocking exit status: a client treats some (2) as "block the prompt"
    deadline = float(HOOK_DEADLINE.get_or(DEADLINE_SECONDS))
    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, deadline)
    line = None
    try:
        payload = json.loads(stdin) if stdin.strip() else {}
        if not isinstance(payload, dict):
            raise ValueError("the hook input is not a JSON object")
        text = _answer(client, event, payload)
    except Unavailable as e:
        text, line = None, str(e)
        _log(f"{event}: {line}")
    except Deadline:
        text, line = None, f"jgm: memory skipped (no answer within {deadline:g}s)"
        _log(f"{event}: {line}")
    except Exception as e:  # noqa: BLE001 - fail open, whatever broke
        text, line = None, "jgm: memory skipped (error; see the store log jgm.log)"
        _log(f"{event}: {type(e).__name__}: {e}")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    refused = _daemon_refusal()
    if refused:
        _log(f"{event}: {refused}")
        line = line or refused
    said = answer(client, event, text, (refused or _stale_note(text)) if text else line)
    if said:
        out.write(json.dumps(said) + "\n")
    return 0


def _stale_note(text: str) -> str | None:
    """The answer's note that record files changed since the last seed (brief.py), for the user as well."""
    from .clients import STALE_NOTE

    line = next((x for x in text.splitlines() if x.startswith(STALE_NOTE)), None)
    return f"jgm: {line[len(STALE_NOTE) :][:300]}" if line else None


def _daemon_refusal() -> str | None:
    """Why the daemon's socket was refused in this process (another user's folder or peer), for the user."""
    client = sys.modules.get(__package__.rsplit(".", 1)[0] + ".daemon.client")
    return getattr(client, "refusal", None)


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stderr if len(argv) != 1 else sys.stdout)
        return 0
    try:  # bytes, decoded leniently: one invalid byte in a prompt must not cost the whole prompt its memory
        stdin = sys.stdin.buffer.read(MAX_STDIN).decode("utf-8", "replace")
    except (OSError, AttributeError):
        stdin = ""
    if argv[1] == "edit":  # the edit hook: its own clients' payloads, silent when it cannot answer (edit.py)
        from .edit import run as run_edit

        return run_edit(argv[0], stdin)
    return run(argv[0], argv[1], stdin)
