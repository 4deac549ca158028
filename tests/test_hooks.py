"""Git hooks: real `git pull / checkout / rebase / commit --amend / clone` in temp repos, with the shims
installed by `jgm hooks install`, pre-existing hooks chained, and the index read back afterwards."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from conftest import record_text, run_git
from hooks_helpers import JGM, last_hook_run, snapshot, wait_for, wait_hook_jobs

from jupiter_git_memory.base.store import log_path, store_root
from jupiter_git_memory.freshness import githooks
from jupiter_git_memory.seed.seeder import Seeder

pytestmark = [pytest.mark.e2e, pytest.mark.slow]  # slow: scheduled first (conftest.py)

ROOT = Path(__file__).resolve().parents[1]


def git_ok(repo, *args):
    p = repo.git(*args, check=False)
    assert p.returncode == 0, p.stderr
    return p


def jgm_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("jgm:")]


@pytest.fixture
def sync_hooks(monkeypatch):
    monkeypatch.setenv("JGM_HOOK_SYNC", "1")


def two_branches(repo):
    """main: a1, a2; feat: a2 changed, b1 added, a1 deleted; code: only a code file differs from feat."""
    repo.record("a1", title="Use Postgres", body="We store everything in Postgres.")
    repo.record("a2", kind="fact", status="verified", title="Port", body="The API listens on 8080.")
    repo.write("src/app.py", "print('v1')\n")
    repo.commit("main")
    git_ok(repo, "checkout", "-q", "-b", "code")
    repo.write("src/app.py", "print('v2')\n")
    repo.commit("code only")
    git_ok(repo, "checkout", "-q", "-b", "feat", "main")
    os.remove(repo.path / "knowledge/a1.md")
    repo.record("a2", kind="fact", status="verified", title="Port", body="The API listens on 9090 now.")
    repo.record("b1", title="Use Redis for sessions", body="Sessions live in Redis.")
    repo.commit("feat")
    git_ok(repo, "checkout", "-q", "main")


def logging_hook(path: Path, log: Path, read_stdin: bool = False, exit_code: int = 0) -> bytes:
    """A team's own hook that records how it was called."""
    text = (
        f"#!/bin/sh\n# the team's own {path.name} hook\n"
        f"printf '%s\\n' \"$(basename \"$0\") $*\" >> '{log}'\n"
        + (f"cat >> '{log}.stdin'\n" if read_stdin else "")
        + f"exit {exit_code}\n"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.chmod(path, 0o750)
    return path.read_bytes()


def test_top_level_hook_scripts_are_the_packaged_shim():
    shim = githooks.render_shim(None).encode()
    for name in githooks.HOOKS:
        p = ROOT / "hooks" / name
        assert p.read_bytes() == shim, f"hooks/{name} drifted from hook_scripts/jgm-hook"
        assert p.stat().st_mode & stat.S_IXUSR


def test_install_chains_existing_hooks_and_uninstall_restores_them(repo, tmp_path):
    two_branches(repo)
    hooks = repo.path / ".git/hooks"
    calls = tmp_path / "calls.log"
    originals = {
        "post-checkout": logging_hook(hooks / "post-checkout", calls),
        "post-rewrite": logging_hook(hooks / "post-rewrite", calls, read_stdin=True),
    }
    actions = {a["hook"]: a["action"] for a in githooks.install(repo.path)}
    assert actions == {
        "post-merge": "installed",
        "post-checkout": "installed, chaining post-checkout.jgm-chained",
        "post-rewrite": "installed, chaining post-rewrite.jgm-chained",
        "post-commit": "installed",
        "reference-transaction": "installed",
    }
    listing = {p.name: (p.read_bytes(), p.stat().st_mode) for p in hooks.iterdir()}
    again = {a["hook"]: a["action"] for a in githooks.install(repo.path)}
    assert again["post-merge"] == "unchanged" and again["post-checkout"].startswith("unchanged, chaining")
    assert {p.name: (p.read_bytes(), p.stat().st_mode) for p in hooks.iterdir()} == listing

    main = git_ok(repo, "rev-parse", "HEAD").stdout.strip()
    code = git_ok(repo, "rev-parse", "code").stdout.strip()
    out = git_ok(repo, "checkout", "-q", "code")  # no knowledge change: chained hook runs, jgm does nothing
    assert jgm_lines(out.stderr) == []
    git_ok(repo, "commit", "-q", "--amend", "-m", "code only, reworded")
    amended = git_ok(repo, "rev-parse", "HEAD").stdout.strip()
    assert calls.read_text().splitlines() == [
        f"post-checkout.jgm-chained {main} {code} 1",
        "post-rewrite.jgm-chained amend",
    ]
    assert Path(f"{calls}.stdin").read_text() == f"{code} {amended}\n"  # stdin passed through intact
    assert last_hook_run(repo.path) is None  # nothing was reseeded

    actions = {a["hook"]: a["action"] for a in githooks.uninstall(repo.path)}
    assert actions["post-merge"] == "removed"
    assert actions["post-checkout"] == "removed, restored post-checkout from post-checkout.jgm-chained"
    for name, data in originals.items():
        assert (hooks / name).read_bytes() == data
        assert stat.S_IMODE((hooks / name).stat().st_mode) == 0o750
    assert not (hooks / "post-merge").exists()
    assert not list(hooks.glob("*.jgm-chained"))


def test_install_refuses_to_overwrite_a_chained_hook(repo, tmp_path):
    hooks = repo.path / ".git/hooks"
    foreign = logging_hook(hooks / "post-merge", tmp_path / "a.log")
    older = logging_hook(hooks / "post-merge.jgm-chained", tmp_path / "b.log")
    with pytest.raises(githooks.HookConflict, match="post-merge.jgm-chained already exists"):
        githooks.install(repo.path)
    assert (hooks / "post-merge").read_bytes() == foreign
    assert (hooks / "post-merge.jgm-chained").read_bytes() == older
    assert not (hooks / "post-checkout").exists()  # nothing installed half-way


def test_branch_switch_reseeds_and_checkouts_without_knowledge_change_do_not(repo, sync_hooks):
    two_branches(repo)
    Seeder(repo.path).seed()
    proc = run_cli_install(repo)
    assert "post-checkout" in proc.stdout
    out = git_ok(repo, "checkout", "-q", "feat")
    assert len(jgm_lines(out.stderr)) == 1 and "1 added, 1 updated, 1 removed" in out.stderr
    snap = snapshot(repo.path)
    assert set(snap.records) == {"a2", "b1"}
    assert "9090" in snap.records["a2"].data["body"]
    assert last_hook_run(repo.path)["hook"] == "post-checkout"

    git_ok(repo, "checkout", "-q", "main")
    assert set(snapshot(repo.path).records) == {"a1", "a2"}
    gen = snapshot(repo.path).generation
    last = last_hook_run(repo.path)
    out = git_ok(repo, "checkout", "-q", "code")  # only src/ differs
    (repo.path / "knowledge/a1.md").write_text(record_text("a1", title="Use Postgres", body="Edited locally."))
    out2 = git_ok(repo, "checkout", "--", "knowledge/a1.md")  # a file checkout (flag 0): not a reseed
    assert jgm_lines(out.stderr + out2.stderr) == []
    assert snapshot(repo.path).generation == gen
    assert last_hook_run(repo.path) == last


def run_cli_install(repo):
    import subprocess

    proc = subprocess.run(
        [*JGM, "hooks", "install", "--repo", str(repo.path)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    return proc


def test_pull_reseeds_added_changed_and_deleted_records(make_repo, tmp_path, sync_hooks):
    up = make_repo("upstream")
    up.record("k1", title="Deploy on Fridays is forbidden", body="No deploys on Friday.")
    up.record("k2", kind="fact", status="verified", title="Region", body="We run in eu-west-1.")
    up.commit("start")
    clone = tmp_path / "clone"
    run_git(tmp_path, "clone", "-q", str(up.path), str(clone))
    githooks.install(clone)
    Seeder(clone).seed()
    before = snapshot(clone).records
    up.record("k2", kind="fact", status="verified", title="Region", body="We moved to eu-central-1.")
    up.record("k3", title="Use OpenTelemetry", body="Traces go through OpenTelemetry.")
    os.remove(up.path / "knowledge/k1.md")
    up.commit("upstream changes")
    proc = run_git(clone, "pull", "-q", "--ff-only", check=False)
    assert proc.returncode == 0, proc.stderr
    assert jgm_lines(proc.stderr) == [
        "jgm: 3 knowledge files changed; reindexed after post-merge: 1 added, 1 updated, 1 removed"
    ]
    after = snapshot(clone).records
    assert set(after) == {"k2", "k3"}
    assert after["k2"].content_hash != before["k2"].content_hash
    assert after["k2"].commit_sha == run_git(clone, "rev-parse", "HEAD").stdout.strip()


def test_rebase_and_amend_reseed(repo, sync_hooks):
    repo.record("m0", title="Cache policy", body="Cache for five minutes.")
    repo.commit("base")
    git_ok(repo, "checkout", "-q", "-b", "feature")
    repo.record("f1", title="Feature flag service", body="Flags come from the flag service.")
    repo.commit("feature record")
    git_ok(repo, "checkout", "-q", "main")
    repo.record("m0", title="Cache policy", body="Cache for one hour.")
    repo.record("m1", kind="fact", status="verified", title="Cache backend", body="The cache is Redis.")
    repo.commit("main moves on")
    git_ok(repo, "checkout", "-q", "feature")
    githooks.install(repo.path)
    Seeder(repo.path).seed()
    assert set(snapshot(repo.path).records) == {"m0", "f1"}

    git_ok(repo, "rebase", "-q", "main")
    snap = snapshot(repo.path)
    assert set(snap.records) == {"m0", "m1", "f1"}
    assert "one hour" in snap.records["m0"].data["body"]
    assert last_hook_run(repo.path)["hook"] == "post-rewrite"
    head = git_ok(repo, "rev-parse", "HEAD").stdout.strip()
    assert snap.records["f1"].commit_sha == head

    repo.record("f1", title="Feature flag service", body="Flags come from the flag service, cached 30s.")
    git_ok(repo, "commit", "-q", "-a", "--amend", "--no-edit")
    amended = git_ok(repo, "rev-parse", "HEAD").stdout.strip()
    f1 = snapshot(repo.path).records["f1"]
    assert "cached 30s" in f1.data["body"]
    assert (f1.commit_sha, f1.dirty) == (amended, False)
    assert last_hook_run(repo.path)["hook"] == "post-rewrite"


def test_core_hooks_path_is_honoured(repo, tmp_path, sync_hooks):
    two_branches(repo)
    git_ok(repo, "config", "core.hooksPath", ".githooks")
    calls = tmp_path / "calls.log"
    own = logging_hook(repo.path / ".githooks/post-checkout", calls)
    actions = githooks.install(repo.path)
    assert {Path(a["path"]).parent for a in actions} == {repo.path / ".githooks"}
    assert not (repo.path / ".git/hooks/post-checkout").exists()
    main = git_ok(repo, "rev-parse", "HEAD").stdout.strip()
    out = git_ok(repo, "checkout", "-q", "feat")
    feat = git_ok(repo, "rev-parse", "HEAD").stdout.strip()
    assert calls.read_text().splitlines() == [f"post-checkout.jgm-chained {main} {feat} 1"]
    assert len(jgm_lines(out.stderr)) == 1
    assert set(snapshot(repo.path).records) == {"a2", "b1"}
    githooks.uninstall(repo.path)
    assert (repo.path / ".githooks/post-checkout").read_bytes() == own


def test_clone_runs_post_checkout_from_a_shared_hooks_path(make_repo, tmp_path, sync_hooks):
    up = make_repo("upstream")
    up.record("c1", title="Clone me", body="Records arrive with the clone.")
    up.record("c2", kind="fact", status="verified", title="Second", body="Another record.")
    up.commit("start")
    shared = tmp_path / "shared-hooks"
    git_ok(up, "config", "core.hooksPath", str(shared))
    githooks.install(up.path)  # installs into the shared directory
    git_ok(up, "config", "--unset", "core.hooksPath")
    clone = tmp_path / "clone"
    proc = run_git(tmp_path, "clone", "-q", "-c", f"core.hooksPath={shared}", str(up.path), str(clone), check=False)
    assert proc.returncode == 0, proc.stderr
    assert "2 knowledge files changed" in proc.stderr
    assert set(snapshot(clone).records) == {"c1", "c2"}


def test_background_reseed_lets_git_return_then_lands(repo, monkeypatch):
    monkeypatch.delenv("JGM_HOOK_SYNC", raising=False)
    two_branches(repo)
    githooks.install(repo.path)
    Seeder(repo.path).seed()
    out = git_ok(repo, "checkout", "-q", "feat")
    assert jgm_lines(out.stderr) == [
        f"jgm: 3 knowledge files changed; reindexing in the background into {store_root()} "
        "(`jgm hooks status` shows the result)"
    ]
    wait_for(lambda: set(snapshot(repo.path).records) == {"a2", "b1"}, what="the background reseed")
    wait_hook_jobs(repo.path)
    last = last_hook_run(repo.path)
    assert last["ok"] and last["hook"] == "post-checkout"
    assert "Traceback" not in (log_path().read_text() if log_path().exists() else "")


def test_a_plain_commit_prints_its_one_line(repo, monkeypatch):
    """The docs' line, after `git commit` as after a checkout: reference-transaction reseeds in the background
    and says nothing (git is still inside the command), post-commit says it once; an amend once (post-rewrite)."""
    monkeypatch.delenv("JGM_HOOK_SYNC", raising=False)
    repo.record("a1", title="Use Postgres", body="We store everything in Postgres.")
    repo.commit("start")
    githooks.install(repo.path)
    Seeder(repo.path).seed()
    line = (
        f"jgm: 1 knowledge file changed; reindexing in the background into {store_root()} "
        "(`jgm hooks status` shows the result)"
    )
    repo.record("n1", title="Use Redis for sessions", body="Sessions live in Redis.")
    git_ok(repo, "add", "-A")
    assert jgm_lines(git_ok(repo, "commit", "-m", "a record").stderr) == [line]
    wait_for(lambda: "n1" in snapshot(repo.path).records, what="the background reseed")
    wait_hook_jobs(repo.path)
    repo.write("src/app.py", "print('v1')\n")
    git_ok(repo, "add", "-A")
    assert jgm_lines(git_ok(repo, "commit", "-q", "-m", "code only").stderr) == []
    repo.record("n1", title="Use Redis for sessions", body="Sessions live in Redis for a day.")
    assert jgm_lines(git_ok(repo, "commit", "-q", "-a", "--amend", "--no-edit").stderr) == [line]
    wait_for(lambda: "a day" in snapshot(repo.path).records["n1"].data["body"], what="the amend's reseed")
    wait_hook_jobs(repo.path)


def test_hook_failures_never_fail_git(repo, tmp_path, sync_hooks):
    two_branches(repo)
    git_ok(repo, "checkout", "-q", "feat")
    repo.write("jgm.toml", "roots = [not toml\n")  # a broken settings file on this branch
    repo.commit("broken settings")
    git_ok(repo, "checkout", "-q", "main")
    githooks.install(repo.path)
    out = git_ok(repo, "checkout", "-q", "feat")
    lines = jgm_lines(out.stderr)
    assert len(lines) == 1 and "post-checkout hook could not reindex" in lines[0] and "jgm.toml" in lines[0]
    assert "invalid TOML" in log_path().read_text()


def test_a_config_key_with_escapes_reaches_git_output_escaped(repo, sync_hooks):
    two_branches(repo)
    git_ok(repo, "checkout", "-q", "feat")
    repo.write("jgm.toml", '"\\u001b]0;owned\\u0007\\u202e" = 1\n')  # TOML escapes: ESC, BEL, RLO in a key
    repo.commit("hostile settings")
    git_ok(repo, "checkout", "-q", "main")
    githooks.install(repo.path)
    out = git_ok(repo, "checkout", "-q", "feat")
    (line,) = jgm_lines(out.stderr)
    assert not any(c in out.stderr for c in "\x1b\x07\u202e"), repr(out.stderr)
    assert "unknown key `\\x1b]0;owned\\x07\\u202e`" in line and "jgm.toml" in line, line


def test_missing_interpreter_and_jgm_never_fail_git(repo, tmp_path, monkeypatch, sync_hooks):
    two_branches(repo)
    calls = tmp_path / "calls.log"
    logging_hook(repo.path / ".git/hooks/post-checkout", calls)
    githooks.install(repo.path, python="/nonexistent/python3")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # git, but no `jgm`
    out = git_ok(repo, "checkout", "-q", "feat")  # knowledge changed, yet nothing can reindex
    assert jgm_lines(out.stderr) == [] and len(calls.read_text().splitlines()) == 1
    assert last_hook_run(repo.path) is None


def test_shim_falls_back_to_jgm_on_path(repo, monkeypatch, sync_hooks):
    import sys

    two_branches(repo)
    githooks.install(repo.path, python="/nonexistent/python3")
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:/usr/bin:/bin")  # the venv's `jgm` script
    out = git_ok(repo, "checkout", "-q", "feat")
    assert len(jgm_lines(out.stderr)) == 1 and "reindexed after post-checkout: 2 added" in out.stderr
    assert set(snapshot(repo.path).records) == {"a2", "b1"}


def test_chained_post_checkout_keeps_its_exit_status(repo, tmp_path):
    two_branches(repo)
    logging_hook(repo.path / ".git/hooks/post-checkout", tmp_path / "calls.log", exit_code=3)
    without = repo.git("checkout", "-q", "code", check=False).returncode
    repo.git("checkout", "-q", "main", check=False)
    githooks.install(repo.path)
    with_jgm = repo.git("checkout", "-q", "code", check=False).returncode
    assert without != 0 and with_jgm == without  # git reports the team's hook failure as before
    assert len((tmp_path / "calls.log").read_text().splitlines()) == 3


def test_status_reports_hooks_and_last_run(repo, sync_hooks):
    import json
    import subprocess

    two_branches(repo)
    githooks.install(repo.path)
    git_ok(repo, "checkout", "-q", "feat")
    proc = subprocess.run(
        [*JGM, "hooks", "status", "--json", "--repo", str(repo.path)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    st = json.loads(proc.stdout)
    assert [h["state"] for h in st["hooks"]] == ["installed"] * len(githooks.HOOKS)
    assert all(h["python"] for h in st["hooks"])
    assert st["last_run"]["ok"] and st["last_run"]["counts"]["added"] == 2 and st["running"] == []


def test_a_checked_out_branch_cannot_shadow_the_package(repo, tmp_path):
    two_branches(repo)
    marker = tmp_path / "pwned"
    git_ok(repo, "checkout", "-q", "code")
    repo.write("jupiter_git_memory/__init__.py", "")
    repo.write("jupiter_git_memory/__main__.py", f"open({str(marker)!r}, 'w').write('ran')\n")
    repo.commit("a package with our name")
    git_ok(repo, "checkout", "-q", "main")
    githooks.install(repo.path)
    git_ok(repo, "checkout", "-q", "code")
    assert not marker.exists()
