"""A catalog torn under a warm daemon (issue 35, item 3): real daemon, real sqlite files, real `jgm` processes.

A daemon that answered once keeps a `-wal` beside the catalog; the file cut to 4,096 bytes then failed every
command with a raw `DatabaseError` from the `meta` read, and the daemon kept answering from what it had
cached. Now every command names the damage and the repair, the daemon stops answering from stale state, and
`jgm seed` / `jgm doctor --repair` move the file aside with its `-wal` and `-shm` and rebuild."""

from __future__ import annotations

import json
import os
import sqlite3

import pytest
from daemon_helpers import alive
from helpers import jgm, seeded

from jupiter_git_memory.index.damage import damaged, looks_torn
from jupiter_git_memory.surfaces.daemon.client import control

pytestmark = pytest.mark.e2e

RECORDS = {"dec-cache": {"title": "We cache sessions in Redis", "body": "Sessions live in Redis: lookups are hot."}}
NO_DAEMON = {"JGM_NO_DAEMON": "1"}
QUESTION = "where do sessions live"


def _catalog(store):
    (found,) = store.glob("workspaces/*/catalog.sqlite")
    return found


def _torn_under_a_warm_daemon(repo, store):
    seeded(repo, RECORDS)
    first = jgm("recall", QUESTION, "--json", cwd=repo.path)  # starts the daemon, which stores a receipt
    assert first.returncode == 0 and json.loads(first.stdout)["results"][0]["id"] == "dec-cache", first.stderr
    status = control("status", store)
    assert status and status["requests"] >= 1
    catalog = _catalog(store)
    assert catalog.with_name("catalog.sqlite-wal").exists()  # the daemon's WAL stays beside the file
    with open(catalog, "r+b") as f:
        f.truncate(4096)
    return catalog, status["pid"]


def _clear_corrupt_error(p) -> None:
    assert p.returncode != 0, p.stdout
    assert "Traceback" not in p.stderr and "DatabaseError" not in p.stderr, p.stderr
    assert "catalog is corrupt" in p.stderr and "jgm doctor --repair" in p.stderr, p.stderr
    assert "\n" not in p.stderr.strip(), p.stderr  # one line naming the file, the damage and the fix


@pytest.mark.parametrize("repair", [["doctor", "--repair"], ["seed"]])
def test_a_catalog_torn_under_a_warm_daemon_is_named_and_repaired(repo, daemon_on, repair):
    catalog, pid = _torn_under_a_warm_daemon(repo, daemon_on)
    warm = jgm("recall", QUESTION, cwd=repo.path)  # the daemon notices: no answer from what it cached
    _clear_corrupt_error(warm)
    assert str(catalog) in warm.stderr
    _clear_corrupt_error(jgm("recall", QUESTION, cwd=repo.path, env={**os.environ, **NO_DAEMON}))
    hook = jgm(
        "hook", "claude-code", "prompt", input=json.dumps({"cwd": str(repo.path), "prompt": QUESTION}), cwd=repo.path
    )
    assert hook.returncode == 0 and "dec-cache" not in hook.stdout, hook.stdout  # fails open, says nothing stale
    diag = jgm("doctor", "--json", cwd=repo.path)
    assert "Traceback" not in diag.stderr, diag.stderr
    assert [p["check"] for p in json.loads(diag.stdout)["problems"]] == ["catalog-corrupt"]
    fixed = jgm(*repair, cwd=repo.path)
    assert fixed.returncode == 0 and "Traceback" not in fixed.stderr, fixed.stderr
    moved = sorted(p.name for p in catalog.parent.glob("catalog.sqlite.corrupt-*"))
    assert [m[len(moved[0]) :] for m in moved] == ["", "-shm", "-wal"], moved  # moved aside together
    again = jgm("recall", QUESTION, "--json", cwd=repo.path)
    assert again.returncode == 0 and json.loads(again.stdout)["results"][0]["id"] == "dec-cache", again.stderr
    assert alive(pid) and control("status", daemon_on)["pid"] == pid  # the same daemon, reopened


def test_damage_is_confirmed_before_it_is_called_damage(tmp_path):
    """The cheap header test only raises a suspicion; a whole file (its pages in the `-wal` or not) is fine."""
    path = tmp_path / "c.sqlite"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA wal_autocheckpoint=0")  # every page after the first stays in the -wal
    db.execute("CREATE TABLE t(x)")
    db.executemany("INSERT INTO t VALUES(?)", [("x" * 500,)] * 400)
    assert looks_torn(path) is None and damaged(db, path) is None
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert path.stat().st_size > 8 * 4096 and damaged(db, path) is None
    db.close()
    with open(path, "r+b") as f:
        f.truncate(4096)
    assert "header counts" in (looks_torn(path) or "")
    db = sqlite3.connect(path)
    assert "header counts" in (damaged(db, path) or "")
    db.close()
    path.write_bytes(b"not a database at all" * 10)
    assert "not an SQLite database" in (looks_torn(path) or "")
