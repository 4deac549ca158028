"""The catalog's schema version (issue 14): a store written by the release before it opens and migrates,
a newer schema is refused with the store and the fix named, and a reader's open writes nothing."""

import hashlib
import sqlite3
import sys
from pathlib import Path

import pytest

from jupiter_git_memory.index.catalog import Catalog
from jupiter_git_memory.index.migrations import SCHEMA_VERSION, CatalogNeedsMigration, CatalogTooNew
from jupiter_git_memory.recall.receipts import get_receipt
from jupiter_git_memory.recall.service import Recaller
from jupiter_git_memory.seed.seeder import Seeder

pytestmark = pytest.mark.integration

FIXTURES = Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))
import v1_store  # noqa: E402


def restore(tmp_path: Path, jgm_home: Path) -> tuple[Path, Path]:
    """The repo of v1_store.RECORDS and its store, rebuilt from the text dump (tests/fixtures/catalog_v2.py)."""
    repo = tmp_path / "repo"
    v1_store.make_repo(repo)
    header, dump = (FIXTURES / "catalog-v2.sql").read_text("utf-8").split("\n", 1)
    wsdir = jgm_home / "workspaces" / header.split()[-1]
    wsdir.mkdir(parents=True)
    db = sqlite3.connect(wsdir / "catalog.sqlite")
    db.executescript(dump)
    db.close()
    return repo, wsdir / "catalog.sqlite"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_store_of_the_previous_release_opens_and_seeds(tmp_path, jgm_home):
    repo, path = restore(tmp_path, jgm_home)
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 2  # really the previous release's schema
    (receipt_id,) = db.execute("SELECT id FROM receipts").fetchone()
    db.close()
    report = Seeder(repo).seed()
    assert sorted(report.added) == sorted(r.split("/")[-1][:-3] for r in v1_store.RECORDS)
    assert not report.errors
    r = Recaller(repo)
    try:
        got = r.recall("Which database stores the orders?")
        assert [x["id"] for x in got.results][:1] == ["dec-orders-mongo"]
        assert get_receipt(r.index().catalog, receipt_id)["query"] == "Which database stores the orders?"
        assert [c.title for c in r.index().catalog.records(origin="candidate").values()] == [v1_store.CANDIDATE_TITLE]
    finally:
        r.close()


def test_a_readers_open_writes_nothing(tmp_path, jgm_home):
    repo, path = restore(tmp_path, jgm_home)
    Seeder(repo).seed()
    before = digest(path)
    r = Recaller(repo)  # opens the index as a reader (the old open wrote identity and workspace meta)
    try:
        r.index()
    finally:
        r.close()
    cat = Catalog(path)
    cat.records()
    cat.close()
    assert digest(path) == before


def test_a_newer_schema_is_refused_by_name(tmp_path, jgm_home):
    repo, path = restore(tmp_path, jgm_home)
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    for write in (False, True):
        with pytest.raises(CatalogTooNew) as e:
            Catalog(path, write=write)
        assert str(path) in e.value.message and "upgrade" in e.value.message and "--home" in e.value.message
        assert e.value.code == "index/schema-too-new"


def test_an_older_schema_is_migrated_by_a_writer_only(tmp_path, jgm_home):
    repo, path = restore(tmp_path, jgm_home)
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 1")  # what a reader meets before the writer that migrates it
    db.close()
    with pytest.raises(CatalogNeedsMigration) as e:
        Catalog(path)
    assert str(path) in e.value.message and "jgm seed" in e.value.message


def test_a_reader_of_an_unwritten_catalog_creates_nothing(tmp_path):
    path = tmp_path / "catalog.sqlite"
    cat = Catalog(path)
    assert cat.is_empty() and cat.get_meta("last_seed_at") is None
    cat.close()
    assert not path.exists()  # the old open created (and migrated) the file
    path.touch()  # what a bare sqlite3.connect leaves behind: still nothing to migrate for a reader
    Catalog(path).close()
    assert path.stat().st_size == 0


def test_a_reader_opened_before_the_first_seed_sees_it(repo):
    repo.record("dec-a", title="Orders are stored in PostgreSQL", body="The application's orders live in PostgreSQL.")
    repo.commit()
    r = Recaller(repo.path)
    try:
        assert r.index().catalog.is_empty()  # nothing written yet: an empty catalog, nothing created
        Seeder(repo.path).seed()
        assert r.index().catalog.record("dec-a") is not None  # a long-lived reader (a server) reopens
    finally:
        r.close()
