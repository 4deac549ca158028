"""The store under attack (issue 10, items 5, 8-11, 13): a corrupt catalog heals, the store is private,
terminal escapes never reach the terminal, hooks neither touch tracked files nor print tracebacks, and a
read-only Chroma directory is named as such."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from reliability_helpers import assert_consistent

from jupiter_git_memory.base.store import workspace_dir
from jupiter_git_memory.freshness import githooks
from jupiter_git_memory.maintenance import doctor
from jupiter_git_memory.recall.service import Recaller, RecallError
from jupiter_git_memory.seed.seeder import Seeder

pytestmark = pytest.mark.e2e


def cli(*args: str, cwd: Path):
    """`jgm ARGS` in process (Typer's runner): the real command, without paying a Python start under load."""
    from typer.testing import CliRunner

    from jupiter_git_memory.surfaces.cli.main import app

    return CliRunner().invoke(app, [*args, "--repo", str(cwd)])


from helpers import seeded  # noqa: E402


def corrupt(path: Path, how: str) -> None:
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3] if how == "truncate" else os.urandom(len(data)))


@pytest.mark.parametrize("how", ["truncate", "random"])
def test_a_corrupt_catalog_is_named_moved_aside_and_rebuilt_with_its_vectors(repo, how):
    s = seeded(repo)
    cat = s.wsdir / "catalog.sqlite"
    import sqlite3

    db = sqlite3.connect(cat)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    corrupt(cat, how)
    d = doctor.diagnose(repo.path)
    assert [p.check for p in d.problems] == ["catalog-corrupt"] and d.problems[0].path == str(cat)
    with pytest.raises(RecallError, match="catalog.sqlite: the catalog is corrupt"):
        Recaller(repo.path).recall("caching layer")
    if how == "truncate":  # doctor --repair, through the CLI: no traceback, the moved file named
        r = cli("doctor", "--repair", "--json", cwd=repo.path)
        out = json.loads(r.stdout)
        assert r.exit_code == 0 and out["ok"] and out["repair"]["seed"]["embedded_chunks"] == 0
        moved = out["repair"]["catalog_moved_aside"]
    else:  # a plain seed heals it too
        rep = Seeder(repo.path).seed()
        assert rep.embedded_chunks == 0 and sorted(rep.added) == ["dec-0", "dec-1", "dec-2"]
        moved = rep.recovered_from
        assert any(w["path"] == moved for w in rep.warnings)
    assert Path(moved).exists() and Path(moved).parent == cat.parent
    assert_consistent(repo.path, {"dec-0", "dec-1", "dec-2"})


def mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def test_store_files_are_private_and_old_ones_are_fixed(repo, jgm_home):
    s = seeded(repo, 1)
    cat = s.wsdir / "catalog.sqlite"
    assert (mode(jgm_home), mode(jgm_home / "workspaces"), mode(s.wsdir)) == (0o700, 0o700, 0o700)
    assert {p.name: mode(p) for p in s.wsdir.glob("catalog.sqlite*")} == dict.fromkeys(
        [p.name for p in s.wsdir.glob("catalog.sqlite*")], 0o600
    )
    for d in (jgm_home, jgm_home / "workspaces", s.wsdir):  # a store made by an older jgm
        os.chmod(d, 0o755)
    os.chmod(cat, 0o644)
    repo.record("dec-new", title="Another one", body="A new decision body.")
    Seeder(repo.path).seed()
    assert (mode(jgm_home), mode(s.wsdir), mode(cat)) == (0o700, 0o700, 0o600)


def test_terminal_escapes_are_stripped_from_human_output_and_escaped_in_json(repo):
    repo.write(
        "knowledge/evil.md",
        "---\nid: evil\nkind: decision\nstatus: accepted\n"
        'title: "Use Redis \\e]0;pwned\\a for caching \\e[2J"\n---\n'
        "We use Redis for caching.\x1b[2J\x1b]0;owned\x07 Because it is fast.\n",
    )
    repo.commit()
    Seeder(repo.path).seed()
    p = cli("recall", "which cache do we use, redis?", cwd=repo.path)
    assert p.exit_code == 0 and "Use Redis" in p.stdout
    assert not any(c in p.stdout for c in "\x1b\x07"), repr(p.stdout)
    j = cli("recall", "which cache do we use, redis?", "--json", cwd=repo.path)
    assert "\x1b" not in j.stdout and "\\u001b" in j.stdout
    assert json.loads(j.stdout)["results"][0]["title"].startswith("Use Redis \x1b]0;pwned")


def test_hooks_install_refuses_to_modify_a_tracked_hooks_path(repo):
    repo.record("a")
    own = repo.write(".githooks/post-merge", "#!/bin/sh\necho team hook\n")
    os.chmod(own, 0o755)
    repo.git("config", "core.hooksPath", ".githooks")
    repo.commit()
    before = own.read_bytes()
    with pytest.raises(githooks.HookConflict, match=r"tracked.*\.githooks/post-merge.*--force"):
        githooks.install(repo.path)
    assert own.read_bytes() == before and not (repo.path / ".githooks/post-checkout").exists()
    p = cli("hooks", "install", cwd=repo.path)
    assert p.exit_code == 2 and "--force" in p.output, p.output
    assert repo.git("status", "--porcelain").stdout == ""
    githooks.install(repo.path, force=True)
    assert githooks.is_shim(own)


@pytest.mark.parametrize("sync", ["1", "0"])
def test_a_hook_prints_one_line_when_the_store_cannot_be_created(repo, tmp_path, sync):
    repo.record("a")
    repo.commit("one")
    repo.git("checkout", "-q", "-b", "feat")
    repo.record("b")
    repo.commit("two")
    githooks.install(repo.path)
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the store should be")
    env = dict(os.environ, JGM_HOME=str(blocker / "store"), JGM_HOOK_SYNC=sync, TMPDIR=str(tmp_path))
    p = subprocess.run(
        ["git", "-C", str(repo.path), "checkout", "-q", "main"], capture_output=True, text=True, env=env, timeout=120
    )
    assert p.returncode == 0
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("jgm: post-checkout hook could not reindex"), p.stderr
    assert str(tmp_path) in lines[0]  # where the details went
    assert "Traceback" in next(tmp_path.glob("jgm-hooks-*.log")).read_text()


def _read_only(chroma: Path, *cmd: str) -> subprocess.CompletedProcess:
    """Run `cmd` with `chroma` really read-only: chmod for a normal user; root ignores modes, so there a
    read-only bind mount in a private mount namespace does it."""
    if os.geteuid() != 0:
        subprocess.run(["chmod", "-R", "a-w", str(chroma)], check=True, timeout=60)
        try:
            return subprocess.run(list(cmd), capture_output=True, text=True, timeout=120)
        finally:
            subprocess.run(["chmod", "-R", "u+w", str(chroma)], check=True, timeout=60)
    if not shutil.which("unshare"):
        pytest.skip("root without unshare: cannot make a directory read-only")
    script = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"'
    p = subprocess.run(
        ["unshare", "-m", "sh", "-c", script, "sh", str(chroma), *cmd], capture_output=True, text=True, timeout=120
    )
    if "mount:" in p.stderr or "unshare:" in p.stderr:
        pytest.skip(f"no private mount namespace here: {p.stderr.strip()[:120]}")
    return p


def test_a_read_only_chroma_directory_is_named_not_a_traceback(repo):
    s = seeded(repo, 1)
    repo.record("dec-later", title="Later", body="A later decision that needs a vector.")
    chroma = workspace_dir(s.workspace.id) / "chroma"
    exe = shutil.which("jgm")
    p = _read_only(chroma, exe, "seed", "--repo", str(repo.path))
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert f"{chroma}: the Chroma directory is read-only" in p.stderr, p.stderr
    p = _read_only(chroma, exe, "doctor", "--json", "--repo", str(repo.path))
    (problem,) = json.loads(p.stdout)["problems"]
    assert (
        problem["check"] == "chroma-unavailable"
        and "read-only" in problem["message"]
        and problem["path"] == str(chroma)
    )
