"""What an installed hook does when git runs it: find the knowledge files the git command changed, and if
any, reseed detached (the job writes `hook-last-run.json` and logs errors to the store log). Split from
githooks.py (install, uninstall, status) so the hot path, which runs after every checkout, is this module
alone: `python -m jupiter_git_memory hooks run|_reseed` imports it without the CLI or the installer.

A hook never fails or blocks the git command: errors go to the store log (`JGM_HOOK_SYNC=1` runs the
reseed in the foreground).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

from ..base.environment import HOOK_SKIP, HOOK_SYNC
from ..base.files import atomic_write
from ..base.home import store_env
from ..base.processes import alive
from ..base.store import log, log_path, workspace_dir
from ..git.home import use_store
from ..git.runner import child_env
from ..git.state import has_reference_transaction, toplevel
from ..git.workspace import find_workspace
from ..records.text import escape_nonprintable
from .hook_paths import STDIN_HOOKS, changed_paths

# -- running ----------------------------------------------------------------------------------------
LAST_RUN = "hook-last-run.json"
JOBS_DIR = "hook-jobs"


def _say(message: str) -> None:
    """One line into git's output. It may carry the user's text (a config key, a path), so every character
    that is not printable goes out escaped: nothing from a checked-out file drives the terminal."""
    sys.stderr.write(f"jgm: {escape_nonprintable(message)}\n")
    sys.stderr.flush()


def _quiet_git_env() -> None:
    """Never take git's optional index lock from a hook or its job: git may still be running."""
    os.environ["GIT_OPTIONAL_LOCKS"] = "0"
    for k in ("GIT_INDEX_FILE", "GIT_PREFIX"):
        os.environ.pop(k, None)


def run_hook(hook: str, args: list[str], stdin: str = "", cwd: Path | str | None = None) -> int:
    """What the shim calls. Always returns 0; prints one line (after a warning per setting it did not use, see
    config/consent.py), and nothing when no record changed."""
    if HOOK_SKIP.get() == "1":
        return 0
    _quiet_git_env()
    here = Path(cwd or ".").absolute()
    try:  # git runs hooks at the top of the working tree: skip asking it when that is plain
        top = here if (here / ".git").exists() else toplevel(here)
    except (subprocess.CalledProcessError, OSError):
        return 0  # a bare repository: no working tree to index
    try:
        store = use_store(repo=top)  # JGM_HOME, else the repo's `git config jgm.home`; the job is told it
        # every path the command changed, then the Markdown ones: a record is a Markdown file, so a checkout
        # that changed none is decided before the settings (and pydantic) load
        markdown = [p for p in changed_paths(top, hook, args, stdin, ()) if p.lower().endswith((".md", ".markdown"))]
        if not markdown:
            return 0
        from ..config import load_settings
        from ..seed.sources import is_record_path

        settings = load_settings(top)
        changed = [p for p in markdown if is_record_path(p, settings)]
        if not changed:
            return 0
        what = f"{len(changed)} knowledge file{'s' if len(changed) != 1 else ''} changed"
        for notice in settings.notices():  # e.g. a chroma_url on this branch that the user has not approved
            _say(f"warning: {notice}")
        if hook == "post-commit" and has_reference_transaction():
            # that hook reseeds this commit (in the background, silently: git was still inside the command);
            # this one runs after it, where git's output is the user's, and says it (in sync mode it said it)
            if HOOK_SYNC.get() != "1":
                _say(f"{what}; reindexing in the background into {store} (`jgm hooks status` shows the result)")
        elif HOOK_SYNC.get() == "1":
            result = reseed_job(top, hook, coalesce=False)
            _say(f"{what}; {result['summary']}")
        else:
            spawn_reseed(top, hook, store)
            _say(f"{what}; reindexing in the background into {store} (`jgm hooks status` shows the result)")
    except Exception as e:  # a hook never fails the git command, and never prints a traceback into its output
        where = _log_error(hook, e)
        _say(f"{hook} hook could not reindex: {first_line(e)} (details in {where})")
    return 0


def first_line(e: BaseException) -> str:
    return (str(e).strip().splitlines() or [type(e).__name__])[0]


def _log_error(hook: str, e: BaseException) -> str:
    """Log the traceback; returns where it went. Without a usable store (it cannot be created, say) the
    details go to a per-user file in the temp dir, so the one line git shows can still point at them."""
    import tempfile
    import traceback

    text = f"hook {hook}: {type(e).__name__}: {e}\n" + "".join(traceback.format_exception(e)).rstrip()
    try:
        log(text)
        return str(log_path())
    except OSError:
        pass
    fallback = Path(tempfile.gettempdir()) / f"jgm-hooks-{os.getuid()}.log"
    try:
        with open(_own_private_file(fallback), "a", encoding="utf-8") as f:
            f.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} [{os.getpid()}] {text}\n")
        return str(fallback)
    except OSError:
        return "nowhere (no writable log)"


def _own_private_file(path: Path) -> int:
    """An append descriptor of `path` in a shared folder (the temp dir): never through a symlink someone
    planted there (O_NOFOLLOW), only a regular file of ours, and 0600 whatever it was. OSError otherwise."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o600)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid():
            raise PermissionError(f"{path} is not a regular file of this user")
        if st.st_mode & 0o077:
            os.fchmod(fd, 0o600)
        return fd
    except BaseException:
        os.close(fd)
        raise


def spawn_reseed(top: Path, hook: str, store: Path) -> int:
    """Start the reseed detached (own session, no inherited pipes, so git and its callers return now)."""
    with open(log_path(), "ab") as logf:
        argv = [sys.executable, "-P", "-m", "jupiter_git_memory", "hooks", "_reseed", hook, str(top)]
        proc = subprocess.Popen(
            argv,
            cwd=top,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=logf,
            start_new_session=True,
            close_fds=True,
            env=child_env(
                store_env(store)
            ),  # the store in its env; detached: nobody could answer a prompt; its git calls time out (git/runner.py)
        )
    return proc.pid


def reseed_job(top: Path, hook: str, coalesce: bool = True) -> dict:
    """Seed the working tree and record the outcome in the workspace's hook-last-run.json.

    With `coalesce`, a job that finds another one still waiting for the index lock leaves the work to
    it: that one reads the files only after it gets the lock, so it sees these changes too."""
    import fcntl

    from ..recall.calibrate import calibrating_seeder

    _quiet_git_env()
    wsdir = workspace_dir(find_workspace(top).id)
    jobs = wsdir / JOBS_DIR
    jobs.mkdir(exist_ok=True)
    marker = jobs / str(os.getpid())
    marker.write_text(json.dumps({"hook": hook, "started": time.time()}), encoding="utf-8")
    pending = None
    result: dict = {"hook": hook, "pid": os.getpid(), "started": time.time()}
    try:
        if coalesce:
            pending = os.open(wsdir / "hook-pending.lock", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(pending, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(pending)
                pending = None
                result = dict(result, ok=True, summary="left to the reseed already waiting", coalesced=True)
                return result
        seeder = calibrating_seeder(top)
        if pending is not None:
            from ..base.store import workspace_lock

            with workspace_lock(wsdir, exclusive=True):  # wait for the writer ahead of us, holding our place
                pass
            os.close(pending)
            pending = None
        report = seeder.seed()
        c = report.to_json()["counts"]
        summary = f"reindexed after {hook}: {report.summary()}" + (
            f", {c['errors']} errors (run `jgm check`)" if c["errors"] else ""
        )
        result.update(ok=True, summary=summary, counts=c, generation=report.generation, finished=time.time())
        if report.errors:
            log(f"hook {hook}: {summary}: " + "; ".join(f"{e['path']}: {e['message']}" for e in report.errors))
    except Exception as e:
        _log_error(hook, e)
        result.update(
            ok=False,
            summary=f"could not reindex: {first_line(e)}",
            error=f"{type(e).__name__}: {e}",
            finished=time.time(),
        )
    finally:
        if pending is not None:
            os.close(pending)
        if not result.get("coalesced"):
            _write_json(wsdir / LAST_RUN, result)
        marker.unlink(missing_ok=True)
    return result


def _write_json(path: Path, data: dict) -> None:
    atomic_write(path, json.dumps(data))


def running_jobs(wsdir: Path) -> list[int]:
    """Pids of hook reseeds still running for this workspace (stale markers are cleaned up)."""
    pids = []
    for m in (wsdir / JOBS_DIR).glob("*") if (wsdir / JOBS_DIR).is_dir() else []:
        if not m.name.isdigit():
            continue
        if alive(int(m.name)):
            pids.append(int(m.name))
        else:  # exited (a zombie waiting for init counts as exited) without removing its marker
            m.unlink(missing_ok=True)
    return sorted(pids)


def main(argv: list[str]) -> int:
    """`python -m jupiter_git_memory hooks run|_reseed ...` without loading the full CLI."""
    if len(argv) >= 2 and argv[0] == "run":
        stdin = sys.stdin.read() if argv[1] in STDIN_HOOKS and not sys.stdin.isatty() else ""
        return run_hook(argv[1], argv[2:], stdin)
    if len(argv) == 3 and argv[0] == "_reseed":
        try:
            use_store(repo=argv[2])
            result = reseed_job(Path(argv[2]), argv[1])
        except Exception as e:  # e.g. the repo vanished before the job started
            _log_error(argv[1], e)
            return 1
        return 0 if result.get("ok") else 1
    sys.stderr.write("usage: python -m jupiter_git_memory hooks run <hook> [args...]\n")
    return 0
