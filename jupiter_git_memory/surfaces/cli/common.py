"""Shared CLI helpers: JSON output, error exits, progress."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from ...base import error_codes as E
from ...base.errors import JgmError, as_error
from ...records.text import show_hidden


def esc(value: object) -> str:
    """A piece of user data (a title, a path, an error) inside a line printed with `markup=True`: shown as
    written, never read as rich markup (`[/bold]` would crash the print, `[link=…]` would put a hyperlink on
    screen). Lines without styling are printed with markup off, the console's default."""
    return escape(str(value))


class SafeConsole(Console):
    """Human output. Markup and emoji codes are off unless a call asks for markup (and escapes its data with
    `esc`); every string printed shows its hidden characters as escapes (records/text.py: terminal controls
    such as `\\x1b]0;…`, bidi overrides, zero-width characters), so a record's text can neither drive the
    reader's terminal nor reorder what it shows. JSON output escapes them instead (json.dumps)."""

    def __init__(self, **kwargs) -> None:
        self._given = kwargs
        super().__init__(emoji=False, highlight=False, soft_wrap=True, **kwargs)

    def reset(self) -> None:
        """Detect the terminal, colours and width again, as a new process would: the daemon runs a command
        for a caller whose streams and environment are not the ones it started with (daemon/forward.py)."""
        self.__init__(**self._given)

    def print(self, *objects, markup: bool = False, **kwargs) -> None:
        shown = (show_hidden(o.replace("\r\n", "\n")) if isinstance(o, str) else o for o in objects)
        super().print(*shown, markup=markup, **kwargs)


out = SafeConsole()
err = SafeConsole(stderr=True)


def emit_json(data) -> None:
    sys.stdout.write(json.dumps(data, indent=2, sort_keys=False, default=str) + "\n")


def fail_with(e: BaseException, as_json: bool, answer: bool = False) -> NoReturn:
    """The CLI's one failure path. `--json` prints `{"error": {"code", "message", ...details}}`; for recall
    commands (`answer`) that object sits in an empty answer whose `status` is the contract's (`no-workspace`,
    `not-seeded`, `retrieval-failed`), so a failure is never read as "no match". The exit code is the
    error's own. Anything that is neither a JgmError nor a ValueError is a bug and propagates."""
    from ...recall.task import EXIT_CODES, STATUS_BY_CODE, empty_answer

    error = as_error(e)
    if error is None:
        raise e
    message = error.message
    if error.code == E.MEMORY_NO_WORKSPACE.code:
        from ...base.store import store_root

        message = f"{message} (store: {store_root()})"
    status = STATUS_BY_CODE.get(error.code) if answer else None
    if as_json:
        body = empty_answer(status, message) if status else {}
        emit_json({**body, "error": {**error.to_dict(), "message": message}})
    elif status:
        own = error.code.rsplit("/", 1)[-1] == status  # else the code says more, e.g. store/disk-full
        err.print(f"{status}{'' if own else f' [{error.code}]'}: {message}", markup=False)
    else:
        err.print(f"error [{error.code}]: {message}", markup=False)
    raise typer.Exit(EXIT_CODES[status] if status else error.exit_code)  # an answer's status fixes its exit


def fail(
    message: str, code: int = 2, as_json: bool = False, error_code: E.ErrorCode = E.REQUEST_BAD_REQUEST
) -> NoReturn:
    """A refusal the CLI itself makes (e.g. conflicting options), through the one failure path."""
    fail_with(JgmError(message, code=error_code, exit_code=code), as_json)


@contextmanager
def reported(as_json: bool, answer: bool = False) -> Iterator[None]:
    """Run a command's work; a JgmError (or a ValueError naming bad input, or a full or read-only disk met
    where no store path was at hand: base.errors.as_error) leaves through `fail_with`."""
    try:
        yield
    except Exception as e:
        if as_error(e) is None:
            raise
        fail_with(e, as_json, answer)


@contextmanager
def progress_bar(enabled: bool, label: str):
    """Yield a callback(done, total); a rich bar on a terminal, silent otherwise."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
    ) as p:
        task = p.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            p.update(task, completed=done, total=total)

        yield update


def via_daemon(op: str, args: dict, repo) -> dict | None:
    """The store's resident recall process's answer (surfaces/daemon/), or None: answer in process. The
    store is the one the root group resolved (`use_store`; `store_path` answers it)."""
    from ...base.store import store_path
    from ..daemon.client import ask

    return ask(op, args, store=store_path(), repo=None if repo is None else str(repo))
