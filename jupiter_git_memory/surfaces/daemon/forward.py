"""The daemon's side of the thin client (thin.py): run a caller's `jgm recall|recall-task|context ...` here.

The very Typer command runs, as `jgm` would run it, with the caller's cwd, environment and argv, and
standard streams that look like the caller's (a terminal or not, their encodings; the terminal's size as
COLUMNS/LINES when the caller set none), so rich detects the same colours and width when the consoles are
built again for the call. Its own `ask` is answered by this daemon's warm handles (client.LOCAL); what
the warm handle cannot answer, the command answers in process here, where Chroma and the model are loaded
already. Everything the command changes in this process (cwd, os.environ, the streams, the consoles, the
store chosen) is put back after it, and the serve loop runs one request at a time.
"""

from __future__ import annotations

import base64
import io
import os
import sys
from collections.abc import Callable
from pathlib import Path

from ...base.errors import as_error
from ...base.store import trace, try_log
from . import client
from .thin import FORWARDED, command_of

_COMMAND = None  # the click command of `jgm`, built once (Typer builds it anew on each app() call)


class _Capture(io.BytesIO):
    """One standard stream of the caller's: what is written goes, in order, to the shared `chunks`."""

    def __init__(self, fd: int, tty: bool, chunks: list[list]):
        super().__init__()
        self.fd, self.tty, self.chunks = fd, tty, chunks

    def isatty(self) -> bool:
        return self.tty

    def write(self, data) -> int:  # type: ignore[override]
        data = bytes(data)
        if self.chunks and self.chunks[-1][0] == self.fd:
            self.chunks[-1][1] += data
        elif data:
            self.chunks.append([self.fd, data])
        return len(data)


def _stream(fd: int, spec: dict, chunks: list[list]) -> io.TextIOWrapper:
    return io.TextIOWrapper(
        _Capture(fd, bool(spec.get("tty")), chunks),
        encoding=str(spec.get("encoding") or "utf-8"),
        errors=str(spec.get("errors") or "strict"),
        newline="\n",
        write_through=True,
    )


def _command():
    global _COMMAND
    if _COMMAND is None:
        import typer.main

        from ..cli.main import app

        _COMMAND = typer.main.get_command(app)
    return _COMMAND


def _run(argv: list[str]) -> int:
    """`jgm ARGV` as the console script runs it: click's standalone main, whose SystemExit is the exit code."""
    try:
        _command().main(args=argv, prog_name="jgm")
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            return e.code or 0
        print(e.code, file=sys.stderr)  # what the interpreter does with a SystemExit("message")
        return 1
    return 0


def _consoles() -> None:
    from ..cli import common

    common.out.reset()
    common.err.reset()


def forward(d, m: dict, refused: type[Exception], ops: dict[str, Callable[..., dict]]) -> dict:
    """Run the caller's command; {"exit", "chunks": [[fd, base64]...]}. A bug raised by the command (no
    SystemExit) propagates: the caller then runs the command itself and shows the same traceback. `ops` are
    the server's warm operations (server.OPS), handed in: the server imports this module, not the reverse."""
    from ...base import home

    argv = m.get("argv")
    if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv) or command_of(argv) not in FORWARDED:
        raise refused("not a forwarded command")
    streams = m["streams"]
    environ = {str(k): str(v) for k, v in (m.get("environ") or {}).items()}
    if m.get("size") and "COLUMNS" not in environ:  # rich reads the size from fds 0-2, which are not the caller's here
        environ["COLUMNS"] = str(m["size"][0])
        environ.setdefault("LINES", str(m["size"][1]))
    chunks: list[list] = []
    saved = (dict(os.environ), os.getcwd(), sys.stdin, sys.stdout, sys.stderr, home._chosen)

    def local(op: str, args: dict, store: Path, repo: str | None) -> dict | None:
        if store.absolute() != d.store:
            raise refused("the command resolved another store")
        try:
            return ops[op](d, repo, args)
        except Exception as e:  # noqa: BLE001 - the command answers in process (here, warm), error included
            if as_error(e) is None:
                try_log(f"daemon: {type(e).__name__} in a forwarded {op}; answered in process\n{trace(e)}")
            return None

    try:
        os.environ.clear()
        os.environ.update(environ)
        os.chdir(m["cwd"])
        sys.stdin = io.TextIOWrapper(_Capture(0, bool(streams[0].get("tty")), []), encoding="utf-8")
        sys.stdout, sys.stderr = _stream(1, streams[1], chunks), _stream(2, streams[2], chunks)
        _consoles()
        client.LOCAL = local
        code = _run(argv)
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        client.LOCAL = None
        os.environ.clear()
        os.environ.update(saved[0])
        os.chdir(saved[1])
        sys.stdin, sys.stdout, sys.stderr = saved[2:5]
        home._chosen = saved[5]
        _consoles()
    return {"exit": code, "chunks": [[fd, base64.b64encode(data).decode()] for fd, data in chunks]}
