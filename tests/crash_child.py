"""Child process for tests/test_crash_safety.py: a real seed that SIGKILLs itself at event N.

Events are the points where the seed's state on disk changes or is about to: each embedded batch, each
slice of vectors written to / updated in / deleted from Chroma (writes are cut into slices of SLICE so a
kill can land between two of them), the writer's `fault` stages, a point inside the catalog's transaction (before COMMIT), and the commit. The wrappers only
count and kill (fault injection); every write still goes through the product's code.

    JGM_CRASH_AT=7 python tests/crash_child.py REPO     # dies by SIGKILL at the 7th event
    JGM_CRASH_REBUILD=1 JGM_CRASH_SIGNAL=SIGINT ...     # the same for `seed --rebuild`, Ctrl-C instead
    python tests/crash_child.py REPO                    # no kill: prints the event census as JSON

The tests start these seeds through `Forks` (`python tests/crash_child.py --serve`): one process imports the
package and Chroma once (no client, model or file opened) and forks a fresh child per seed,
which runs `main` exactly as above and dies by the signal. What the kill tests prove is unchanged: a real
process, its own Chroma client, model session, SQLite connection and lock, killed at a deterministic point;
only the ~2 s of imports per kill are paid once per test instead of once per kill.
"""

from __future__ import annotations

import json
import os
import signal
import sys

SLICE = 20
EVENTS: list[str] = []
_INSTALLED = False


def event(name: str) -> None:
    EVENTS.append(name)
    sys.stderr.write(f"EVENT {len(EVENTS)} {name}\n")
    sys.stderr.flush()
    if len(EVENTS) == int(os.environ.get("JGM_CRASH_AT", "0") or 0):
        os.kill(os.getpid(), getattr(signal, os.environ.get("JGM_CRASH_SIGNAL", "SIGKILL")))


def install() -> None:
    """Wrap the write points once: `serve` installs them before forking, and each forked child's `main`
    calls this again (a second wrapping counted every event twice, so the forked and the fresh-interpreter
    seeds disagreed on where event N is)."""
    global _INSTALLED
    if _INSTALLED:
        return
    _INSTALLED = True
    from jupiter_git_memory.embedding.onnx_embedder import OnnxEmbedder
    from jupiter_git_memory.index.catalog import Catalog
    from jupiter_git_memory.index.vectors import VectorIndex

    run = OnnxEmbedder._run

    def _run(self, texts):
        out = run(self, texts)
        event("embed-batch")
        return out

    OnnxEmbedder._run = _run

    def sliced(method, name, has_vectors):
        def wrapper(self, ids, *rest):
            for i in range(0, len(ids), SLICE):
                method(self, ids[i : i + SLICE], *[r[i : i + SLICE] for r in rest])
                event(name)

        return wrapper

    VectorIndex.add = sliced(VectorIndex.add, "chroma-upsert", True)
    VectorIndex.update_metadata = sliced(VectorIndex.update_metadata, "chroma-update", False)
    VectorIndex.delete = sliced(VectorIndex.delete, "chroma-delete", False)
    apply = Catalog.apply

    def _apply(self, changes):
        fired: list[int] = []

        def in_transaction() -> int:  # SQLite calls this every 2,000 VM steps: the first lands mid-transaction
            if not fired:
                fired.append(1)
                event("catalog-in-transaction")
            return 0

        self._db.set_progress_handler(in_transaction, 2000)  # fault injection reaches into the connection
        try:
            gen = apply(self, changes)
        finally:
            self._db.set_progress_handler(None, 0)
        event("catalog-commit")
        return gen

    Catalog.apply = _apply


def main() -> None:
    install()
    from jupiter_git_memory.seed.seeder import Seeder

    report = Seeder(sys.argv[1]).seed(fault=event, rebuild=bool(os.environ.get("JGM_CRASH_REBUILD")))
    print(json.dumps({"events": EVENTS, "records": report.records, "errors": report.errors}))


def serve() -> None:
    """Read one request per line ({"repo", "env", "log"}), fork a child that runs `main` with `env` as its
    environment and its stdout/stderr in `log`; answer {"pid"} at once, {"rc"} (as Popen's) when it ends."""
    install()
    # the imports the children share; nothing is opened. onnxruntime is left to each child: importing it
    # starts a thread, which a forked child would not have
    import jupiter_git_memory.seed.seeder  # noqa: F401

    for line in sys.stdin:
        req = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _child(req)
        print(json.dumps({"pid": pid}), flush=True)
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"rc": os.waitstatus_to_exitcode(status)}), flush=True)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:  # it ended (and was reaped) just before
        pass


def _child(req: dict) -> None:
    """The forked child: `main` in the request's environment, ended as a Python process ends (atexit
    handlers run; an uncaught Ctrl-C exits by SIGINT, a failure with 1), never returning to the loop. Ctrl-C
    raises KeyboardInterrupt as in a terminal, even when the server inherited an ignored SIGINT (a shell's
    background job) and Python installed no handler for it."""
    import atexit
    import traceback

    signal.signal(signal.SIGINT, signal.default_int_handler)

    code, sig = 0, None
    try:
        os.environ.clear()  # the whole environment, as for a new process
        os.environ.update(req["env"])
        fd = os.open(req["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        sys.argv[1:] = [req["repo"]]
        main()
    except KeyboardInterrupt:
        traceback.print_exc()
        sig = signal.SIGINT
    except BaseException:
        traceback.print_exc()
        code = 1
    finally:
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
        if sig is not None:
            signal.signal(sig, signal.SIG_DFL)
            os.kill(os.getpid(), sig)
        os._exit(code)


class Forks:
    """The test side of `serve`: `run(repo, env, delay)` -> (returncode, log); with `delay`, the child is
    sent SIGKILL after that many seconds unless it ended first."""

    def __init__(self, tmp: str) -> None:
        import subprocess

        self.tmp, self.n = tmp, 0
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def run(self, repo: str, env: dict[str, str], delay: float | None = None) -> tuple[int, str]:
        import threading

        self.n += 1
        log = os.path.join(self.tmp, f"crash-{self.n}.log")
        assert self.proc.stdin
        self.proc.stdin.write(json.dumps({"repo": repo, "env": env, "log": log}) + "\n")
        self.proc.stdin.flush()
        pid = self._answer()["pid"]
        timers = [threading.Timer(300, self.proc.kill)]  # a hung seed fails the test instead of holding CI
        if delay is not None:
            timers.append(threading.Timer(delay, _kill, (pid,)))
        for t in timers:
            t.start()
        try:
            rc = self._answer()["rc"]
        finally:
            for t in timers:
                t.cancel()
        with open(log, encoding="utf-8", errors="replace") as f:
            return rc, f.read()

    def _answer(self) -> dict:
        assert self.proc.stdout
        line = self.proc.stdout.readline()
        assert line, "the forking process ended (a seed child hung for 300 s, or it crashed)"
        return json.loads(line)

    def close(self) -> None:
        assert self.proc.stdin
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        serve()
    else:
        main()
