"""A process that has exited is gone even before anyone reaps it (base/processes.py), and a hook reseed's marker
left by such a process is not a running job."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from jupiter_git_memory.base.processes import alive
from jupiter_git_memory.freshness.hook_run import JOBS_DIR, running_jobs

pytestmark = pytest.mark.e2e  # real child processes


def _exited_unreaped() -> subprocess.Popen:
    """A child that has exited and that nobody has waited for yet: a zombie, which `kill(pid, 0)` still finds."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with open(f"/proc/{child.pid}/stat", "rb") as f:
            if f.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                break
        time.sleep(0.01)
    else:
        pytest.fail("the child did not exit")
    os.kill(child.pid, 0)  # the old check: it succeeds on a zombie
    return child


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="process states are read from Linux's /proc")
def test_an_exited_process_is_gone_before_it_is_reaped_and_a_running_one_is_alive():
    running = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    zombie = _exited_unreaped()
    try:
        assert alive(running.pid) is True
        assert alive(zombie.pid) is False
        assert alive(os.getpid()) is True
    finally:
        running.kill()
        running.wait()
        zombie.wait()
    assert alive(zombie.pid) is False and alive(running.pid) is False  # reaped: no such process at all


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="process states are read from Linux's /proc")
def test_a_marker_of_an_exited_hook_reseed_is_cleaned_and_a_running_ones_is_kept(tmp_path):
    running = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    zombie = _exited_unreaped()
    jobs = tmp_path / JOBS_DIR
    jobs.mkdir()
    for pid in (running.pid, zombie.pid):
        (jobs / str(pid)).touch()
    try:
        assert running_jobs(tmp_path) == [running.pid]
        assert sorted(p.name for p in jobs.iterdir()) == [str(running.pid)]
    finally:
        running.kill()
        running.wait()
        zombie.wait()
