"""Shared CLI helpers: JSON output, error exits, progress."""

from __future__ import annotations

import json
import re
import sys
from contextlib import contextmanager

import typer
from rich.console import Console
from rich.markup import escape

# C0 controls but tab and newline, DEL and C1: ESC sequences in a record's title or body (`\x1b]0;…`, `\x1b[2J`)
# would otherwise drive the reader's terminal. JSON output escapes them instead (json.dumps).
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def strip_controls(text: str) -> str:
    return _CONTROLS.sub("", text)


class SafeConsole(Console):
    """Human output: every string printed loses its control characters (rich's own styling is added after)."""

    def print(self, *objects, **kwargs) -> None:  # noqa: A003 - rich's name
        super().print(*(strip_controls(o) if isinstance(o, str) else o for o in objects), **kwargs)


out = SafeConsole(highlight=False, soft_wrap=True)
err = SafeConsole(stderr=True, highlight=False, soft_wrap=True)


def emit_json(data) -> None:
    sys.stdout.write(json.dumps(data, indent=2, sort_keys=False, default=str) + "\n")


def fail(message: str, code: int = 1, as_json: bool = False, error_code: str = "error") -> None:
    if as_json:
        emit_json({"error": {"code": error_code, "message": message}})
    else:
        err.print(f"[bold red]error:[/] {escape(message)}", markup=True)
    raise typer.Exit(code)


def empty_exit(status: str, message: str, as_json: bool = False) -> None:
    """Exit for an answer that could not be looked for: `no-workspace` (4) or `not-seeded` (5), one line
    naming what is wrong and the command that fixes it. Never exit 0: that would read as 'no match'."""
    from ...recall.task import EXIT_CODES, empty_answer

    if as_json:
        emit_json(empty_answer(status, message))
    else:
        err.print(f"{status}: {message}", markup=False)
    raise typer.Exit(EXIT_CODES[status])


def no_workspace_message(e: Exception) -> str:
    from ...base.store import store_root

    return f"{e} (store: {store_root()})"


@contextmanager
def progress_bar(enabled: bool, label: str):
    """Yield a callback(done, total); a rich bar on a terminal, silent otherwise."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn(), console=err, transient=True) as p:
        task = p.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            p.update(task, completed=done, total=total)

        yield update
