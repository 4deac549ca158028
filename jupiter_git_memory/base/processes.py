"""Whether a process is still running, zombies counted as gone.

Why: `kill(pid, 0)` succeeds on a zombie, a process that has exited and waits for its parent to collect its
status. A detached job (a hook reseed, the resident daemon) is re-parented to init when its starter exits, and
an init that reaps slowly (a container's or microVM's PID 1, measured at ~1.5 s here) kept an exited job
"running" for that long: waiters waited for init, not for the job.
"""

from __future__ import annotations

import os


def alive(pid: int) -> bool:
    """True while `pid` runs (or is another user's process we may not signal); False once it has exited."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return _state(pid) not in ("Z", "X")


def _state(pid: int) -> str | None:
    """The one-letter state Linux gives in /proc/PID/stat (after the command name, which may hold spaces and
    parentheses); None where there is no /proc (macOS) or the process went away meanwhile."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat[stat.rfind(b")") + 1 :].split()
    return fields[0].decode("ascii", "replace") if fields else None
