"""Ask the store's daemon; start it when it is not there. Light on purpose: a hook imports this module.

`ask` returns the daemon's answer, or None when the caller must answer in process: the daemon is
disabled (`JGM_NO_DAEMON=1`), could not start in time, broke the connection, or answered with an error.
An error is never passed on as the answer: the in-process path runs and gives its own answer or error,
so a daemon that broke can cost time but can never change what a command prints.
"""

from __future__ import annotations

import _socket as socket  # the C socket the `socket` module wraps: all a client uses, without selectors
import json
import os
import sys
import time
from pathlib import Path

from ...base.environment import AGENT, DAEMON_TIMEOUT, HOME, HOOK_DEADLINE, NO_DAEMON, PREFIX, SESSION
from .paths import folder_problem, in_store, socket_path

TYPE_CHECKING = False  # not typing's: the thin client (thin.py) imports this module on every warm call
if TYPE_CHECKING:
    from collections.abc import Callable

PROTOCOL = 1
CONNECT_DEADLINE = 3.0  # seconds for a daemon started now to bind its socket (it binds before heavy imports)
ANSWER_TIMEOUT = 120.0  # seconds for an answer: a first one loads the model, a moved view is reseeded first
ALIVE_DEADLINE = 2.0  # seconds for the daemon to take the request (it acknowledges before it works on it)
MAX_ANSWER = 64 << 20
MAX_REQUEST = 8 << 20  # a request is a command line and an environment: kilobytes
ACK = b" "  # the daemon's "taken": JSON ignores leading whitespace, so a client that waits for none reads past it
# The daemon answers with its own environment; a caller whose settings-bearing variables differ answers itself.
ENV_PREFIXES = (PREFIX, "GIT_")
ENV_IGNORED = {v.name for v in (HOME, NO_DAEMON, HOOK_DEADLINE, AGENT, SESSION, DAEMON_TIMEOUT)}
ENV_IGNORED |= {"GIT_TERMINAL_PROMPT", "GCM_INTERACTIVE"}  # set by child_env on every child
# Names of variables that hold credentials: never sent to a daemon, even one that is ours (a request could be
# logged or kept by a debugger); a recall needs none of them.
SECRET_MARKERS = ("TOKEN", "SECRET", "PASSW", "PASSPHRASE", "CREDENTIAL", "API_KEY", "APIKEY", "AUTH", "COOKIE")


# Set by the daemon while it runs a forwarded command (server.forward): the command's own `ask` is then
# answered by that daemon's warm handles directly, in its process.
LOCAL: Callable[[str, dict, Path, str | None], dict | None] | None = None
_given_up = False  # a daemon broke a connection in this process: answer here, do not wait on it again
refusal: str | None = None  # why this process refused a daemon's socket (said once on stderr; the hook shows it)


class Untrusted(OSError):
    """A socket this user must not talk to: in a folder that is not ours alone, or served by another uid."""


def disabled() -> bool:
    return _given_up or NO_DAEMON.get_or("") not in ("", "0")


def give_up() -> None:
    global _given_up
    _given_up = True


def shareable(name: str) -> bool:
    """Whether a variable may travel to the daemon: ours (`JGM_*`), or any not named like a credential."""
    upper = name.upper()
    return upper.startswith(PREFIX) or not (upper.endswith("_KEY") or any(m in upper for m in SECRET_MARKERS))


def environ() -> dict[str, str]:
    """The environment a forwarded command runs with in the daemon (thin.py): ours minus credentials."""
    return {k: v for k, v in os.environ.items() if shareable(k)}


def env_fingerprint(env: dict | os._Environ | None = None) -> dict[str, str]:
    env = os.environ if env is None else env
    return {
        k: v for k, v in sorted(env.items()) if k.startswith(ENV_PREFIXES) and k not in ENV_IGNORED and shareable(k)
    }


def version() -> str:
    """The version and where the package was loaded from: a daemon running other code (another checkout,
    another PYTHONPATH) of the same version must not answer either."""
    from ... import __file__ as package_file
    from ... import __version__

    return f"{__version__} {os.path.dirname(package_file)}"


def _connect(path: Path, timeout: float) -> socket.socket | None:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(str(path))
        return s
    except OSError:
        s.close()
        return None


def peer_uid(s) -> int | None:
    """The uid of the process at the other end of the AF_UNIX socket `s` (the one that listened, for a
    client), from the kernel: SO_PEERCRED on Linux (struct ucred), LOCAL_PEERCRED on macOS (struct xucred);
    None where neither exists (the folder check is then all there is)."""
    try:
        if sys.platform.startswith("linux"):
            creds = s.getsockopt(socket.SOL_SOCKET, getattr(socket, "SO_PEERCRED", 17), 12)  # pid, uid, gid
        elif sys.platform == "darwin":
            creds = s.getsockopt(0, 1, 76)  # SOL_LOCAL, LOCAL_PEERCRED: version, uid, ...
        else:
            return None
    except OSError:
        return None
    return int.from_bytes(creds[4:8], sys.byteorder)


def _folder_refusal(store: Path, path: Path) -> str | None:
    """Why the socket's folder cannot be trusted (the runtime folder only: the store is ours by making)."""
    if in_store(store, path):
        return None
    try:
        os.lstat(path.parent)
    except FileNotFoundError:
        return None  # nothing there yet: no socket to talk to, and the daemon makes the folder private
    return folder_problem(path.parent)


def _refuse(reason: str) -> Untrusted:
    """Say once per process why the daemon is not asked, then answer in process."""
    global refusal
    if refusal is None:
        refusal = f"jgm: not using the daemon socket: {reason}; remove it (answering in this process)"
        try:
            sys.stderr.write(refusal + "\n")
        except (OSError, ValueError):
            pass
    return Untrusted(reason)


def _trusted(store: Path, path: Path, s: socket.socket) -> socket.socket:
    """`s` if the daemon behind it is ours: its folder still private, the peer's uid ours. Else closed, and
    Untrusted: nothing, neither the request nor the environment, was sent."""
    reason = _folder_refusal(store, path)
    uid = peer_uid(s)
    if reason is None and uid is not None and uid != os.getuid():
        reason = f"{path} is served by uid {uid}, not by you (uid {os.getuid()})"
    if reason is not None:
        s.close()
        raise _refuse(reason)
    return s


def spawn(store: Path) -> int:
    """Start the store's daemon detached (own session, no inherited pipes); it exits at once when another
    one already holds the store's lock."""
    import subprocess

    from ...base.home import store_env
    from ...git.runner import child_env

    env = child_env(store_env(store))
    env.pop(NO_DAEMON.name, None)
    with open(os.devnull, "rb") as devnull_in, open(os.devnull, "ab") as devnull_out:
        proc = subprocess.Popen(
            [sys.executable, "-P", "-m", "jupiter_git_memory", "daemon", "_serve"],
            cwd=str(store),
            stdin=devnull_in,
            stdout=devnull_out,
            stderr=devnull_out,  # the daemon logs to the store log
            start_new_session=True,
            close_fds=True,
            env=env,
        )
    return proc.pid


def connect(store: Path, start: bool = True) -> socket.socket | None:
    """A connection to the store's daemon, started first when `start` and none answers (a socket file
    left by a killed daemon refuses connections: the new daemon replaces it). Raises Untrusted (an OSError)
    for a socket in a folder that is not ours alone or served by another user: nothing is sent there. A
    squatted runtime folder is no reason to go without: the daemon makes its own (paths.socket_path)."""
    path = socket_path(store)
    reason = _folder_refusal(store, path)
    if reason is None:
        s = _connect(path, 1.0)
        if s is not None:
            return _trusted(store, path, s)
    if not start:
        return None  # a squatted folder without a folder of the daemon's own yet: the starting call makes one
    spawn(store)
    deadline = time.monotonic() + CONNECT_DEADLINE
    while time.monotonic() < deadline:
        time.sleep(0.02)
        path = socket_path(store)  # the daemon may have published a folder of its own
        reason = _folder_refusal(store, path)
        if reason is None:
            s = _connect(path, 1.0)
            if s is not None:
                return _trusted(store, path, s)
    if reason is not None:
        raise _refuse(reason)
    return None


def request(s: socket.socket, message: dict, timeout: float) -> dict | None:
    """Send one request and read its one answer (a JSON line); None when the connection broke, or when the
    daemon did not take the request within ALIVE_DEADLINE: a stopped (SIGSTOP) or busy daemon costs a caller
    two seconds, not the whole answer timeout, and the caller answers in process."""
    try:
        s.settimeout(min(ALIVE_DEADLINE, timeout))
        s.sendall(json.dumps(message).encode() + b"\n")
        first = s.recv(1 << 16)  # the acknowledgement, often with the answer after it
        if not first:
            return None
        s.settimeout(timeout)
        chunks, size = [first], len(first)
        while True:
            chunk = s.recv(1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_ANSWER:
                return None
        answer = json.loads(b"".join(chunks) or b"null")
        return answer if isinstance(answer, dict) else None
    except (OSError, ValueError):
        return None
    finally:
        s.close()


def ask(op: str, args: dict, *, store: Path, repo: str | None, start: bool = True) -> dict | None:
    """The daemon's answer to `op` for `repo` (as the command was given it, resolved from our cwd), or None:
    answer in process."""
    if LOCAL is not None:
        return LOCAL(op, args, Path(store), repo)
    if disabled():
        return None
    try:
        s = connect(store, start=start)
    except OSError:
        return None
    if s is None:
        return None
    message = {
        "protocol": PROTOCOL,
        "version": version(),
        "op": op,
        "args": args,
        "repo": repo,
        "cwd": os.getcwd(),
        "store": str(Path(store).absolute()),
        "env": env_fingerprint(),
    }
    timeout = float(DAEMON_TIMEOUT.get_or(ANSWER_TIMEOUT))
    answer = request(s, message, timeout)
    if not answer or "ok" not in answer:
        return None
    return answer["ok"]


def control(op: str, store: Path) -> dict | None:
    """`status` / `stop` of a running daemon (never starts one); None when none answers (or it is not ours)."""
    try:
        s = connect(store, start=False)
    except OSError:
        return None
    if s is None:
        return None
    answer = request(s, {"protocol": PROTOCOL, "version": version(), "op": op, "store": str(store)}, 10.0)
    return (answer or {}).get("ok")
