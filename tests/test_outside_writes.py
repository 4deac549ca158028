"""A served workspace beside other processes' writes: no 5xx, never a stale answer.

Why: a server holds one SQLite connection per workspace for weeks while CLI seeds, `jgm remember` and
other servers write the same catalog. The cause once found: any write opened the catalog file with
os.open and closed it, and closing a descriptor drops every POSIX lock the process holds on the file,
SQLite's reader lock included; another process's last close then deleted the WAL under the reader, which
next read stale pages ("database disk image is malformed", 2 in 7 propose/pull cycles). The outside
writer is a real second process (tests/outside_writer.py) and the server also writes itself.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from api_helpers import Server, workspace_id

from jupiter_git_memory.app.workspace_handle import WorkspaceHandle
from jupiter_git_memory.base.store import workspace_dir
from jupiter_git_memory.git.workspace import find_workspace
from jupiter_git_memory.index.recovery import CatalogCorrupt, move_aside, open_catalog
from jupiter_git_memory.recall.service import Recaller
from jupiter_git_memory.seed.seeder import Seeder

pytestmark = [pytest.mark.e2e, pytest.mark.slow]  # slow: scheduled first (conftest.py)

WRITER = Path(__file__).with_name("outside_writer.py")
REQUESTS, SECONDS = 500, 25  # whichever comes first
MIN_REQUESTS = 100  # several hundred on an idle machine; two shared cores under load manage ~150


def _catalog(repo) -> Path:
    return workspace_dir(find_workspace(repo.path).id, create=False) / "catalog.sqlite"


def _other_process_writes(path: Path, key: str) -> None:
    """A write by another process that then closes its connection (a CLI run ending)."""
    code = (
        "import sqlite3, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None); "
        "c.execute('INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)', (sys.argv[2], 'x')); c.close()"
    )
    subprocess.run([sys.executable, "-c", code, str(path), key], check=True, timeout=60)


def test_a_write_in_this_process_keeps_a_readers_sqlite_lock(repo):
    """The root cause, at its smallest: after this process opened the catalog as a writer, another
    process's write and close must neither delete the WAL nor leave this process's reader on old pages."""
    repo.record("dec-a", title="Decision a about the relay", body="The relay keeps its port.")
    repo.commit()
    Seeder(repo.path).seed()
    path = _catalog(repo)
    reader, _ = open_catalog(path)
    try:
        assert reader.get_meta("probe-1") is None
        writer, _ = open_catalog(path, write=True)  # what every seed, remember and propose does first
        writer.close()
        _other_process_writes(path, "probe-1")
        _other_process_writes(path, "probe-2")
        assert Path(f"{path}-wal").exists(), "another process deleted the WAL a reader here still uses"
        assert (reader.get_meta("probe-1"), reader.get_meta("probe-2")) == ("x", "x"), "stale read"
    finally:
        reader.close()


def test_a_long_lived_reader_follows_a_catalog_another_process_replaced(repo):
    """Another process's recovery moves a corrupt catalog aside and seeds a new one: a Recaller opened on the
    old file must answer from the new one, not go on reading the moved file (same generation, old answers)."""
    repo.record("dec-a", title="Cache sessions in Memcached", body="Sessions live in Memcached for an hour.")
    repo.commit()
    Seeder(repo.path).seed()
    r = Recaller(repo.path)
    try:
        assert [x["id"] for x in r.recall("session cache", k=1).results] == ["dec-a"]
        move_aside(_catalog(repo))  # what a recovering writer does (index.recovery)
        repo.record("dec-b", title="Cache sessions in Redis", body="Sessions live in Redis, persisted to disk.")
        repo.commit()
        Seeder(repo.path).seed()  # the new catalog starts at generation 1 again
        ids = [x["id"] for x in r.recall("sessions cached in Redis", k=2).results]
        assert "dec-b" in ids, ids
    finally:
        r.close()


def test_a_served_read_runs_once_more_after_a_stale_read_and_names_real_damage(repo, jgm_home):
    repo.record("dec-a", title="Decision a about the relay", body="The relay keeps its port.")
    repo.commit()
    Seeder(repo.path).seed()
    handle = WorkspaceHandle.for_repo(repo.path)
    calls: list[int] = []

    def flaky(cat):
        calls.append(1)
        if len(calls) == 1:
            raise sqlite3.DatabaseError("database disk image is malformed")
        return cat.record("dec-a").title

    try:
        assert handle.read_catalog(flaky) == "Decision a about the relay"
        assert len(calls) == 2
        logged = (jgm_home / "jgm.log").read_text()
        assert "stale read" in logged and "Traceback" in logged and "in flaky" in logged

        def broken(_recaller):
            raise sqlite3.DatabaseError("database disk image is malformed")

        with pytest.raises(CatalogCorrupt) as e:
            handle.read(broken)
        assert str(_catalog(repo)) in str(e.value) and "jgm doctor --repair" in str(e.value)
        assert handle.read_catalog(lambda cat: cat.record_count()) == 1  # and the next read works
    finally:
        handle.close()


def test_served_reads_survive_outside_writes(repo, jgm_home, tmp_path):
    """A real `jgm serve`, a real second process writing (seed after a commit, then a candidate) in a loop,
    and the server writing itself (candidates): every answer is 2xx or 4xx."""
    from jupiter_git_memory.index.vectors import reset_clients

    for n in range(3):
        repo.record(f"dec-base-{n}", title=f"Base decision {n} about the relay", body=f"Relay rule {n} holds.")
    repo.commit("base")
    Seeder(repo.path).seed()
    reset_clients()
    server = Server([repo.path], jgm_home)
    stop = tmp_path / "stop"
    writer = subprocess.Popen(
        [sys.executable, str(WRITER), str(repo.path), "400", str(stop)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    base = f"/v1/workspaces/{workspace_id(repo.path)}"
    failures: list[str] = []
    done = 0
    try:
        with server.client() as c:
            deadline = time.monotonic() + SECONDS
            while done < REQUESTS and time.monotonic() < deadline:
                kind, i = done % 10, done
                if kind == 0:
                    r = c.post(base + "/recall", json={"query": f"relay port of outside write {i // 5}", "k": 3})
                elif kind == 5:
                    r = c.post(base + "/candidates", json=_observation(f"Served observation {i}", i))
                elif kind % 2:
                    r = c.get(base + "/records", params={"limit": 5})
                elif kind == 2:
                    r = c.get(base + "/records/dec-base-1")
                else:
                    r = c.get(base + "/candidates")
                done += 1
                if r.status_code >= 500:
                    failures.append(f"request {i}: {r.status_code} {r.text[:300]}")
    finally:
        stop.touch()
        out, err = writer.communicate(timeout=120)
        server.stop()
    assert writer.returncode == 0, err
    rounds = int(out.strip() or 0)
    assert rounds >= 3, f"the outside writer did too little to test anything ({rounds} rounds): {err}"
    assert done >= MIN_REQUESTS, done
    log = (jgm_home / "jgm.log").read_text() if (jgm_home / "jgm.log").exists() else ""
    assert not failures, "\n".join(failures) + "\n" + log[-3000:]
    assert "stale read" not in log, log[-3000:]  # the cause is gone, not only retried away


def _observation(title: str, i: int) -> dict:
    return {
        "kind": "fact",
        "title": title,
        "body": f"Measured in worker.py: the queue depth reached {i * 7} items during round {i}, so alerts fire.",
    }
