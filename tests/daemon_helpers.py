"""The store's resident recall process in tests (the `daemon_on` fixture in conftest.py turns it on for one
test and stops it, killed if need be, after it, so no daemon outlives its test)."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from jupiter_git_memory.base import processes
from jupiter_git_memory.surfaces.daemon.client import control
from jupiter_git_memory.surfaces.daemon.paths import daemon_pid

VOLATILE = re.compile(r'rcpt_[0-9a-f]{20}|"timestamp": [0-9.e+]+')


def normalised(text: str) -> str:
    """Output with what differs between two identical recalls (the receipt's id and time) blanked."""
    return VOLATILE.sub("<volatile>", text)


def alive(pid: int | None) -> bool:
    """Running (an exited daemon waiting to be reaped, by us or by init, is gone: base/processes.py)."""
    if not pid:
        return False
    try:  # a child of ours that exited is a zombie until we reap it
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass
    return processes.alive(pid)


def wait_gone(pid: int | None, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


def stop_daemon(store: Path) -> None:
    pid = daemon_pid(store)
    control("stop", store)
    if not wait_gone(pid, 10.0) and alive(pid):
        os.kill(pid, signal.SIGKILL)


def declared_entry(folder: Path) -> str:
    """A `jgm` console script for the entry pyproject.toml declares, written as pip writes one: the thin
    client lives at that entry, and an editable install made before it moved still runs the old one."""
    import stat
    import sys
    import tomllib

    pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
    module, func = tomllib.loads(pyproject.read_text())["project"]["scripts"]["jgm"].split(":")
    script = folder / "jgm"
    script.write_text(
        f"#!{sys.executable}\nimport sys\nfrom {module} import {func}\n"
        f"if __name__ == '__main__':\n    sys.argv[0] = sys.argv[0].removesuffix('.exe')\n    sys.exit({func}())\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


@contextlib.contextmanager
def broken_daemon(path: Path, reply: bytes | None = None) -> Iterator[None]:
    """A fault injected at the daemon's socket `path`: something listens there and, for each connection,
    hangs up at once (`reply` None) or reads the request and answers `reply` (half an answer, a refusal)."""
    broken = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    broken.bind(str(path))
    broken.listen(8)
    stop = threading.Event()

    def answer_badly() -> None:
        broken.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = broken.accept()
            except OSError:
                continue
            with conn:
                if reply is None:
                    continue
                conn.settimeout(5)
                try:
                    conn.recv(1 << 20)
                    conn.sendall(reply)
                except OSError:
                    pass

    t = threading.Thread(target=answer_badly, daemon=True)
    t.start()
    try:
        yield
    finally:
        stop.set()
        t.join()
        broken.close()
