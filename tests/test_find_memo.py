"""One find reads each lexical figure once (issue 39, recall latency at 100,000 chunks): a default recall
that falls back to proposed records runs a second search on the same question, and that search takes the
first one's FTS window (`_QueryOnce.matched`) and word holders (`_QueryOnce.held`) instead of reading
them again. The answer is the one a find without those memos gives, field for field. Real git, model,
Chroma and seed."""

from __future__ import annotations

from collections import Counter

import pytest

from jupiter_git_memory.recall import retrieval
from jupiter_git_memory.recall.service import Recaller
from jupiter_git_memory.seed.seeder import Seeder

pytestmark = pytest.mark.integration

LOG_Q = "In what format should services write their log lines?"
QUESTIONS = [LOG_Q, "Which database engine keeps the orders?", "What is the recipe for banana bread?"]


RECORDS = [  # id, status, title, body: one proposed record answers LOG_Q, nothing in force does
    ("dec-db", "accepted", "Keep orders in PostgreSQL", "The orders service stores every order in PostgreSQL."),
    ("dec-logs", "proposed", "Write log lines as JSON", "Proposal: every service writes one JSON object per log line."),
    ("dec-metrics", "accepted", "Export metrics", "Every service exports Prometheus metrics on port 9100."),
]


@pytest.fixture
def kb(repo):
    for rid, status, title, body in RECORDS:
        repo.record(rid, status=status, title=title, body=body)
    repo.commit()
    assert not Seeder(repo.path).seed().errors
    return repo


class _NoMemo(retrieval._QueryOnce):
    """The find before the memos: every search reads its lexical window and word holders itself."""

    def __init__(self, embedder):
        super().__init__(embedder)
        self.matched = None  # type: ignore[assignment]
        self.held = None


def _answer(rc: Recaller, q: str) -> tuple:
    """What a reader gets (the receipt aside: it carries the time)."""
    res = rc.recall(q, k=5)
    return res.results, res.why, res.fallback, res.warnings


def test_a_fallback_find_reads_the_fts_window_once_and_answers_as_without_the_memo(kb, monkeypatch):
    rc = Recaller(kb.path)
    try:
        statements: list[str] = []
        rc.index().catalog._db.set_trace_callback(statements.append)
        res = rc.recall(LOG_Q, k=5)
        rc.index().catalog._db.set_trace_callback(None)
        assert [r["id"] for r in res.results] == ["dec-logs"] and res.fallback  # two searches ran
        ranked = [s for s in statements if "bm25(" in s]
        assert len(ranked) == 1, ranked
        holders = Counter(s for s in statements if "group_concat(rowid)" in s)
        assert all(n == 1 for n in holders.values()), holders

        with_memo = {q: _answer(rc, q) for q in QUESTIONS}
        monkeypatch.setattr(retrieval, "_QueryOnce", _NoMemo)
        assert {q: _answer(rc, q) for q in QUESTIONS} == with_memo
    finally:
        rc.close()
