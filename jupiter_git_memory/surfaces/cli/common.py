"""Shared CLI helpers: JSON output, error exits, progress."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, NoReturn, cast

import typer

if TYPE_CHECKING:
    from ...base.error_codes import ErrorCode
    from .console import SafeConsole


def esc(value: object) -> str:
    """A piece of user data (a title, a path, an error) inside a line printed with `markup=True`: shown as
    written, never read as rich markup (`[/bold]` would crash the print, `[link=…]` would put a hyperlink on
    screen). Lines without styling are printed with markup off, the console's default."""
    from rich.markup import escape

    return escape(str(value))


class _OnFirstUse:
    """A `SafeConsole` (console.py) made on the first attribute asked of it, so importing the CLI does not
    import rich: `jgm --help` and `--version` print nothing through it."""

    def __init__(self, **kwargs) -> None:
        self._kwargs = kwargs
        self._made: SafeConsole | None = None

    def console(self) -> SafeConsole:
        """The console itself, for an API that wants a real `rich.console.Console` (a progress bar)."""
        if self._made is None:
            from .console import SafeConsole

            self._made = SafeConsole(**self._kwargs)
        return self._made

    def __getattr__(self, name: str):
        return getattr(self.console(), name)


out = cast("SafeConsole", _OnFirstUse())
err = cast("SafeConsole", _OnFirstUse(stderr=True))


def emit_json(data) -> None:
    import json

    sys.stdout.write(json.dumps(data, indent=2, sort_keys=False, default=str) + "\n")


def fail_with(e: BaseException, as_json: bool, answer: bool = False) -> NoReturn:
    """The CLI's one failure path. `--json` prints `{"error": {"code", "message", ...details}}`; for recall
    commands (`answer`) that object sits in an empty answer whose `status` is the contract's (`no-workspace`,
    `not-seeded`, `retrieval-failed`), so a failure is never read as "no match". The exit code is the
    error's own. Anything that is neither a JgmError nor a ValueError is a bug and propagates."""
    from ...base import error_codes as E
    from ...base.errors import as_error
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


def fail(message: str, code: int = 2, as_json: bool = False, error_code: ErrorCode | None = None) -> NoReturn:
    """A refusal the CLI itself makes (e.g. conflicting options), through the one failure path; the error
    code is request/bad-request unless given."""
    from ...base import error_codes as E
    from ...base.errors import JgmError

    fail_with(JgmError(message, code=error_code or E.REQUEST_BAD_REQUEST, exit_code=code), as_json)


@contextmanager
def reported(
    as_json: bool,
    answer: bool = False,
    recode: dict[type[BaseException], ErrorCode] | None = None,
    hint: str = "",
) -> Iterator[None]:
    """Run a command's work: the CLI's one way to report a failure. A JgmError (or a ValueError naming bad
    input, or a full or read-only disk met where no store path was at hand: base.errors.as_error) leaves
    through `fail_with`. `recode` names errors a command reports under its own code instead (exit 2, the
    message followed by `hint`), first match wins: `jgm token` reports a TokenError as token/error, `jgm hooks`
    an unreadable hook file as hooks/io-error."""
    try:
        yield
    except typer.Exit:  # a command's own exit (a nested `reported` already said why)
        raise
    except Exception as e:
        for kind, code in (recode or {}).items():
            if isinstance(e, kind):
                fail(f"{e}{hint}", 2, as_json, code)
        from ...base.errors import as_error

        if as_error(e) is None:
            raise
        fail_with(e, as_json, answer)


def answer(as_json: bool, data: object, text: str | Iterable[str] | None = None) -> None:
    """A command's answer, the one output path: `data` as JSON with --json, else `text`, a line or lines
    (printed as written: user data in them is never read as markup)."""
    if as_json:
        emit_json(data)
        return
    for line in [text] if isinstance(text, str) else text or []:
        out.print(line, markup=False)


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
        console=cast("_OnFirstUse", err).console(),
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
