"""The store's resident recall process, real: real socket, real store, real model, the real `jgm` processes.
Its answers are the in-process answers byte for byte (receipt ids and times aside), it follows reseeds, a
killed daemon's socket is replaced, and whatever breaks in it the command answers in process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from cli_helpers import jgm_in
from daemon_helpers import broken_daemon, declared_entry, normalised, stop_daemon, wait_gone
from helpers import JGM_EXE, jgm, seeded

from jupiter_git_memory.surfaces.daemon.client import control, spawn
from jupiter_git_memory.surfaces.daemon.paths import MAX_SOCKET_PATH, daemon_pid, socket_path

pytestmark = [pytest.mark.e2e, pytest.mark.slow]  # slow: scheduled first (conftest.py)

RECORDS = {
    "dec-cache": {"title": "We cache sessions in Redis", "body": "Sessions live in Redis because lookups are hot."},
    "dec-orders": {"title": "Orders are stored in PostgreSQL", "body": "Orders live in PostgreSQL 16 for reporting."},
}
NO_DAEMON = {"JGM_NO_DAEMON": "1"}


@pytest.fixture(scope="module")
def thin(tmp_path_factory) -> str:
    """`jgm` as pyproject.toml declares it: its entry forwards recall, recall-task and context to the daemon."""
    return declared_entry(tmp_path_factory.mktemp("entry"))


@pytest.fixture
def unseeded(make_repo):
    """A repo with a committed record that was never seeded: every recall in it is `not seeded`."""
    r = make_repo("unseeded")
    r.record("dec-x", title="Something", body="Body.")
    r.commit()
    return r


def _both(args, cwd, exe=JGM_EXE, env=None, process=False, **kw):
    """(answer through the daemon, answer in process) of `jgm ARGS`. The daemon's side is always a real `jgm`
    process; the in-process answer is the same Typer app run here (cli_helpers.jgm_in, the model loaded once
    for the module) unless `process`: then a second real `jgm` with the daemon off. Each test keeps one
    `process` comparison, so the console script's own answer is still the reference once per test, and the
    rest skip a fresh interpreter loading chromadb, onnxruntime and the model per command."""
    env = env or dict(os.environ)
    warm = jgm(*args, cwd=cwd, exe=exe, env=env, **kw)
    if process:
        return warm, jgm(*args, cwd=cwd, env={**env, **NO_DAEMON}, **kw)
    return warm, jgm_in(*args, cwd=cwd, env={**env, **NO_DAEMON}, **kw)


def _assert_same(warm, here, what) -> None:
    """The daemon's answer is the in-process one: exit code and both streams, receipt ids and times aside."""
    assert (warm.returncode, normalised(warm.stdout), normalised(warm.stderr)) == (
        here.returncode,
        normalised(here.stdout),
        normalised(here.stderr),
    ), what


def _status(store) -> dict:
    return control("status", store) or {"running": False, "requests": 0}


COMMANDS = [
    ["recall", "where do sessions live"],
    ["recall", "where do sessions live", "--json"],
    ["recall", "how do we bake sourdough bread", "--json"],  # no match above the floor
    ["recall-task", "--goal", "change the session store", "--file", "knowledge/dec-cache.md"],
    ["recall-task", "--goal", "change the session store", "--json"],
    ["context", "--goal", "reporting on orders"],
    ["context", "--goal", "reporting on orders", "--json"],
]


def test_daemon_answers_are_the_in_process_answers_byte_for_byte(repo, daemon_on):
    seeded(repo, RECORDS)
    first = jgm("recall", "where do sessions live", cwd=repo.path)  # starts the daemon
    assert first.returncode == 0 and "dec-cache" in first.stdout, first.stderr
    pid = _status(daemon_on)["pid"]
    for n, args in enumerate(COMMANDS):
        before = _status(daemon_on)["requests"]
        warm, here = _both(args, repo.path, process=n == 0)
        assert _status(daemon_on)["requests"] > before, f"the daemon did not answer {args}"
        _assert_same(warm, here, args)
        assert warm.stdout.strip(), args
    assert _status(daemon_on)["pid"] == pid  # one daemon answered them all
    assert socket_path(daemon_on) == daemon_on / "daemon.sock"
    # a path typed in a subfolder is read from there by the daemon too (the request carries the caller's folder)
    warm, here = _both(
        ["recall-task", "--goal", "sessions", "--file", "./dec-cache.md", "--json"], repo.path / "knowledge"
    )
    _assert_same(warm, here, "a file typed in a subfolder")
    assert json.loads(warm.stdout)["files"] == ["knowledge/dec-cache.md"]


def test_daemon_errors_become_the_in_process_error(repo, unseeded, daemon_on):
    seeded(repo, RECORDS)
    cases = [
        (["recall", "sessions", "--mode", "telepathy"], repo.path),
        (["recall", "sessions", "--json", "--status", "nonsense"], repo.path),
        (["recall", "sessions", "--json"], unseeded.path),
        (["recall-task", "--goal", "sessions", "--json"], unseeded.path),
        (["context", "--goal", "sessions"], unseeded.path),
    ]
    for n, (args, cwd) in enumerate(cases):
        warm, here = _both(args, cwd, process=n == 0)
        assert warm.returncode != 0 and (warm.returncode, warm.stdout, warm.stderr) == (
            here.returncode,
            here.stdout,
            here.stderr,
        ), args
    assert _status(daemon_on)["running"]


def test_a_daemon_that_breaks_the_connection_costs_time_never_the_answer(repo, jgm_home, daemon_on):
    """A fault injected at the socket: something accepts and hangs up without an answer."""
    seeded(repo, RECORDS)
    with broken_daemon(socket_path(jgm_home)):
        warm, here = _both(["recall", "where do sessions live", "--json"], repo.path, process=True)
    assert warm.returncode == 0 and json.loads(warm.stdout)["results"][0]["id"] == "dec-cache"
    assert normalised(warm.stdout) == normalised(here.stdout)


def test_the_daemon_follows_a_reseed(repo, daemon_on):
    seeded(repo, RECORDS)
    assert jgm("recall", "where do sessions live", cwd=repo.path).returncode == 0
    pid = _status(daemon_on)["pid"]
    repo.record("dec-queue", title="Jobs go through RabbitMQ", body="Background jobs are queued in RabbitMQ.")
    repo.commit("add the queue decision")
    assert jgm("seed", cwd=repo.path).returncode == 0
    p = jgm("recall", "which message broker queues background jobs", "--json", cwd=repo.path)
    assert json.loads(p.stdout)["results"][0]["id"] == "dec-queue", p.stdout
    st = _status(daemon_on)
    assert st["pid"] == pid and st["requests"] >= 3  # the same warm daemon saw the new record
    # a staged edit moves the worktree's git state: the daemon refreshes the view as any reader does
    repo.record("dec-queue", title="Jobs go through Kafka", body="Background jobs are streamed through Kafka.")
    repo.git("add", "-A")
    p = jgm("recall", "which message broker queues background jobs", "--json", cwd=repo.path)
    assert json.loads(p.stdout)["results"][0]["title"] == "Jobs go through Kafka", p.stdout


def test_a_killed_daemons_socket_is_detected_and_replaced(repo, daemon_on):
    seeded(repo, RECORDS)
    assert jgm("recall", "sessions", cwd=repo.path).returncode == 0
    pid = _status(daemon_on)["pid"]
    os.kill(pid, signal.SIGKILL)
    assert wait_gone(pid)
    assert socket_path(daemon_on).exists()  # left behind
    st = jgm("daemon", "status", "--json", cwd=repo.path)
    assert st.returncode == 1 and json.loads(st.stdout) == {
        "running": False,
        "socket": str(socket_path(daemon_on)),
        "store": str(daemon_on),
        "stale_socket": True,
    }
    p = jgm("recall", "where do sessions live", "--json", cwd=repo.path)
    assert p.returncode == 0 and json.loads(p.stdout)["results"][0]["id"] == "dec-cache"
    new = _status(daemon_on)
    assert new["running"] and new["pid"] != pid and new["requests"] >= 1


def test_status_and_stop_and_one_daemon_per_store(repo, daemon_on):
    seeded(repo, RECORDS)
    assert jgm("daemon", "status", "--repo", repo.path).returncode == 1
    started = {spawn(daemon_on), spawn(daemon_on)}
    deadline = time.monotonic() + 60
    left: set[int] = set()
    while not left and time.monotonic() < deadline:  # whichever lost the race for the store's lock leaves
        for pid in started:
            done, code = os.waitpid(pid, os.WNOHANG)
            if done:
                assert os.waitstatus_to_exitcode(code) == 0
                left.add(pid)
        time.sleep(0.05)
    assert len(left) == 1, "exactly one of two daemons started at once must leave"
    (first,) = started - left
    assert jgm("recall", "sessions", cwd=repo.path).returncode == 0
    st = json.loads(jgm("daemon", "status", "--json", "--home", daemon_on, cwd=repo.path).stdout)
    assert st["running"] and st["pid"] == first == daemon_pid(daemon_on)
    assert st["workspaces"] == [str(repo.path)]
    stopped = jgm("daemon", "stop", "--json", cwd=repo.path)
    assert stopped.returncode == 0 and json.loads(stopped.stdout)["stopped"] is True
    os.waitpid(first, 0)
    assert not socket_path(daemon_on).exists()
    assert jgm("daemon", "stop", cwd=repo.path).stdout.strip() == "not running"


def test_the_daemon_exits_when_idle(repo, daemon_on):
    seeded(repo, RECORDS)
    (repo.path / "jgm.toml").write_text('roots = ["knowledge"]\ndaemon_idle_seconds = 5\n')
    assert jgm("recall", "sessions", cwd=repo.path).returncode == 0
    pid = _status(daemon_on)["pid"]
    assert _status(daemon_on)["idle_seconds"] == 5
    assert wait_gone(pid, 30.0)
    assert not socket_path(daemon_on).exists()


def test_a_long_store_path_puts_the_socket_in_the_runtime_dir(repo, tmp_path, monkeypatch):
    monkeypatch.delenv("JGM_NO_DAEMON")
    store = tmp_path / ("deep-" * 20) / "store"
    monkeypatch.setenv("JGM_HOME", str(store))
    seeded(repo, RECORDS)
    path = socket_path(store)
    assert path.parent != store and len(os.fsencode(str(path))) <= MAX_SOCKET_PATH
    try:
        p = jgm("recall", "where do sessions live", "--json", cwd=repo.path)
        assert json.loads(p.stdout)["results"][0]["id"] == "dec-cache"
        st = control("status", store)
        assert st and st["socket"] == str(path) and st["requests"] == 2  # the recall and this status
    finally:
        stop_daemon(store)


@pytest.mark.parametrize("event", ["session-start", "prompt"])
def test_the_client_hooks_answer_through_the_daemon(repo, daemon_on, event):
    seeded(repo, RECORDS)
    repo.git("checkout", "-q", "-b", "move-sessions-out-of-redis")
    payload = {"session_id": "s1", "cwd": str(repo.path), "hook_event_name": event, "prompt": "where do sessions live"}
    args = ["hook", "claude-code", event]
    jgm(*args, input=json.dumps(payload))  # starts the daemon
    before = _status(daemon_on)["requests"]
    warm, here = _both(args, None, input=json.dumps(payload), process=event == "session-start")
    assert _status(daemon_on)["requests"] == before + 2  # the hook, then this status
    assert warm.returncode == 0 and "dec-cache" in warm.stdout, warm.stdout
    assert normalised(warm.stdout) == normalised(here.stdout)


# --- the thin client at the entry (surfaces/daemon/thin.py): the daemon runs the whole command line ---------
def _forwarded(store) -> tuple[int, int]:
    st = _status(store)
    return st["requests"], st.get("forwarded", 0)


def test_the_thin_client_prints_the_in_process_output_byte_for_byte(repo, daemon_on, thin):
    seeded(repo, RECORDS)
    assert jgm("recall", "where do sessions live", cwd=repo.path, exe=thin).returncode == 0  # starts the daemon
    for n, args in enumerate(COMMANDS):
        requests, forwarded = _forwarded(daemon_on)
        warm, here = _both(args, repo.path, exe=thin, process=n == 0)
        # one request (the whole command line), then this status: no second ask, no answer in process
        assert _forwarded(daemon_on) == (requests + 2, forwarded + 1), f"the daemon did not run {args}"
        _assert_same(warm, here, args)
        assert warm.stdout.strip(), args


def test_the_thin_client_gives_the_in_process_errors_and_exit_codes(repo, unseeded, daemon_on, thin):
    seeded(repo, RECORDS)
    assert jgm("recall", "sessions", cwd=repo.path, exe=thin).returncode == 0  # starts the daemon
    cases = [
        (["recall", "sessions", "--json"], unseeded.path),  # not seeded
        (["recall", "sessions"], unseeded.path),
        (["recall-task", "--goal", "sessions", "--json"], unseeded.path),
        (["context", "--goal", "sessions"], unseeded.path),
        (["recall", "sessions", "--mode", "telepathy"], repo.path),  # a JgmError of the command
        (["recall", "sessions", "-k", "0"], repo.path),  # click's usage errors
        (["recall", "sessions", "--no-such-option"], repo.path),
        (["recall-task"], repo.path),
    ]
    for n, (args, cwd) in enumerate(cases):
        _, forwarded = _forwarded(daemon_on)
        warm, here = _both(args, cwd, exe=thin, process=n in (0, 5))  # a JgmError and a usage error
        assert _forwarded(daemon_on)[1] == forwarded + 1, f"the daemon did not run {args}"
        assert warm.returncode not in (0, None) and (warm.returncode, warm.stdout, warm.stderr) == (
            here.returncode,
            here.stdout,
            here.stderr,
        ), args
    assert "Usage: jgm recall" in jgm("recall", "-k", "0", "x", cwd=repo.path, exe=thin).stderr


def test_the_thin_client_renders_for_the_callers_terminal(repo, daemon_on, thin):
    """The daemon's consoles are built again for each caller: colour forced by one, not by the next."""
    seeded(repo, RECORDS)
    assert jgm("recall", "sessions", cwd=repo.path, exe=thin).returncode == 0
    colour = {**os.environ, "FORCE_COLOR": "1", "COLUMNS": "60"}
    warm, here = _both(["recall", "where do sessions live"], repo.path, exe=thin, env=colour, process=True)
    assert "\x1b[" in warm.stdout and normalised(warm.stdout) == normalised(here.stdout)
    plain = jgm("recall", "where do sessions live", cwd=repo.path, exe=thin)
    assert "\x1b[" not in plain.stdout and "dec-cache" in plain.stdout
    assert _status(daemon_on)["forwarded"] == 2  # the first call found no daemon and started one


def test_the_thin_client_imports_nothing_heavy(repo, daemon_on, thin):
    seeded(repo, RECORDS)
    assert jgm("recall", "sessions", cwd=repo.path, exe=thin).returncode == 0
    _, forwarded = _forwarded(daemon_on)
    p = subprocess.run(
        [sys.executable, "-X", "importtime", thin, "recall", "where do sessions live", "--json"],
        cwd=repo.path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0 and json.loads(p.stdout)["results"][0]["id"] == "dec-cache", p.stderr[-2000:]
    assert _forwarded(daemon_on)[1] == forwarded + 1
    loaded = {
        ln.rsplit("|", 1)[-1].strip().split(".")[0] for ln in p.stderr.splitlines() if ln.startswith("import time:")
    }
    assert "jupiter_git_memory" in loaded  # the probe sees our imports at all
    heavy = {"chromadb", "numpy", "onnxruntime", "tokenizers", "typer", "click", "pydantic", "rich"}
    assert not loaded & heavy, sorted(loaded & heavy)
    # Nor the stdlib it does without: every module is time on each warm call (issue 24: a warm call within 2x
    # the API's). typing and collections are deferred to type checking, hashlib to a too-long socket path.
    lines = [ln.rsplit("|", 1)[-1] for ln in p.stderr.splitlines() if ln.startswith("import time:")]
    ours = {ln.strip().split(".")[0] for ln in lines[[ln.rstrip() for ln in lines].index(" site") + 1 :]}
    spare = {"typing", "hashlib", "base64", "subprocess", "collections", "platformdirs"}
    assert "jupiter_git_memory" in ours and not ours & spare, sorted(ours & spare)


@pytest.mark.parametrize("reply", [b"", b'{"ok": {"exit": 0, "chunks": [[1, "aGVs', b'{"error": {"type": "X"}}'])
def test_a_thin_call_the_daemon_breaks_is_answered_in_process(repo, jgm_home, daemon_on, thin, reply):
    """Injected at the socket: a hang-up, half an answer, a refusal. Nothing half-printed, the whole answer."""
    seeded(repo, RECORDS)
    with broken_daemon(socket_path(jgm_home), reply):
        warm, here = _both(["recall", "where do sessions live", "--json"], repo.path, exe=thin, process=True)
    assert warm.returncode == 0 and json.loads(warm.stdout)["results"][0]["id"] == "dec-cache", warm.stderr
    assert normalised(warm.stdout) == normalised(here.stdout) and warm.stderr == here.stderr
