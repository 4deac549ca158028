"""A long-lived server beside outside writers: no growth, no stale answers, JSON even when fds run out.

The bounded version of bench/soak.py: a real `jgm serve` subprocess, ~100 reseeds from another process
(this one, through the one write path), and a recall after each. What is asserted is behaviour, never
speed: every recall finds the record the last write added (no stale client), and after warm-up the
server never holds one file descriptor or thread more than at the end of warm-up, except the
connections of Chroma's own SQLite pool, which it opens on demand (one fd and one thread each) and which
stay within one pool. Before the fix each outside write cost ~12 fds, ~6 threads and ~3.5 MB: the reopen
dropped the old Chroma system without stopping it.
"""

from __future__ import annotations

import os
import resource
import time

import pytest
from api_helpers import Server, workspace_id
from conftest import record_text

pytestmark = [pytest.mark.unit, pytest.mark.slow]  # slow: scheduled first (conftest.py)

WRITES = 100
WARMUP = 10
RSS_BOUND_MB = 6  # growth allowed after warm-up over the remaining 90 writes: measured +1.4 MB with two
# malloc arenas (base/memory.py), +10.9 MB with glibc's default arenas, ~400 MB before epochs were stopped


POOL = "chroma.sqlite3"  # Chroma's own SQLite pool opens connections on demand, one fd and one thread each
POOL_MAX = 12  # connections one Chroma system may hold (we see 3-5)


def proc_stats(pid: int) -> dict:
    """RSS (kB), fds and threads of a live process, from /proc, with Chroma's SQLite pool counted apart."""
    status = dict(line.split(":", 1) for line in open(f"/proc/{pid}/status"))
    targets = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            targets.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except OSError:
            pass
    names = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            names.append(open(f"/proc/{pid}/task/{tid}/comm").read().strip())
        except OSError:
            pass
    pool = sum(t.endswith(POOL) for t in targets)
    return {
        "rss": int(status["VmRSS"].split()[0]),
        "fds": len(targets) - pool,
        "pool": pool,
        "threads": sum(not n.startswith("sqlx-sqlite") for n in names),
    }


def settled_stats(pid: int, base: dict | None, wait: float = 5.0) -> dict:
    """proc_stats once the process is quiet: a stopped Chroma system's threads may take a moment to exit
    on a loaded machine, so wait (up to `wait` s) for fds and threads to come back to `base`. A leak never
    comes back, so the check stays exact."""
    deadline = time.monotonic() + wait
    while True:
        now = proc_stats(pid)
        if (
            base is None
            or (now["fds"] <= base["fds"] and now["threads"] <= base["threads"])
            or time.monotonic() > deadline
        ):
            return now
        time.sleep(0.05)


def probe(i: int) -> tuple[str, str]:
    """A record only write `i` adds: its title is the query that must find it."""
    animals = ["otter", "heron", "lynx", "walrus", "gecko", "ibis", "marmot", "tapir", "quokka", "okapi"]
    return f"fact-probe-{i}", f"The {animals[i % 10]} relay number {i} forwards telemetry over port {4000 + i}"


@pytest.mark.e2e
@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="reads /proc")
def test_server_stays_flat_and_fresh_over_outside_writes(repo, jgm_home):
    from jupiter_git_memory.seed.seeder import Seeder

    for n in range(4):
        repo.record(
            f"dec-base-{n}",
            title=f"Base decision {n} about the build cache",
            body=f"The build cache keeps artefacts for {n + 2} days because CI reruns are frequent.",
        )
    repo.commit("base")
    seeder = Seeder(repo.path)  # the outside writer: another process than the server
    seeder.seed()
    server = Server([repo.path], jgm_home)
    path = f"/v1/workspaces/{workspace_id(repo.path)}/recall"
    samples = []
    try:
        with server.client() as c:
            for i in range(WRITES):
                rid, title = probe(i)
                repo.write(
                    f"knowledge/probes/{rid}.md",
                    record_text(
                        rid, kind="fact", status="verified", title=title, body=f"{title}. Measured by the soak test."
                    ),
                )
                if i >= 3:  # keep the repo small: the probe of three writes ago goes
                    os.unlink(repo.path / f"knowledge/probes/{probe(i - 3)[0]}.md")
                report = seeder.seed()
                r = c.post(path, json={"query": title, "k": 3})
                assert r.status_code == 200, r.text
                body = r.json()
                assert body["receipt"]["index"]["generation"] >= report.generation
                ids = [x["id"] for x in body["results"]]
                assert rid in ids, f"write {i}: stale answer {ids} for {rid}"
                assert probe(i - 3)[0] not in ids
                samples.append(settled_stats(server.proc.pid, samples[WARMUP - 1] if i >= WARMUP else None))
                if i >= WARMUP:  # outside Chroma's pool, never one fd or thread above the warm-up value
                    base, now = samples[WARMUP - 1], samples[-1]
                    assert now["fds"] <= base["fds"] and now["threads"] <= base["threads"], (i, samples)
    finally:
        server.stop()
    settled = samples[WARMUP - 1]
    assert max(s["pool"] for s in samples) <= POOL_MAX, [s["pool"] for s in samples]
    growth_mb = (max(s["rss"] for s in samples[WARMUP:]) - settled["rss"]) / 1024
    assert growth_mb <= RSS_BOUND_MB, [s["rss"] for s in samples]


@pytest.mark.e2e
@pytest.mark.skipif(not hasattr(resource, "prlimit"), reason="needs prlimit (Linux)")
def test_every_500_is_our_json_even_when_file_descriptors_run_out(repo, jgm_home):
    from jupiter_git_memory.seed.seeder import Seeder

    repo.record("dec-a", title="Use PostgreSQL", body="We store data in PostgreSQL because of JSONB.")
    repo.commit("a")
    Seeder(repo.path).seed()
    server = Server([repo.path], jgm_home)
    base = f"/v1/workspaces/{workspace_id(repo.path)}"
    try:
        with server.client() as c:  # one keep-alive connection, opened while fds are still available
            assert c.get(base + "/records").status_code == 200
            used = len(os.listdir(f"/proc/{server.proc.pid}/fd"))
            soft, hard = resource.prlimit(server.proc.pid, resource.RLIMIT_NOFILE)
            resource.prlimit(server.proc.pid, resource.RLIMIT_NOFILE, (used, hard))
            try:
                answers = [
                    c.get(base + "/records"),
                    c.get(base + "/records/dec-a"),
                    c.post(base + "/recall", json={"query": "which database?"}),
                ]
            finally:
                resource.prlimit(server.proc.pid, resource.RLIMIT_NOFILE, (soft, hard))
            failed = [r for r in answers if r.status_code >= 500]
            assert failed, [r.status_code for r in answers]  # the fault really happened
            for r in failed:
                assert r.headers["content-type"] == "application/json", r.text
                assert r.json()["error"]["code"] in ("internal/error", "memory/retrieval-failed"), r.text
            assert c.get(base + "/records").status_code == 200  # and the server recovers
    finally:
        server.stop()


def test_mcp_http_crash_is_our_json_500(repo):
    """The same guard wraps `jgm mcp --http`: a fault before any response (here: the token store failing
    as it does without free fds) answers our JSON 500, not uvicorn's plain text."""
    import errno

    from starlette.testclient import TestClient

    from jupiter_git_memory.app.workspace_handle import WorkspaceHandle
    from jupiter_git_memory.surfaces.mcp.server import build_server, http_app

    class NoFds:
        def authenticate(self, secret):
            raise OSError(errno.EMFILE, "Too many open files")

    repo.commit("empty")
    handle = WorkspaceHandle.for_repo(repo.path)
    r = TestClient(http_app(build_server(handle), handle, NoFds())).post("/mcp", json={})
    assert r.status_code == 500 and r.headers["content-type"] == "application/json"
    assert r.json()["error"]["code"] == "internal/error" and "too many open files" in r.json()["error"]["message"]


def test_a_retired_chroma_client_serves_its_reader_then_stops(tmp_path):
    """Lease rule of index/vectors.py: a reopen retires the old client; a reader still holding it is served,
    and the old client stops when that reader closes (not before, not never)."""
    import numpy as np

    from jupiter_git_memory.index.vectors import VectorIndex, open_epochs, refresh_if_stale, reset_clients

    loc, identity = str(tmp_path / "chroma"), {"model": "test", "dimension": 4}
    base = open_epochs()
    old = VectorIndex(loc, "jgm-lease", identity)
    old.add(["a"], np.array([[1.0, 0, 0, 0]], dtype=np.float32), [{"record_id": "a"}])
    refresh_if_stale(loc, 41)  # another process wrote: the catalog generation moved
    new = VectorIndex(loc, "jgm-lease", identity)
    assert new.client is not old.client and open_epochs() == base + 2
    assert [h[0] for h in old.query(np.array([1.0, 0, 0, 0], dtype=np.float32), 1)] == ["a"]
    old.close()
    assert open_epochs() == base + 1  # the retired client stopped with its last reader
    assert [h[0] for h in new.query(np.array([1.0, 0, 0, 0], dtype=np.float32), 1)] == ["a"]
    new.close()
    reset_clients(loc)
    assert open_epochs() == base


def test_a_reader_of_a_never_written_store_uses_an_empty_in_memory_chroma_then_lets_it_go(repo, jgm_home):
    """open_index for a reader of a blank catalog creates nothing on disk, and the stand-in Chroma it reads
    stops with its last reader instead of staying open for the life of a server started before `jgm seed`."""
    from jupiter_git_memory.embedding.registry import load_embedder
    from jupiter_git_memory.git.workspace import find_workspace
    from jupiter_git_memory.index.handle import open_index, vector_identity
    from jupiter_git_memory.index.vectors import open_epochs

    ws = find_workspace(repo.path)
    base = open_epochs()
    index = open_index(ws, vector_identity(load_embedder().spec))
    assert index.catalog.blank and index.vectors.location.startswith("memory:") and open_epochs() == base + 1
    assert index.vectors.count() == 0
    index.close()
    assert open_epochs() == base
    assert not (jgm_home / "workspaces").exists()
