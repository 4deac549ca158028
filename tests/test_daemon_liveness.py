"""A daemon that cannot answer costs a caller seconds, never minutes (issue 35, item 16): a real daemon,
stopped with SIGSTOP; real senders that never end their line, or end it slowly. Each caller still gets the
in-process answer, at once."""

from __future__ import annotations

import json
import os
import signal
import socket
import threading
import time

import pytest
from helpers import jgm, seeded

from jupiter_git_memory.surfaces.daemon.client import control
from jupiter_git_memory.surfaces.daemon.paths import socket_path

pytestmark = [pytest.mark.e2e, pytest.mark.slow]  # slow: scheduled first (conftest.py)

RECORDS = {"dec-cache": {"title": "We cache sessions in Redis", "body": "Sessions live in Redis: lookups are hot."}}
QUESTION = "where do sessions live"


def _timed_recall(repo) -> tuple[float, str]:
    t0 = time.monotonic()
    p = jgm("recall", QUESTION, "--json", cwd=repo.path, timeout=60)
    assert p.returncode == 0, p.stderr
    return time.monotonic() - t0, json.loads(p.stdout)["results"][0]["id"]


def _cold(repo) -> float:
    t0 = time.monotonic()
    assert jgm("recall", QUESTION, "--json", cwd=repo.path, env={**os.environ, "JGM_NO_DAEMON": "1"}).returncode == 0
    return time.monotonic() - t0


def test_a_stopped_daemon_costs_seconds_then_the_answer_comes_from_here(repo, daemon_on):
    seeded(repo, RECORDS)
    assert jgm("recall", QUESTION, cwd=repo.path).returncode == 0  # starts the daemon
    pid = control("status", daemon_on)["pid"]
    cold = _cold(repo)
    os.kill(pid, signal.SIGSTOP)
    try:
        for _ in range(2):  # call after call
            took, top = _timed_recall(repo)
            assert top == "dec-cache" and took < cold + 6, (took, cold)
        hook = jgm("hook", "claude-code", "prompt", input=json.dumps({"cwd": str(repo.path), "prompt": QUESTION}))
        assert "dec-cache" in json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"], hook.stdout
    finally:
        os.kill(pid, signal.SIGCONT)


def _sender(path, payload: bytes, pause: float, stop: threading.Event) -> threading.Thread:
    def run():
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(str(path))
        try:
            for i in range(0, len(payload), 1 << 20 if pause == 0 else 1):
                if stop.is_set():
                    break
                s.sendall(payload[i : i + (1 << 20 if pause == 0 else 1)])
                time.sleep(pause)
        except OSError:
            pass
        finally:
            stop.wait(60)
            s.close()

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def test_a_huge_or_slow_request_does_not_hold_the_daemon(repo, daemon_on):
    seeded(repo, RECORDS)
    assert jgm("recall", QUESTION, cwd=repo.path).returncode == 0  # starts the daemon
    path = socket_path(daemon_on)
    pid = control("status", daemon_on)["pid"]
    for payload, pause in ((b"x" * (64 << 20), 0.0), (b"y" * 200, 0.5)):  # 64 MB without a newline; a trickle
        stop = threading.Event()
        t = _sender(path, payload, pause, stop)
        time.sleep(0.5)
        try:
            took, top = _timed_recall(repo)  # the daemon's answer, or (behind the trickle) the in-process one
            time.sleep(5)  # the read deadline: the trickle is dropped by now, however long it goes on
            after = control("status", daemon_on)
        finally:
            stop.set()
            t.join(70)
        assert top == "dec-cache" and took < 15, took
        assert after and after["pid"] == pid, after  # still serving, the sender dropped
