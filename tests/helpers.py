"""Test helpers shared by every test module: the real `jgm` as a subprocess (always with a timeout) and
a store seeded in process. Per-file copies of these drifted (timeouts, env, JSON errors); use these."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from jupiter_git_memory.seed.seeder import Seeder

JGM_EXE = shutil.which("jgm") or str(Path(sys.executable).parent / "jgm")
TIMEOUT = 300  # generous on two shared cores; a hang fails the test instead of holding CI


def jgm_on_path(env: dict | None = None) -> dict:
    """`env` (default: this process's) with the `jgm` under test first on PATH: what a client's shell finds
    when it runs an installed entry (`jgm hook …`, `jgm mcp`: the portable form `jgm agent install` writes)."""
    env = dict(os.environ if env is None else env)
    env["PATH"] = os.pathsep.join([str(Path(JGM_EXE).parent), env.get("PATH", "")])
    return env


def run_hook(command: str, payload: dict, env: dict | None = None) -> subprocess.CompletedProcess:
    """An installed client hook's command line, run as the client runs it: through a shell, the client's JSON
    on stdin, `jgm` on PATH."""
    return subprocess.run(
        command,
        shell=True,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=120,
        env=jgm_on_path(env),
    )


def jgm(
    *args: str,
    cwd: Path | None = None,
    env: dict | None = None,
    input: str | None = None,
    check: bool = False,
    timeout: float = TIMEOUT,
    exe: str = JGM_EXE,
) -> subprocess.CompletedProcess:
    """`jgm ARGS` in a fresh process (the store is the test's JGM_HOME unless `env` says otherwise)."""
    return subprocess.run(
        [exe, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        input=input,
        env=env or dict(os.environ),
        check=check,
        timeout=timeout,
    )


def jgm_json(*args: str, cwd: Path | None = None, env: dict | None = None, run=jgm) -> tuple[int, dict]:
    """(exit code, parsed stdout) of `jgm ARGS --json` (`run`: in a subprocess unless told, e.g.
    cli_helpers.jgm_in); a non-JSON answer fails with both streams shown."""
    p = run(*args, "--json", cwd=cwd, env=env)
    try:
        return p.returncode, json.loads(p.stdout)
    except json.JSONDecodeError:
        raise AssertionError(
            f"jgm {' '.join(map(str, args))} printed no JSON (rc {p.returncode}): {p.stdout!r}\n{p.stderr}"
        ) from None


def seeded(repo, records: dict[str, dict] | int = 3) -> Seeder:
    """Commit `records` (id -> record_text keywords; a number n: dec-0 … dec-(n-1) about a caching layer)
    into `repo` and seed them in process; returns the Seeder (its model stays loaded)."""
    if isinstance(records, int):
        records = {
            f"dec-{i}": {"title": f"Decision number {i}", "body": f"Body of decision {i} about caching layer {i}."}
            for i in range(records)
        }
    for rid, kw in records.items():
        repo.record(rid, **kw)
    repo.commit()
    s = Seeder(repo.path)
    report = s.seed()
    assert not report.errors, report.errors
    return s


def ctrl_c_as_in_a_terminal() -> None:
    """A `preexec_fn` for a child the test will send SIGINT: SIGINT handled by default, as in a terminal. A
    shell's background job (`pytest … &`) ignores SIGINT, its children inherit that, and Python then installs
    no KeyboardInterrupt handler, so the child would never see the Ctrl-C the test means."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
