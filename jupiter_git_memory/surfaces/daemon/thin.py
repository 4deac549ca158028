"""The thin client at the `jgm` entry: `recall`, `recall-task` and `context` run inside a warm daemon.

Why: a warm daemon answers in milliseconds, but a `jgm` process that imports Typer, pydantic and rich
before it asks pays most of a second of its own. So for these three commands the entry (`__main__.main`)
first sends the whole command line here, importing nothing heavy, and the daemon runs the very same Typer
command in process with the caller's cwd, environment and terminal (server.py `forward`), then sends back
what it printed and its exit code. Output, errors and exit codes are the in-process ones by construction;
no option is parsed twice (the scan for `--home`/`--repo` below only picks the socket to knock on: the
daemon checks that the command resolved its own store and refuses otherwise).

Anything else (a disabled daemon, no socket, a refusal, a broken or partial answer) returns None and the
normal CLI runs in this process, so the worst a daemon can cost is time. The answer is read in full before
a byte is printed.
"""

from __future__ import annotations

import binascii  # base64's decoder itself, without base64's own imports (struct, re)
import os
import sys

FORWARDED = ("recall", "recall-task", "context")


def command_of(argv: list[str]) -> str | None:
    """The forwarded command `argv` runs (after an optional root `--home DIR`), else None: help stays local."""
    rest = argv[2:] if argv[:1] == ["--home"] else argv[1:] if argv[:1] and argv[0].startswith("--home=") else argv
    if not rest or rest[0] not in FORWARDED or "--help" in argv:
        return None
    return rest[0]


def _value(argv: list[str], flag: str) -> str | None:
    """The last `flag V` / `flag=V` in argv: a guess only (the daemon checks the store the command resolved)."""
    found = None
    for i, a in enumerate(argv):
        if a == flag and i + 1 < len(argv):
            found = argv[i + 1]
        elif a.startswith(flag + "="):
            found = a[len(flag) + 1 :]
    return found


def _terminal_size() -> list[int] | None:
    """What rich would read from this process's standard streams (it tries fds 0, 1, 2 in turn)."""
    for fd in (0, 1, 2):
        try:
            return list(os.get_terminal_size(fd))
        except (OSError, ValueError):
            continue
    return None


def _stream(s) -> dict:
    return {
        "tty": bool(s is not None and s.isatty()),
        "encoding": getattr(s, "encoding", None) or "utf-8",
        "errors": getattr(s, "errors", None) or "strict",
    }


def forward(argv: list[str]) -> int | None:
    """Run `jgm ARGV` in the store's warm daemon and print its output; its exit code, or None: run here."""
    if command_of(argv) is None:
        return None
    from . import client

    if client.disabled():
        return None
    from ...base.environment import DAEMON_TIMEOUT
    from ...git.home import resolve_home

    try:
        store, _ = resolve_home(_value(argv, "--home"), _value(argv, "--repo"))
        s = client.connect(store, start=False)
    except OSError:
        return None
    if s is None:
        return None  # no daemon: the normal path starts one (and answers in process meanwhile)
    message = {
        "protocol": client.PROTOCOL,
        "version": client.version(),
        "op": "cli",
        "argv": argv,
        "cwd": os.getcwd(),
        "store": str(store.absolute()),
        "env": client.env_fingerprint(),
        "environ": client.environ(),  # credentials stay here (client.shareable)
        "streams": [_stream(sys.stdin), _stream(sys.stdout), _stream(sys.stderr)],
        "size": _terminal_size(),
    }
    try:
        answer = client.request(s, message, float(DAEMON_TIMEOUT.get_or(client.ANSWER_TIMEOUT)))
    except KeyboardInterrupt:
        return 130  # what the Typer command exits with on Ctrl-C (and it prints nothing either)
    if answer is None:  # the connection broke: no half answer, and no second wait on this daemon
        client.give_up()
        return None
    done = answer.get("ok")
    if not isinstance(done, dict) or not isinstance(done.get("exit"), int):
        return None  # refused (another version, store or environment) or failed: the normal path answers
    try:
        chunks = [(fd, binascii.a2b_base64(data)) for fd, data in done["chunks"]]
    except (TypeError, ValueError):
        client.give_up()
        return None
    _replay(chunks)
    return done["exit"]


def _replay(chunks: list[tuple[int, bytes]]) -> None:
    """Write what the command printed in the order it printed it, buffered as the in-process streams are:
    stdout flushed per write on a terminal, at the end otherwise; stderr per write."""
    out, err = sys.stdout.buffer, sys.stderr.buffer
    tty = sys.stdout.isatty()
    for fd, data in chunks:
        if fd == 2:
            if tty:
                out.flush()
            err.write(data)
            err.flush()
        else:
            out.write(data)
            if tty:
                out.flush()
    out.flush()
