"""One find reads each figure once (issue 39, recall latency at 100,000 chunks): a default recall that
falls back to proposed records runs a second search on the same question, and that search takes the
first one's FTS window (`QueryOnce.matched`), word holders (`QueryOnce.held`, read ahead on the catalog's
second connection) and Chroma queries, and widens no further once its farthest chunk is below the floor.
The answer is the one a find without those gives, field for field. Real git, model, Chroma and seed."""

from __future__ import annotations

import os
import sys
import threading
from collections import Counter

import pytest

from jupiter_git_memory.config.schema import Settings
from jupiter_git_memory.recall import query_once, retrieval
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


class _NoMemo(retrieval.QueryOnce):
    """The find before the memos: every search reads its lexical window and word holders itself."""

    def __init__(self, embedder):
        super().__init__(embedder)
        self.matched = None  # type: ignore[assignment]
        self.held = None

    def searching(self):  # nor reads them ahead
        pass


def _answer(rc: Recaller, q: str, k: int = 5) -> tuple:
    """What a reader gets (the receipt aside: it carries the time)."""
    res = rc.recall(q, k=k)
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
        monkeypatch.setattr(retrieval, "QueryOnce", _NoMemo)
        assert {q: _answer(rc, q) for q in QUESTIONS} == with_memo
    finally:
        rc.close()


TOPICS = [  # in force, none about logs: the log question falls back to the one proposed record
    ("billing", "The billing service retries a declined card payment three times."),
    ("search", "The search indexer rebuilds its shards every night at two."),
    ("auth", "Sessions expire after thirty minutes without a request."),
    ("deploy", "Deploys go out from the main branch after the tests pass."),
    ("mail", "Outgoing mail is queued and sent by a separate worker."),
    ("images", "Uploaded images are resized to three widths before storage."),
    ("backup", "The database is backed up every six hours to object storage."),
    ("flags", "Feature flags are read once per request from the config service."),
    ("locale", "Prices are shown in the customer's currency, rounded to cents."),
    ("cron", "Scheduled jobs run in UTC and never overlap themselves."),
    ("pdf", "Invoices are rendered to PDF by a headless browser."),
    ("geo", "Addresses are geocoded once, when the customer saves them."),
]


@pytest.fixture
def wide(repo, monkeypatch):
    """About 30 chunks, one of them proposed, and a dense pool of 6 (k=1): the in-force search's first
    Chroma query (24 chunks) holds too few proposed chunks, so the fallback widens: a query it can ask ahead."""
    for name, body in TOPICS:
        repo.record(f"dec-{name}", status="accepted", title=body.split(" ")[1].capitalize(), body=body)
        repo.record(f"fact-{name}", kind="fact", status="verified", title=f"About {name}", body=f"{body} Checked.")
    repo.record("dec-logs", status="proposed", title="Write log lines as JSON", body=RECORDS[1][3])
    repo.commit()
    assert not Seeder(repo.path).seed().errors
    monkeypatch.setattr(retrieval, "DENSE_POOL", 1)
    return repo


def _spy(monkeypatch, rc: Recaller) -> list[int]:
    """The size of each Chroma query the recall makes (the real query runs)."""
    asked: list[int] = []
    cls = type(rc.index().vectors)
    real = cls.query

    def query(self, vector, n):
        asked.append(n)
        return real(self, vector, n)

    monkeypatch.setattr(cls, "query", query)
    return asked


def test_a_fallback_whose_nearest_chunks_are_below_the_floor_asks_chroma_nothing_more(wide, monkeypatch):
    """The in-force search fetched 24 chunks, the farthest below the floor: the proposed fallback, with one
    proposed chunk among them, takes them from the memo and does not widen for chunks that could not be
    admitted; the answer is the one the widening search gives."""
    rc = Recaller(wide.path)
    try:
        rc.recall("warm up the model and the catalog", k=1)
        asked = _spy(monkeypatch, rc)
        res = rc.recall(LOG_Q, k=1)
        assert [r["id"] for r in res.results] == ["dec-logs"] and res.fallback
        assert asked == [24], asked

        qs = [LOG_Q, "When do sessions expire?", "What is the recipe for banana bread?"]
        stopped = {q: _answer(rc, q, 1) for q in qs}
        monkeypatch.setattr(retrieval, "_admit_above", lambda ask: None)  # widen as before
        asked.clear()
        assert {q: _answer(rc, q, 1) for q in qs} == stopped
        assert max(asked) > 24, asked
    finally:
        rc.close()


def test_a_search_still_widens_while_its_farthest_chunk_could_be_admitted(wide, monkeypatch):
    """With a floor of 0 every chunk could count: a search for proposed records, one among the nearest 24,
    widens until it has seen them all."""
    rc = Recaller(wide.path)
    try:
        rc.use_settings(Settings(floor=0.0))
        asked = _spy(monkeypatch, rc)
        res = rc.recall(LOG_Q, k=1, statuses=["proposed"])
        assert [r["id"] for r in res.results] == ["dec-logs"]
        chunks = rc.index().vectors.count()
        assert chunks > 24 and asked[0] == 24 and asked[-1] >= chunks, (chunks, asked)
    finally:
        rc.close()


def test_word_holders_read_beside_the_lexical_worker_answer_as_read_in_turn(kb, monkeypatch):
    """A hybrid find reads its words' holders ahead, on the catalog's second connection, while the first
    runs the FTS query: corroboration then reads none itself, and every answer is the one without it."""
    rc = Recaller(kb.path)
    try:
        rc.recall("warm up the model and the catalog", k=5)
        cat = rc.index().catalog
        first: list[str] = []
        cat._db.set_trace_callback(first.append)
        rc.recall(LOG_Q, k=5)
        cat._db.set_trace_callback(None)
        assert cat._beside is not None and not [s for s in first if "group_concat(rowid)" in s], first

        ahead = {q: _answer(rc, q) for q in QUESTIONS}
        monkeypatch.setattr(type(cat), "prefetch_holders", lambda self, terms, held: None)
        assert {q: _answer(rc, q) for q in QUESTIONS} == ahead
    finally:
        rc.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="thread priorities are Linux's")
def test_reads_ahead_run_at_a_lower_priority_and_the_process_keeps_its_own():
    before = os.getpriority(os.PRIO_PROCESS, 0)
    ahead = query_once._AHEAD.submit(lambda: os.getpriority(os.PRIO_PROCESS, threading.get_native_id())).result()
    assert ahead == min(before + 10, 19) and os.getpriority(os.PRIO_PROCESS, 0) == before


def test_the_question_is_embedded_once_in_a_worker_while_the_view_is_readied(kb, monkeypatch):
    """Recall starts the question's embedding before it prepares the view, in a worker of normal priority;
    both searches of a fallback answer take that one vector, and every answer is the one embedded in turn."""
    from jupiter_git_memory.recall import service

    rc = Recaller(kb.path)
    try:
        rc.recall("warm up the model and the catalog", k=5)
        real = rc.embedder.embed_query
        threads: list[str] = []

        def embed_query(text):
            threads.append(threading.current_thread().name)
            return real(text)

        monkeypatch.setattr(rc.embedder, "embed_query", embed_query)
        early = {q: _answer(rc, q) for q in QUESTIONS}
        assert early[LOG_Q][2] and len(threads) == len(QUESTIONS), threads  # the fallback embedded nothing more
        assert all(t.startswith("jgm-embed") for t in threads), threads
        threads.clear()
        monkeypatch.setattr(
            service, "QueryOnce", lambda embedder, early=None, started=None: query_once.QueryOnce(embedder)
        )
        assert {q: _answer(rc, q) for q in QUESTIONS} == early
        assert threads == ["MainThread"] * len(QUESTIONS), threads
    finally:
        rc.close()


def test_an_early_embedding_that_fails_fails_the_answer_where_the_search_asks_for_it():
    """Plumbing (no model needed): the error reaches the search that asks for the vector, as an embedding in
    turn would raise it, and is never an empty answer; another question is embedded when asked."""

    class Broken:
        spec = object()

        def embed_query(self, text):
            if text == "boom":
                raise RuntimeError("the engine failed")
            return [len(text)]

    once = query_once.QueryOnce(Broken(), early="boom")  # starting it raises nothing
    with pytest.raises(RuntimeError, match="engine failed"):
        once.embed_query("boom")
    assert once.embed_query("other") == [5]
    fine = query_once.QueryOnce(Broken(), early="fine")
    assert fine.embed_query("fine") is fine.embed_query("fine")  # embedded once, kept


def test_a_tasks_questions_are_embedded_ahead_two_at_a_time_and_answer_as_in_turn(kb, monkeypatch):
    """Task recall begins embedding the goal and every concern before its first recall; each question is
    embedded once, in the early workers, and the task's answer is the one embedded question by question."""
    from jupiter_git_memory.recall.task import fused_recall

    goal = "Which database engine keeps the orders, and also in what format should services write their log lines"
    rc = Recaller(kb.path)
    try:
        rc.recall("warm up the model and the catalog", k=5)
        real, recall = rc.embedder.embed_query, Recaller.recall
        asked: list[tuple[str, str]] = []
        answered: list[int] = []  # how many embeddings had begun when each recall returned

        def embed_query(text):
            asked.append((text, threading.current_thread().name))
            return real(text)

        def counted(self, *a, **k):
            try:
                return recall(self, *a, **k)
            finally:
                answered.append(len(asked))

        monkeypatch.setattr(rc.embedder, "embed_query", embed_query)
        monkeypatch.setattr(Recaller, "recall", counted)
        ahead = fused_recall(rc, goal)
        texts = [t for t, _ in asked]
        assert len(texts) == len(set(texts)) == 3 and goal in texts, asked  # the goal and its two concerns
        assert all(name.startswith("jgm-embed") for _, name in asked), asked
        assert answered[0] >= 2, answered  # a concern's embedding began before the goal's recall returned
        assert rc._ahead == {}  # every question begun was asked
        asked.clear()
        answered.clear()
        monkeypatch.setattr(Recaller, "embed_ahead", lambda self, queries: None)
        assert fused_recall(rc, goal)[0] == ahead[0]
        assert len(asked) == 3 and answered == [1, 2, 3], answered  # in turn: one question at a time
    finally:
        rc.close()
