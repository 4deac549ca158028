"""Corroboration's figures per word (index/queries.py `term_records`, `term_holders`, `record_count`; issue
39): read from the FTS doclist through a rowid map kept per catalog generation, they are the records a
`DISTINCT record_id` match names, and a seed by another process that adds or removes a word's record shows
in the next answer of a catalog held open (a server's). Real git, model, Chroma and seeds."""

from __future__ import annotations

import sqlite3

import pytest
from cli_helpers import jgm_in

from jupiter_git_memory.base.store import workspace_dir
from jupiter_git_memory.git.workspace import find_workspace
from jupiter_git_memory.index.catalog import Catalog
from jupiter_git_memory.index.views import worktree_view

pytestmark = pytest.mark.integration

WORDS = ["billing", "service", "json", "invoices", "port", "zebra", "listens"]


def _distinct(cat: Catalog, word: str) -> set[str]:
    """The query term_records replaced: every matching chunk's record id."""
    rows = cat._db.execute("SELECT DISTINCT record_id FROM chunks_fts WHERE chunks_fts MATCH ?", (f'"{word}"',))
    return {r[0] for r in rows}


def _stored(cat: Catalog) -> int:
    return cat._db.execute("SELECT count(*) FROM chunk_store").fetchone()[0]


def _same(cat: Catalog, among: set[str]) -> None:
    """term_records and term_holders agree with the DISTINCT query: sets, counts and the asked records'."""
    want = {w: _distinct(cat, w) for w in WORDS}
    assert cat.term_records(WORDS) == want
    assert cat.term_holders(WORDS, among) == (
        {w: len(v) for w, v in want.items()},
        {w: v & among for w, v in want.items()},
    )


def test_the_sets_are_the_matching_records_and_follow_another_process_seed(repo):
    repo.record("dec-port", title="Billing listens on port 8080", body="The billing service listens on port 8080.")
    repo.record("dec-logs", title="Log as JSON lines", body="Every service writes JSON log lines to stdout.")
    repo.commit("records")
    assert jgm_in("seed", cwd=repo.path).returncode == 0
    cat = Catalog(workspace_dir(find_workspace(repo.path).id) / "catalog.sqlite", worktree_view(repo.path))
    try:
        got = cat.term_records(WORDS)
        assert got["service"] == {"dec-port", "dec-logs"} and got["invoices"] == set()
        _same(cat, {"dec-port", "dec-pdf"})
        assert cat.record_count() == 2

        repo.record("dec-pdf", title="Invoices are PDF files", body="The billing service renders invoices as PDF.")
        repo.record("dec-tax", title="Taxes per country", body="Invoices carry the tax of the buyer's country.")
        (repo.path / "knowledge/dec-logs.md").unlink()
        repo.commit("a record in, one out")
        assert jgm_in("seed", cwd=repo.path).returncode == 0  # another process's write
        got = cat.term_records(WORDS)
        assert got["invoices"] == {"dec-pdf", "dec-tax"} and got["json"] == set()
        assert got["billing"] == {"dec-port", "dec-pdf"}
        _same(cat, {"dec-port", "dec-pdf", "dec-logs"})
        assert cat.record_count() == 3
    finally:
        cat.close()


def test_a_held_memo_answers_as_the_doclists_and_is_not_reused_after_another_seed(repo):
    """`term_holders(..., held)` (one find's memo): the same figures as without it, and a memo filled before
    a seed by another process adds a word's record is not read after it (the catalog generation moved);
    nor is the stored chunk count, kept per generation (what lost-vector checks compare Chroma with)."""
    repo.record("dec-port", title="Billing listens on port 8080", body="The billing service listens on port 8080.")
    repo.commit("records")
    assert jgm_in("seed", cwd=repo.path).returncode == 0
    cat = Catalog(workspace_dir(find_workspace(repo.path).id) / "catalog.sqlite", worktree_view(repo.path))
    try:
        held: dict = {}
        among = {"dec-port", "dec-pdf"}
        before = cat.stored_chunk_count()
        assert before == _stored(cat) > 0
        assert cat.term_holders(WORDS, among, held) == cat.term_holders(WORDS, among)
        assert set(held) == set(WORDS)
        repo.record("dec-pdf", title="Invoices are PDF files", body="The billing service renders invoices as PDF.")
        repo.commit("a record in")
        assert jgm_in("seed", cwd=repo.path).returncode == 0  # another process's write
        df, holders = cat.term_holders(WORDS, among, held)
        assert df["billing"] == 2 and holders["invoices"] == {"dec-pdf"}
        _same(cat, among)
        assert cat.stored_chunk_count() == _stored(cat) > before  # counted again for the new generation
    finally:
        cat.close()


def test_holders_read_ahead_use_the_second_connection_and_the_generation_the_file_is_at(repo, tmp_path):
    """`prefetch_holders` (a find's word holders, read beside the lexical worker's FTS query): on the
    catalog's second connection, the figures term_holders reads itself, before and after another process's
    seed (the rowid map is read again for the new generation); nothing for a catalog kept in memory; and
    close() closes that connection too."""
    repo.record("dec-port", title="Billing listens on port 8080", body="The billing service listens on port 8080.")
    repo.commit("records")
    assert jgm_in("seed", cwd=repo.path).returncode == 0
    cat = Catalog(workspace_dir(find_workspace(repo.path).id) / "catalog.sqlite", worktree_view(repo.path))
    try:
        among = {"dec-port", "dec-pdf"}
        first: list[str] = []
        cat._db.set_trace_callback(first.append)
        held: dict = {}
        cat.prefetch_holders(WORDS, held)
        assert set(held) == set(WORDS) and not [s for s in first if "chunks_fts" in s], first
        cat._db.set_trace_callback(None)
        assert cat.term_holders(WORDS, among, held) == cat.term_holders(WORDS, among)

        repo.record("dec-pdf", title="Invoices are PDF files", body="The billing service renders invoices as PDF.")
        repo.commit("a record in")
        assert jgm_in("seed", cwd=repo.path).returncode == 0  # another process's write
        moved: dict = {}
        cat.prefetch_holders(WORDS, moved)
        assert set(moved) == set(WORDS) and all(m[0] is not held["billing"][0] for m in moved.values())
        first.clear()
        cat._db.set_trace_callback(first.append)
        df, holders = cat.term_holders(WORDS, among, moved)
        cat._db.set_trace_callback(None)
        assert df["billing"] == 2 and holders["invoices"] == {"dec-pdf"}
        assert not [s for s in first if "chunks_fts" in s], first  # the map and holders read ahead serve it
        _same(cat, among)
        second = cat._beside
    finally:
        cat.close()
    with pytest.raises(sqlite3.ProgrammingError):
        second.execute("SELECT 1")
    blank = Catalog(tmp_path / "none" / "catalog.sqlite")
    try:
        kept: dict = {}
        blank.prefetch_holders(WORDS, kept)
        assert kept == {} and blank._beside is None
    finally:
        blank.close()
