"""CJK-aware lexical search end to end (records/lexical.py, dec-cjk-lexical-bigrams): a real repo of Chinese
records, `jgm seed`, and recalls asked in the other script; hybrid corroboration counting Chinese words; the
records search; and a store of the previous schema re-indexing its lexical table without re-embedding."""

from __future__ import annotations

import json
import sqlite3

import pytest
from cli_helpers import jgm_in

from jupiter_git_memory.app import records_ops
from jupiter_git_memory.index.migrations import SCHEMA_VERSION
from jupiter_git_memory.recall import retrieval
from jupiter_git_memory.recall.floors import save_floor
from jupiter_git_memory.recall.ranking import merge_weights, weight
from jupiter_git_memory.recall.service import Recaller
from jupiter_git_memory.records.lexical import lexical_key
from jupiter_git_memory.seed.seeder import Seeder

pytestmark = pytest.mark.e2e

RECORDS = {  # written in Traditional Chinese, English mixed in as such teams write
    "dec-orders-db": {
        "title": "訂單存放在託管的 PostgreSQL 資料庫",
        "body": "我們的訂單服務使用託管的 PostgreSQL 資料庫，部署在雲端的兩個可用區。每天凌晨備份一次，保留三十天。",
    },
    "dec-confirm-mail": {
        "title": "確認郵件由背景工作佇列發送",
        "body": "確認郵件不在請求裡直接寄出，而是放進背景工作佇列；寄送失敗時重試五次，我們使用 Redis 當佇列。",
    },
    "dec-frontend": {
        "title": "前端使用 React 與設計系統",
        "body": "前端使用 React 和 TypeScript，樣式統一放在設計系統的元件庫裡，我們不再手寫樣式。",
    },
    "fact-oncall": {
        "kind": "fact",
        "status": "verified",
        "title": "值班工程師每天檢查監控儀表板",
        "body": "監控儀表板顯示請求延遲、錯誤率和佇列長度；值班工程師每天早上檢查一次。",
    },
}


@pytest.fixture
def zh(repo):
    for rid, kw in RECORDS.items():
        repo.record(rid, **kw)
    repo.commit("records in Chinese")
    return repo


def recall(repo, question: str, mode: str) -> dict:
    p = jgm_in("recall", question, "--mode", mode, "--json", cwd=repo.path)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_a_simplified_word_finds_the_traditional_record_in_lexical_mode(zh):
    assert jgm_in("seed", cwd=zh.path).returncode == 0
    assert [r["id"] for r in recall(zh, "备份", "lexical")["results"]] == ["dec-orders-db"]  # 備份
    assert [r["id"] for r in recall(zh, "邮件怎么发送", "lexical")["results"]] == ["dec-confirm-mail"]
    assert [r["id"] for r in recall(zh, "仪表板", "lexical")["results"]] == ["fact-oncall"]
    assert [r["id"] for r in recall(zh, "PostgreSQL", "lexical")["results"]] == ["dec-orders-db"]  # glued Latin
    assert recall(zh, "我们使用什么？", "lexical")["results"] == []  # only the words every question has


def test_hybrid_corroboration_counts_chinese_words(zh):
    # every record in the band that needs corroboration: only informative words can admit one
    zh.write("jgm.toml", "floor = 0.0\ncorroborate_margin = 0.99\nauto_calibrate = false\n")
    zh.commit("config")
    assert jgm_in("seed", cwd=zh.path).returncode == 0
    got = recall(zh, "确认邮件是怎么寄出的？", "hybrid")  # Simplified question, Traditional record
    assert [r["id"] for r in got["results"]] == ["dec-confirm-mail"]
    why = got["results"][0]["why"]
    assert why["admitted"] == "corroborated" and why["corroboration"] >= 1.0
    # the words every question has corroborate nothing, though every record holds 我們 or 使用
    assert recall(zh, "我們使用什麼？", "hybrid")["results"] == []
    assert recall(zh, "烤麵包要多久？", "hybrid")["results"] == []  # unanswerable: no record shares a word


def test_the_records_search_folds_and_matches_two_character_words(zh):
    Seeder(zh.path).seed()
    r = Recaller(zh.path)
    try:
        r.prepare()
        cat = r.index().catalog
        found = records_ops.list_records(cat, text="设计系统")["records"]  # Simplified, all words needed
        assert [x["id"] for x in found] == ["dec-frontend"]
        assert [x["id"] for x in records_ops.list_records(cat, text="佇列 Redis")["records"]] == ["dec-confirm-mail"]
    finally:
        r.close()


def as_v3(path) -> int:
    """Make the catalog at `path` what schema v3 wrote (raw text in the FTS table, no lexical key); returns
    its number of chunks."""
    db = sqlite3.connect(path)
    db.execute("DELETE FROM chunks_fts")
    db.execute(
        "INSERT INTO chunks_fts(chunk_id, record_id, title, body) SELECT s.id, s.record_id, c.title, s.body "
        "FROM chunk_store s JOIN version_chunks vc ON vc.chunk_id = s.id "
        "JOIN contents c ON c.id = vc.record_id AND c.content_hash = vc.content_hash"
    )
    db.execute("DELETE FROM meta WHERE key = 'lexical_text'")
    db.execute("PRAGMA user_version = 3")
    chunks = db.execute("SELECT count(*) FROM chunk_store").fetchone()[0]
    db.commit()
    db.close()
    return chunks


def test_a_store_of_the_previous_schema_reindexes_its_lexical_table_without_embedding(zh):
    seeder = Seeder(zh.path)
    seeder.seed()
    path = seeder.wsdir / "catalog.sqlite"
    chunks = as_v3(path)
    assert fts_record_ids(path, '"备份"') == []  # what v3 held: no Chinese word matched

    class NoEmbedding:  # the fault: any embedding during the upgrade fails the test
        def __init__(self, real):
            self.real = real
            self.spec = real.spec
            self.count_tokens = real.count_tokens

        def embed_passages(self, texts):
            raise AssertionError(f"re-embedded {len(texts)} chunks")

        def embed_query(self, text):
            return self.real.embed_query(text)

    report = Seeder(zh.path, embedder=NoEmbedding(seeder.embedder)).seed()
    assert not report.errors
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert db.execute("SELECT value FROM meta WHERE key = 'lexical_text'").fetchone()[0] == lexical_key()
    assert db.execute("SELECT count(*) FROM chunks_fts").fetchone()[0] == chunks
    db.close()
    assert [r["id"] for r in recall(zh, "备份", "lexical")["results"]] == ["dec-orders-db"]


def fts_record_ids(path, match: str) -> list[str]:
    db = sqlite3.connect(path)
    try:
        return [r[0] for r in db.execute("SELECT record_id FROM chunks_fts WHERE chunks_fts MATCH ?", (match,))]
    finally:
        db.close()


def test_an_old_store_answers_after_the_upgrade_without_a_seed_by_hand(zh, jgm_home):
    assert jgm_in("seed", cwd=zh.path).returncode == 0
    (path,) = jgm_home.glob("workspaces/*/catalog.sqlite")
    as_v3(path)
    assert [r["id"] for r in recall(zh, "备份", "lexical")["results"]] == ["dec-orders-db"]  # recall migrates


def test_a_changed_conversion_table_reindexes_on_the_next_write(zh, monkeypatch):
    seeder = Seeder(zh.path)
    seeder.seed()
    db = sqlite3.connect(seeder.wsdir / "catalog.sqlite")
    db.execute("UPDATE meta SET value = 'older tables' WHERE key = 'lexical_text'")
    db.execute("DELETE FROM chunks_fts")  # what the older tables made no longer matches
    db.commit()
    db.close()
    Seeder(zh.path).seed()
    assert [r["id"] for r in recall(zh, "备份", "lexical")["results"]] == ["dec-orders-db"]


def test_a_record_the_lexical_gate_admits_is_weighed_by_drift_as_every_result(zh, monkeypatch):
    """The gate's one record is ranked like any other: its weight carries the drift factor of its evidence."""
    assert jgm_in("seed", cwd=zh.path).returncode == 0
    rc = Recaller(zh.path)
    langs = {"en": {"floor": 0.3}, "zh": {"floor": 0.99, "lexical_gate": {"from": -1.0, "mass": 0.0}}}
    save_floor(rc.workspace.id, rc.floor_identity, 0.3, {"source": "auto", "languages": langs}, rc.store_root)
    rc.close()
    monkeypatch.setattr(retrieval, "factors", lambda *a, **k: {"dec-orders-db": 0.5})  # its cited code moved
    got = Recaller(zh.path).recall("訂單的備份保留多久？", k=3, store=False).results
    assert [r["id"] for r in got] == ["dec-orders-db"] and got[0]["why"]["admitted"] == "lexical-gate"
    assert got[0]["why"]["weight"] == 0.5 * weight(merge_weights(None), "decision", "accepted")
