"""Ctrl-C during a seed's embedding (issue 37, item 4): a real `jgm seed` on a terminal (a pty, so its progress
bar shows when a batch is done) is sent SIGINT; it exits 130 saying how many records it indexed and kept,
those answer recall, and the next seed embeds only the rest. Real git, model and Chroma."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import subprocess
import time

import pytest
from cli_helpers import jgm_json_in
from helpers import JGM_EXE, ctrl_c_as_in_a_terminal
from test_integrity_repair import write_records

pytestmark = pytest.mark.e2e

RECORDS = 600  # one chunk each: the first progress step is 256 of them, then two more batches to interrupt


def _read_until(fd: int, pattern: re.Pattern, seconds: float) -> str:
    seen, end = b"", time.monotonic() + seconds
    while time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
            if pattern.search(seen.decode("utf-8", "replace")):
                return seen.decode("utf-8", "replace")
    return seen.decode("utf-8", "replace")


def test_ctrl_c_while_embedding_keeps_the_whole_records_and_says_so(repo):
    write_records(repo, RECORDS)
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [JGM_EXE, "seed"],
        cwd=repo.path,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=slave,
        preexec_fn=ctrl_c_as_in_a_terminal,
    )
    os.close(slave)
    try:
        seen = _read_until(master, re.compile(rf"256/{RECORDS}"), 600)
        assert f"256/{RECORDS}" in seen, f"no progress seen: {seen[-500:]!r}"
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=300)
        rest = _read_until(master, re.compile("run `jgm seed`"), 10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
        os.close(master)
    said = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", rest)
    assert proc.returncode == 130, (proc.returncode, said, out)
    m = re.search(r"interrupted: (\d+) of (\d+) new or changed records indexed and kept", " ".join(said.split()))
    assert m, said
    kept, total = int(m.group(1)), int(m.group(2))
    assert total == RECORDS and 256 <= kept < RECORDS
    assert "run `jgm seed` to finish" in said

    code, res = jgm_json_in("recall", "How does the cache layer behave?", "-k", "3", cwd=repo.path)
    assert code == 0 and res["results"], "what was kept does not answer"
    code, report = jgm_json_in("seed", cwd=repo.path)
    assert code == 0
    assert len(report["added"]) == RECORDS - kept and report["embedded_chunks"] == RECORDS - kept
    assert report["records"] == RECORDS
