"""Small store guarantees: the default token file matches tokens.json, jgm.log is bounded, the hooks'
fallback log never follows a planted symlink, Chroma's files are private, every child process has a
timeout and no prompt, listings create nothing, and a bare repository works through its commits."""

from __future__ import annotations

import ast
import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import jgm_in
from helpers import jgm, seeded

pytestmark = pytest.mark.e2e

PACKAGE = Path(__file__).resolve().parents[1] / "jupiter_git_memory"

ROTATE = """
import sys
from pathlib import Path
from jupiter_git_memory.base import store
store.LOG_MAX_BYTES = 4000
for i in range(300):
    store.log(f"writer {sys.argv[2]} line {i} " + "x" * 40, Path(sys.argv[1]))
"""

TOKENS = """
import sys
from pathlib import Path
from jupiter_git_memory.surfaces.api.tokens import DEFAULT, TokenStore
store = TokenStore(Path(sys.argv[1]))
for _ in range(15):
    store.create(DEFAULT, replace=True)
"""


def _run_all(script: str, *argvs: list[str]) -> None:
    procs = [subprocess.Popen([sys.executable, "-c", script, *a], stderr=subprocess.PIPE, text=True) for a in argvs]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err


def test_the_default_token_file_always_holds_the_secret_tokens_json_accepts(tmp_path):
    """api-token was written after the token lock was let go, so whoever held the lock next could find
    tokens.json with one secret's digest and api-token with another secret (and a reader that trusted the
    file was refused). Here an observer takes the lock again and again while four processes rotate."""
    from jupiter_git_memory.surfaces.api.tokens import DEFAULT, TokenStore

    observer = TokenStore(tmp_path)
    procs = [subprocess.Popen([sys.executable, "-c", TOKENS, str(tmp_path)], stderr=subprocess.PIPE) for _ in range(4)]
    looks = disagreements = 0
    while any(p.poll() is None for p in procs):
        with observer._locked():
            secret = (tmp_path / "api-token").read_text().strip() if (tmp_path / "api-token").exists() else ""
            if secret:
                looks += 1
                disagreements += observer.authenticate(secret) is None
    assert all(p.wait(timeout=120) == 0 for p in procs), [p.stderr.read() for p in procs]
    assert looks and not disagreements, (looks, disagreements)
    info = TokenStore(tmp_path).authenticate((tmp_path / "api-token").read_text().strip())
    assert info is not None and info.name == DEFAULT
    assert stat.S_IMODE((tmp_path / "api-token").stat().st_mode) == 0o600
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_the_store_log_rotates_keeps_its_format_and_stays_private(tmp_path):
    _run_all(ROTATE, *[[str(tmp_path), str(n)] for n in range(3)])
    logs = sorted(tmp_path.glob("jgm.log*"))
    names = {p.name for p in logs}
    assert names <= {"jgm.log", "jgm.log.1", "jgm.log.2", "jgm.log.3", "jgm.log.lock"} and "jgm.log.3" in names
    line = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d \[\d+\] writer \d line \d+ x{40}$")
    for p in logs:
        assert stat.S_IMODE(p.stat().st_mode) == 0o600, p
        if p.name != "jgm.log.lock":
            assert p.stat().st_size <= 4000 + 100
            assert all(line.match(t) for t in p.read_text().splitlines()), p
    kept = "".join((tmp_path / n).read_text() for n in ("jgm.log.3", "jgm.log.2", "jgm.log.1", "jgm.log"))
    # rotation drops whole old files: each writer keeps a gapless run of its newest lines, ending at its last
    # (or none, if it finished before the oldest kept file began); the writer that finished last keeps its last
    per_writer = {n: [int(m) for m in re.findall(rf"writer {n} line (\d+)", kept)] for n in range(3)}
    for n, got in per_writer.items():
        assert got == list(range(got[0], 300)) if got else True, (n, got[:3], got[-3:])
    assert any(got and got[-1] == 299 for got in per_writer.values())


def test_the_hooks_fallback_log_refuses_a_planted_symlink(tmp_path, monkeypatch):
    import tempfile

    from jupiter_git_memory.freshness import hook_run

    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the store should be")
    monkeypatch.setenv("JGM_HOME", str(blocker / "store"))  # the store log cannot be written
    shared = tmp_path / "tmp"
    shared.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    fallback = shared / f"jgm-hooks-{os.getuid()}.log"
    fallback.symlink_to(victim)
    where = hook_run._log_error("post-checkout", RuntimeError("boom"))
    assert victim.read_text() == "precious\n" and where.startswith("nowhere"), where
    fallback.unlink()
    fallback.write_text("")
    os.chmod(fallback, 0o644)  # an old one of ours: used, and made private
    assert hook_run._log_error("post-checkout", RuntimeError("boom")) == str(fallback)
    assert "boom" in fallback.read_text() and stat.S_IMODE(fallback.stat().st_mode) == 0o600


def test_chromas_folder_and_files_are_private_and_old_ones_are_fixed(repo):
    s = seeded(repo, 2)
    chroma = s.wsdir / "chroma"

    def modes() -> set[tuple[str, int]]:
        out = {("chroma", stat.S_IMODE(chroma.stat().st_mode))}
        for p in chroma.rglob("*"):
            out.add(("dir" if p.is_dir() else "file", stat.S_IMODE(p.stat().st_mode)))
        return out

    assert modes() == {("chroma", 0o700), ("dir", 0o700), ("file", 0o600)}
    for p in [chroma, *chroma.rglob("*")]:  # a store made by an older jgm
        os.chmod(p, 0o755 if p.is_dir() else 0o644)
    from jupiter_git_memory.index.vectors import reset_clients

    reset_clients()
    repo.record("dec-new", title="Another decision", body="A new decision body about the queue.")
    repo.commit()
    s.seed()
    assert modes() == {("chroma", 0o700), ("dir", 0o700), ("file", 0o600)}


def test_every_child_process_of_the_package_has_a_timeout_and_no_prompt():
    """Statically: each subprocess call in the package passes `env` (git.runner.child_env turns prompts off) and
    a `timeout` (a detached Popen is never waited for). Most go through git.runner.run."""
    missing = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            f = node.func
            if not (isinstance(f.value, ast.Name) and f.value.id == "subprocess"):
                continue
            if f.attr not in ("run", "Popen", "call", "check_call", "check_output"):
                continue
            kws = {k.arg for k in node.keywords}
            need = {"env"} if f.attr == "Popen" else {"env", "timeout"}
            if not need <= kws:
                missing.append(f"{path.relative_to(PACKAGE)}:{node.lineno} subprocess.{f.attr} lacks {need - kws}")
    assert not missing, missing


def test_a_hanging_git_times_out_with_its_code_and_prompts_are_off(tmp_path, monkeypatch):
    from jupiter_git_memory.git import runner
    from jupiter_git_memory.git.workspace import find_workspace

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "git"
    fake.write_text('#!/bin/sh\necho "prompt=$GIT_TERMINAL_PROMPT" >> "$0.calls"\nsleep 30\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(runner, "GIT_TIMEOUT", 1.0)
    with pytest.raises(runner.GitTimeout) as e:
        find_workspace(tmp_path)
    assert e.value.code == "git/timeout" and "rev-parse" in e.value.message and "did not finish" in e.value.message
    assert (bin_dir / "git.calls").read_text().splitlines() == ["prompt=0"]


def test_listing_workspaces_and_models_creates_nothing(tmp_path):
    home = tmp_path / "no-store-yet"
    env = dict(os.environ, JGM_HOME=str(home))
    for args in (("workspaces",), ("workspaces", "--json"), ("model", "list"), ("model", "list", "--json")):
        p = jgm(*args, env=env)
        assert p.returncode == 0, p.stderr
        assert not home.exists(), (args, sorted(str(x) for x in home.rglob("*")))


def test_a_bare_repository_is_named_and_seeds_and_recalls_by_revision(repo, tmp_path):
    repo.record("dec-cache", title="Cache sessions in Redis", body="Sessions live in Redis because it is fast.")
    repo.commit()
    repo.git("tag", "v1")
    bare = tmp_path / "proj.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo.path), str(bare)], check=True, timeout=60)
    p = jgm_in("seed", cwd=bare)
    assert p.returncode == 4 and "is a bare repository" in p.stderr and "jgm seed --rev REV" in p.stderr, p.stderr
    assert "git init" not in p.stderr and "Traceback" not in p.stderr
    assert jgm_in("seed", "--rev", "v1", cwd=bare).returncode == 0
    p = jgm_in("recall", "session cache", "--at", "v1", "--json", cwd=bare)
    body = json.loads(p.stdout)
    assert p.returncode == 0 and [r["id"] for r in body["results"]] == ["dec-cache"], p.stdout
    assert not any("never been seeded" in w for w in body["warnings"]), body["warnings"]
    p = jgm_in("recall", "session cache", "--json", cwd=bare)
    assert p.returncode == 4 and json.loads(p.stdout)["status"] == "no-workspace"
    assert "recall --at REV" in json.loads(p.stdout)["error"]["message"]
