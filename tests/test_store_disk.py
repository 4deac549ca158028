"""A full or read-only store: one clear error per surface (code, the path, what to do), never a traceback.

Real file systems where the machine lets us mount them (a small tmpfs that is filled, or remounted
read-only); where it does not, those tests skip and say why. SQLite's own page limit
(`PRAGMA max_page_count`) makes a real "database or disk is full" anywhere.
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest
from api_helpers import Server, mcp_run, workspace_id
from conftest import Repo
from helpers import jgm

from jupiter_git_memory.base.errors import StoreFull
from jupiter_git_memory.index.catalog import CatalogChanges
from jupiter_git_memory.index.recovery import open_catalog

pytestmark = pytest.mark.e2e

REMEMBER = (
    "remember",
    "--kind",
    "fact",
    "--title",
    "Measured the cache hit rate today",
    "--body",
    "The cache hit rate measured in cache.py is ninety percent because the cache is warm at noon.",
)


@pytest.fixture
def small_disk(tmp_path):
    """A 4 MiB tmpfs for the store (skips where mounting is not permitted); unmounted afterwards."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    p = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", str(mnt)], capture_output=True, timeout=60
    )
    if p.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({p.stderr.decode().strip() or 'mount failed'}); needs root")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True, timeout=60)


def fill(disk: Path) -> None:
    """Take every free byte of `disk` (again: a process that ends may free some, its WAL for one)."""
    # unbuffered: a buffered file's close would flush what the full disk refused and raise ENOSPC again
    try:
        f = open(disk / f"filler-{len(list(disk.glob('filler-*')))}", "wb", buffering=0)  # noqa: SIM115
    except OSError as e:  # already full: not even a new file fits
        assert e.errno == errno.ENOSPC, e
    else:
        with f:
            try:
                while True:
                    f.write(b"\0" * 65536)
            except OSError as e:
                assert e.errno == errno.ENOSPC, e
    assert os.statvfs(disk).f_bavail == 0


def remount_read_only(disk: Path) -> None:
    p = subprocess.run(["mount", "-o", "remount,ro", str(disk)], capture_output=True, timeout=60)
    if p.returncode != 0:
        pytest.skip(f"cannot remount read-only here: {p.stderr.decode().strip()}")


def seeded_store(repo: Repo, home: Path) -> dict:
    for i in range(3):
        repo.record(f"dec-{i}", title=f"Decision {i} about the cache", body=f"We cache layer {i} because it is slow.")
    repo.commit()
    env = dict(os.environ, JGM_HOME=str(home))
    p = jgm("seed", "--repo", str(repo.path), env=env)
    assert p.returncode == 0, p.stderr
    return env


def assert_clear(p: subprocess.CompletedProcess, code: str, path_part: str) -> None:
    """Exit 2 (recall: 3, its `retrieval-failed` status), the code, the store's path and what to do."""
    recall = p.args[1] == "recall"
    assert "Traceback" not in p.stderr, p.stderr
    assert p.returncode == (3 if recall else 2), (p.returncode, p.stdout, p.stderr)
    assert f"{'retrieval-failed' if recall else 'error'} [{code}]:" in p.stderr and path_part in p.stderr, p.stderr
    assert "JGM_HOME" in p.stderr  # says what to do


def test_a_full_catalog_names_itself_and_keeps_what_it_had(tmp_path):
    """SQLite undoes a transaction that ran out of room itself; our rollback then used to fail with
    "cannot rollback - no transaction is active", which hid the real error."""
    path = tmp_path / "catalog.sqlite"
    cat, _ = open_catalog(path, write=True, view="wt")
    try:
        cat.apply(CatalogChanges(meta={"kept": "yes"}))
        pages = cat._db.execute("PRAGMA page_count").fetchone()[0]
        cat._db.execute(f"PRAGMA max_page_count = {pages + 2}")  # a real SQLITE_FULL, on any file system
        with pytest.raises(StoreFull) as e:
            cat.apply(CatalogChanges(meta={f"k{i}": "x" * 4000 for i in range(50)}))
        assert e.value.code == "store/disk-full" and str(path) in e.value.message
        assert isinstance(e.value.__cause__, sqlite3.OperationalError)
        assert cat.get_meta("kept") == "yes" and cat.get_meta("k0") is None  # nothing half-written
    finally:
        cat.close()


def test_a_full_store_disk_is_one_clear_error_on_the_cli(repo, small_disk):
    env = seeded_store(repo, small_disk)
    repo.record("dec-new", title="Decision new about the queue", body="The queue keeps jobs a day because retries.")
    repo.commit()
    fill(small_disk)
    for args in (("recall", "cache layer"), ("seed",), ("doctor",), REMEMBER):
        p = jgm(*args, "--repo", str(repo.path), env=env)
        assert_clear(p, "store/disk-full", str(small_disk))
    rc, body = _json(jgm("recall", "cache layer", "--repo", str(repo.path), "--json", env=env))
    assert rc == 3 and body["error"]["code"] == "store/disk-full" and body["status"] == "retrieval-failed"
    listing = jgm("workspaces", env=env)
    assert "full" in listing.stdout and "reseed" not in listing.stdout, listing.stdout


def test_a_read_only_store_is_one_clear_error_on_the_cli(repo, small_disk):
    env = seeded_store(repo, small_disk)
    remount_read_only(small_disk)
    for args in (("seed",), ("doctor",), REMEMBER, ("recall", "cache layer")):
        p = jgm(*args, "--repo", str(repo.path), env=env)
        assert_clear(p, "store/read-only", str(small_disk))
    p = jgm("serve", "--port", "0", "--repo", str(repo.path), env=env, timeout=120)
    assert_clear(p, "store/read-only", str(small_disk))


def test_a_full_store_disk_is_a_json_error_on_the_api_and_mcp(repo, small_disk):
    env = seeded_store(repo, small_disk)
    server = Server([repo.path], small_disk)
    try:
        base = f"/v1/workspaces/{workspace_id(repo.path)}"
        with server.client() as c:
            assert c.post(base + "/recall", json={"query": "cache layer"}).status_code == 200
            fill(small_disk)
            r = c.post(
                base + "/candidates",
                json={"kind": "fact", "title": "Measured the cache hit rate", "body": REMEMBER[-1]},
            )
            assert r.status_code == 507, r.text
            assert r.json()["error"]["code"] == "store/disk-full" and str(small_disk) in r.json()["error"]["message"]
            r = c.post(base + "/recall", json={"query": "cache layer"})  # stores a receipt: a write
            assert r.status_code == 507 and r.json()["error"]["code"] == "store/disk-full", r.text
    finally:
        server.stop()

    async def session(client):
        res = await client.call_tool("recall", {"query": "cache layer"})
        return res.is_error, " ".join(getattr(x, "text", "") for x in res.content)

    fill(small_disk)
    is_error, text = mcp_run(session, small_disk, repo)
    assert is_error and "[store/disk-full]" in text and str(small_disk) in text, text
    assert env  # the same store throughout


def _json(p: subprocess.CompletedProcess) -> tuple[int, dict]:
    return p.returncode, json.loads(p.stdout)


def test_the_api_maps_a_raw_full_disk_but_still_calls_a_bug_a_bug():
    """The safety net for a full disk met where no store path was at hand: its own code; a stray ValueError
    stays an internal error (a bug), it is not turned into the caller's bad request."""
    import errno

    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from jupiter_git_memory.surfaces.api.errors import install

    app = FastAPI()
    install(app)

    @app.get("/full")
    def full():
        raise OSError(errno.ENOSPC, "No space left on device", "/store/x")

    @app.get("/bug")
    def bug():
        raise ValueError("a bug of ours")

    c = TestClient(app, raise_server_exceptions=False)
    r = c.get("/full")
    assert r.status_code == 507 and r.json()["error"]["code"] == "store/disk-full" and "/store/x" in r.text
    r = c.get("/bug")
    assert r.status_code == 500 and r.json()["error"]["code"] == "internal/error"
