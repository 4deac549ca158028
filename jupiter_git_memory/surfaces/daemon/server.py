"""The resident recall process (`python -m jupiter_git_memory daemon _serve`, started by client.spawn).

Why: a cold `jgm recall` spends most of its second importing Chroma and loading the model; a hook on every
prompt cannot pay that. The daemon keeps one WorkspaceHandle per worktree, the same warm handle the HTTP
API and MCP server answer through, so it reads under the same locks and refreshes a moved view the same way
(Recaller.prepare, the catalog generation). It serves one store, one request at a time: each request runs in
the caller's cwd with the caller's arguments, so relative paths resolve as they would in process. It exits
after `daemon_idle_seconds` (jgm.toml of the last repository served) without a request, when its socket
file is removed or replaced, or on `jgm daemon stop`.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from ...base.store import store_path, trace, try_log
from .client import ACK, MAX_REQUEST, PROTOCOL, env_fingerprint, peer_uid, version
from .paths import lock_path, socket_path

DEFAULT_IDLE = 300.0
T = TypeVar("T")
TICK = 1.0  # seconds between idle / socket checks
READ_DEADLINE = 5.0  # seconds for a whole request to arrive: one request at a time, so a slow sender waits alone
PACKAGE = Path(__file__).resolve().parents[2]


def code_stamp(root: Path = PACKAGE) -> int:
    """A fingerprint of every Python file of the package as it is on disk (name, size, mtime, inode): it
    changes whenever the code does, which `__version__` does not (0.1.0 for every commit so far, and an
    editable install or a same-version reinstall keeps it). About 2 ms for the whole package, paid per
    request, so an edit is never answered by the code from before it (issue 35, item 4)."""
    seen = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                try:
                    st = os.stat(os.path.join(folder, name))
                except OSError:
                    continue
                seen.append((folder, name, st.st_size, st.st_mtime_ns, st.st_ino))
    return hash(tuple(seen))


class Daemon:
    def __init__(self, store: Path, code: int | None = None):
        self.store = store
        self.code = code_stamp() if code is None else code  # the code this process runs (main takes it first)
        self.path = socket_path(store, create=True)
        self.handles: dict[tuple[str, str], object] = {}
        self.idle = DEFAULT_IDLE
        self.started = time.time()
        self.last = time.monotonic()
        self.requests = 0
        self.forwarded = 0  # whole command lines run for the thin client (forward.py)
        self.running = True
        self.sock: socket.socket | None = None
        self.inode: int | None = None
        self._workspaces = None  # git.workspace.RememberedWorkspaces, made on the first request

    # --- lifecycle -------------------------------------------------------------------------------------
    def bind(self) -> None:
        """Bind the socket, replacing a file a dead daemon left (we hold the store's lock, so none is alive)."""
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            s.bind(str(self.path))
        finally:
            os.umask(old)
        s.listen(16)
        s.settimeout(TICK)
        self.sock, self.inode = s, os.stat(self.path).st_ino

    def socket_is_ours(self) -> bool:
        try:
            return os.stat(self.path).st_ino == self.inode
        except OSError:
            return False

    def serve(self) -> None:
        assert self.sock is not None
        while self.running:
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                if time.monotonic() - self.last > self.idle or not self.socket_is_ours():
                    break
                continue
            with conn:
                uid = peer_uid(conn)
                if uid is not None and uid != os.getuid():  # the socket is 0600 in a 0700 folder: only root
                    try_log(f"daemon: refused a connection from uid {uid}")
                    continue
                self.last = time.monotonic()
                self.answer(conn)
                self.last = time.monotonic()
        self.close()

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
        if self.socket_is_ours():
            self.path.unlink(missing_ok=True)
            if self.path.parent.name.startswith(f"jgm-{os.getuid()}-"):  # a folder of its own (paths._elsewhere)
                try:
                    self.path.parent.rmdir()
                except OSError:
                    pass
        for h in self.handles.values():
            try:
                h.close()  # type: ignore[attr-defined]
            except Exception:  # noqa: BLE001 - exiting anyway
                pass

    # --- one request -----------------------------------------------------------------------------------
    def read_request(self, conn: socket.socket) -> bytes | None:
        """The request line: within READ_DEADLINE in all and MAX_REQUEST bytes (a sender that is slow or never
        ends its line is dropped, not waited on by every caller behind it), in linear time."""
        deadline = time.monotonic() + READ_DEADLINE
        data = bytearray()
        while not data.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or len(data) > MAX_REQUEST:
                try_log(f"daemon: dropped a request ({len(data)} bytes, {'too large' if left > 0 else 'too slow'})")
                return None
            conn.settimeout(left)
            try:
                chunk = conn.recv(1 << 20)
            except OSError:
                return None
            if not chunk:
                return None
            data += chunk
        return bytes(data)

    def answer(self, conn: socket.socket) -> None:
        data = self.read_request(conn)
        if data is None:
            return
        try:
            conn.settimeout(5.0)
            conn.sendall(ACK)  # taken: the caller now waits for the answer, however long it takes
            message = json.loads(data)
            self.requests += 1
            reply = {"ok": self.dispatch(message)}
        except Exception as e:  # noqa: BLE001 - the caller answers in process; the reason goes to the log
            if not isinstance(e, _Refused):
                try_log(f"daemon: {type(e).__name__} answering a request; the caller answers itself\n{trace(e)}")
            reply = {"error": {"type": type(e).__name__, "message": str(e)[:500]}}
        try:
            conn.settimeout(30.0)
            conn.sendall(json.dumps(reply, default=str).encode())
        except OSError:
            pass

    def dispatch(self, m: dict) -> dict:
        if m.get("protocol") != PROTOCOL or m.get("version") != version():
            self.running = False  # a newer jgm is calling: let the next call start a daemon of its own version
            raise _Refused("another jgm version")
        if code_stamp() != self.code:
            self.running = False  # the package changed on disk since this process loaded it: the next call
            try_log("daemon: the package changed on disk; exiting for a daemon of the new code")
            raise _Refused("the code changed")  # starts one of the new code; this one answers nothing more
        op = m.get("op")
        if op == "status":
            return self.status()
        if op == "stop":
            self.running = False
            return {"stopped": True, "pid": os.getpid()}
        if m.get("store") != str(self.store) or m.get("env") != env_fingerprint():
            raise _Refused("another store or environment")
        if op == "cli":  # the thin client's whole command line (thin.py)
            from .forward import forward

            done = forward(self, m, _Refused, OPS)
            self.forwarded += 1
            return done
        os.chdir(m["cwd"])
        try:
            return OPS[op](self, m.get("repo"), m.get("args") or {})
        finally:
            os.chdir(self.store)

    def handle(self, repo: str | None):
        """The warm handle of the worktree `repo` names (as the caller gave it, read from the caller's cwd)."""
        from ...app.workspace_handle import WorkspaceHandle

        if self._workspaces is None:
            from ...git.workspace import RememberedWorkspaces

            self._workspaces = RememberedWorkspaces()
        ws = self._workspaces.find(repo, bare_ok=True)
        key = (ws.id, str(ws.repo_root))
        h = self.handles.get(key)
        if h is None:
            h = self.handles[key] = WorkspaceHandle(ws)
        return h

    def served(self, h) -> None:
        r = h._recaller
        if r is not None:
            self.idle = float(r.settings.daemon_idle_seconds)

    def status(self) -> dict:
        return {
            "running": True,
            "pid": os.getpid(),
            "socket": str(self.path),
            "store": str(self.store),
            "version": version(),
            "uptime_seconds": round(time.time() - self.started, 1),
            "idle_seconds": self.idle,
            "idle_for_seconds": round(time.monotonic() - self.last, 1),
            "requests": self.requests,
            "forwarded": self.forwarded,
            "workspaces": sorted({str(k[1]) for k in self.handles}),
        }


class _Refused(Exception):
    """A request this daemon must not answer (another version, store or environment): the caller answers."""


def _served(d: Daemon, repo, run: Callable[[Any], T]) -> T:
    """`run(recaller)` on the warm handle of `repo` (an app/ operation, or a hook's brief)."""
    h = d.handle(repo)
    res = h.read(run)
    d.served(h)
    return res


def _recall(d: Daemon, repo, a: dict) -> dict:
    from ...app.recall import RecallRequest, recall

    return _served(d, repo, lambda r: recall(r, RecallRequest.model_construct(**a)).to_json())


def _recall_task(d: Daemon, repo, a: dict) -> dict:
    """A task the store cannot answer (not seeded, retrieval failed) raises: the caller answers in process."""
    from ...app.recall import TaskRequest, recall_task

    return _served(d, repo, lambda r: recall_task(r, TaskRequest.model_construct(**a)))


def _context(d: Daemon, repo, a: dict) -> dict:
    from ...app.recall import ContextRequest, context

    return _served(d, repo, lambda r: context(r, ContextRequest.model_construct(**a)))


def _edit_hook(d: Daemon, repo, a: dict) -> dict:
    """The edit hook's note for the files it has not answered for yet in the session (surfaces/agent/edit.py)."""
    from ..agent.edit_answer import governing_note

    return {"text": _served(d, repo, lambda r: governing_note(r, list(a["files"])))}


def _hook(d: Daemon, repo, a: dict) -> dict:
    from ..agent.brief import prompt_recall, session_brief

    if a["event"] == "session-start":
        return {"text": _served(d, repo, session_brief)}
    return {"text": _served(d, repo, lambda r: prompt_recall(r, a["prompt"], a.get("cwd")))}


OPS = {"recall": _recall, "recall-task": _recall_task, "context": _context, "hook": _hook, "edit-hook": _edit_hook}


def main() -> int:
    """Hold the store's lock for life (a second daemon exits at once), bind, serve, exit when idle."""
    code = code_stamp()  # before anything else is imported: the code this process will run
    store = store_path().absolute()
    store.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(lock_path(store), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return 0  # another daemon serves this store
    os.ftruncate(fd, 0)
    os.write(fd, str(os.getpid()).encode())
    os.chdir(store)
    try:
        d = Daemon(store, code)
    except OSError as e:  # e.g. a runtime folder another user made first: say why, where someone will look
        try_log(f"daemon: cannot start: {e}")
        return 1
    try:
        d.bind()
        try_log(f"daemon: serving {store} on {d.path} (pid {os.getpid()})")
        d.serve()
    except Exception as e:  # noqa: BLE001 - nobody is watching a detached process: say why in the log
        try_log(f"daemon: stopped by {type(e).__name__}\n{trace(e)}")
        return 1
    finally:
        try_log(f"daemon: exiting after {d.requests} requests (pid {os.getpid()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
