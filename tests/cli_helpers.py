"""`jgm` in process, answering like `helpers.jgm` (returncode, stdout, stderr), so a test that is not about the
process boundary skips a fresh interpreter importing chromadb and onnxruntime and loading the model.

What stays on `helpers.jgm` (a real subprocess): the console script's exit codes and stream separation as a
shell sees them, signals, environment inheritance, the light `__main__` entry (hooks, daemon forwarding),
hooks run by git, daemons, and races between processes. Everything else can run here: the same Typer app,
the same stdout/stderr split (Click's runner keeps them apart), the same exit codes."""

from __future__ import annotations

import os
import subprocess
from contextlib import contextmanager
from pathlib import Path

from helpers import jgm_json


@contextmanager
def _cwd(path: Path | None):
    if path is None:
        yield
        return
    before = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def jgm_in(
    *args: str | Path,
    cwd: Path | None = None,
    env: dict | None = None,
    input: str | None = None,
    check: bool = False,
) -> subprocess.CompletedProcess:
    """`jgm ARGS` through the CLI app in this process. `env`, as for a subprocess, is the whole environment
    (variables it lacks are unset for the call). A crash (an exception other than an exit) is raised, not
    turned into exit code 1, so a test cannot pass on a traceback."""
    from typer.testing import CliRunner

    from jupiter_git_memory.index.vectors import reset_clients
    from jupiter_git_memory.surfaces.cli.main import app

    overrides: dict[str, str | None] | None = None
    if env is not None:
        overrides = {k: None for k in os.environ if k not in env}
        overrides.update({k: str(v) for k, v in env.items() if os.environ.get(k) != v})
    argv = [str(a) for a in args]
    reset_clients()  # a fresh reader, as a new process would have
    with _cwd(cwd):
        r = CliRunner().invoke(app, argv, input=input, env=overrides, prog_name="jgm")
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    p = subprocess.CompletedProcess(["jgm", *argv], r.exit_code, r.stdout, r.stderr)
    if check:
        p.check_returncode()
    return p


def jgm_json_in(*args: str | Path, cwd: Path | None = None, env: dict | None = None) -> tuple[int, dict]:
    """(exit code, parsed stdout) of `jgm ARGS --json` in process; a non-JSON answer fails with both streams."""
    return jgm_json(*args, cwd=cwd, env=env, run=jgm_in)
