"""How should Chinese and Japanese be indexed for lexical matching? Prints JSON (dec-cjk-lexical-bigrams).

Three ways, on a small text set of our own (Traditional, Simplified, Japanese, English mixed in) and on a few
thousand chunks made from it:

- `unicode61`: today's table (`porter unicode61` over the raw text): a CJK run is one token;
- `bigram`: the same table over records/lexical.py `index_text` (folded, CJK runs as overlapping bigrams);
- `trigram`: a second FTS5 table with the `trigram` tokenizer over the folded text (Latin keeps the porter
  table, so this is its cost on top): a two-character word cannot be a trigram MATCH; a LIKE of fewer than
  three characters is documented to scan, and here (SQLite 3.40) finds nothing; `t_scan` is that scan.

Hit rate: the share of two-character query words (half written in the other script) for which the index
returns exactly the texts whose folded form contains the word.

    python bench/cjk_lexical.py [--chunks 3000] [--out bench/results/cjk_lexical.json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from jupiter_git_memory.recall.ranking import CORROBORATION_MIN, idf_mass
from jupiter_git_memory.records.lexical import CJK_RUN, bigram_runs, bigrams, fold, fts_terms, index_text

TEXTS = [
    "我們的訂單服務使用託管的 PostgreSQL 資料庫，部署在雲端的兩個可用區。",
    "订单数据每天凌晨备份一次，备份文件保存三十天后自动删除。",
    "確認郵件由背景工作佇列發送，失敗時會重試五次，每次間隔加倍。",
    "支付服务调用第三方接口时必须设置超时，默认超时为十秒。",
    "前端使用 React 和 TypeScript，樣式統一放在設計系統的元件庫裡。",
    "所有 API 都需要带上认证令牌，令牌的有效期是一小时。",
    "部署流程：合併到主分支後，持續整合會自動建置映像並部署到測試環境。",
    "日志统一写到集中式日志平台，保留九十天，错误日志会触发告警。",
    "資料庫遷移腳本放在 migrations 目錄，每次部署前先執行遷移。",
    "缓存用 Redis，商品详情缓存五分钟，库存不缓存。",
    "監控儀表板顯示請求延遲、錯誤率和佇列長度，值班工程師每天檢查。",
    "新成员入职第一周先阅读架构文档，再跟着导师修复一个小问题。",
    "デプロイの前にデータベースのバックアップを必ず確認してください。",
    "検索機能は全文検索エンジンを使い、日本語の形態素解析は行わない。",
    "The search service reads from a replica; writes always go to the primary database.",
    "權限檢查在閘道統一處理，服務內部不再重複驗證使用者身分。",
]
# Two-character words; the `(trad, simp)` pairs are asked in the script the texts do not use as well.
WORDS = [
    "訂單",
    "订单",
    "資料",
    "数据",
    "备份",
    "備份",
    "郵件",
    "邮件",
    "重试",
    "重試",
    "超時",
    "超时",
    "樣式",
    "样式",
    "认证",
    "認證",
    "令牌",
    "部署",
    "合併",
    "合并",
    "測試",
    "测试",
    "日誌",
    "日志",
    "告警",
    "遷移",
    "迁移",
    "緩存",
    "缓存",
    "库存",
    "監控",
    "监控",
    "延遲",
    "延迟",
    "架构",
    "架構",
    "导师",
    "導師",
    "確認",
    "确认",
    "検索",
    "機能",
    "權限",
    "权限",
    "閘道",
    "闸道",
    "身分",
    "服務",
    "服务",
    "前端",
]


# Words of the other region's vocabulary (mainland / Taiwan), with the texts (1-based) that say the same in
# the other one: 資料庫 / 数据库 (database), 佇列 / 队列 (queue), 缓存 / 快取 (cache), 元件 / 组件 (component).
REGIONAL = {"数据库": {1, 9}, "队列": {3, 11}, "快取": {10}, "组件": {5}}

# Corroboration over TEXTS as records: questions of our own, written before the first run (index into TEXTS,
# 1-based; 0 = nothing in TEXTS answers it). Traditional, Simplified and Japanese, as a team asks.
QUESTIONS = [
    ("訂單用的是哪個資料庫？", 1),
    ("备份文件保存多久？", 2),
    ("确认邮件失败会重试几次？", 3),
    ("支付接口的超時是多少？", 4),
    ("认证令牌多久过期？", 6),
    ("资料库迁移什么时候执行？", 9),
    ("商品详情缓存几分钟？", 10),
    ("值班工程师要检查哪些监控指标？", 11),
    ("デプロイ前に何を確認する？", 13),
    ("权限检查在哪里处理？", 16),
    ("烤麵包要多久？", 0),
    ("客服用哪個工單系統？", 0),
    ("公司年假有幾天？", 0),
    ("我们使用什么程式语言写测试？", 0),
    ("办公室的咖啡机坏了找谁？", 0),
    ("会议室怎么预订？", 0),
    ("新年聚餐在哪家餐厅？", 0),
    ("怎麼申請停車位？", 0),
]


def naive_terms(question: str) -> list[str]:
    """Every bigram of the question, none left out, each counted alone (what the chosen terms improve on)."""
    out: list[str] = []
    for m in CJK_RUN.finditer(fold(question)):
        out += [b for b in bigrams(m.group()) if len(b) == 2 and b not in out]
    return out


def corroboration(db: sqlite3.Connection) -> dict[str, dict[str, float]]:
    """Per way of counting: answerable questions whose record reaches CORROBORATION_MIN, and unanswerable
    questions where any record does (a false corroboration)."""
    out = {}
    for name, terms_of, runs_of in (
        ("chosen", fts_terms, bigram_runs),
        ("all_bigrams_each_counted", naive_terms, lambda q: None),
        ("chosen_terms_each_counted", fts_terms, lambda q: None),
    ):
        good = bad = 0
        for q, want in QUESTIONS:
            terms = terms_of(q)
            has = {t: {r[0] for r in db.execute("SELECT rowid FROM b WHERE b MATCH ?", (f'"{t}"',))} for t in terms}
            mass = idf_mass(terms, has, len(TEXTS), runs_of(q))
            if want:
                good += mass.get(want, 0.0) >= CORROBORATION_MIN
            else:
                bad += any(m >= CORROBORATION_MIN for m in mass.values())
        answerable = sum(1 for _, w in QUESTIONS if w)
        out[name] = {
            "answerable_corroborated": round(good / answerable, 3),
            "unanswerable_falsely_corroborated": round(bad / (len(QUESTIONS) - answerable), 3),
        }
    return out


def tables(db: sqlite3.Connection) -> None:
    db.execute("CREATE VIRTUAL TABLE u USING fts5(body, tokenize = 'porter unicode61')")
    db.execute("CREATE VIRTUAL TABLE b USING fts5(body, tokenize = 'porter unicode61')")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize = 'trigram')")


def load(db: sqlite3.Connection, which: str, texts: list[str]) -> float:
    rows = {
        "u": [(x,) for x in texts],
        "b": [(index_text(x),) for x in texts],
        "t": [(fold(x),) for x in texts],
    }[which]
    start = time.perf_counter()
    db.executemany(f"INSERT INTO {which}(body) VALUES(?)", rows)
    db.commit()
    return time.perf_counter() - start


def found(db: sqlite3.Connection, which: str, word: str) -> set[int]:
    if which == "t_like":  # the trigram table's way to a two-character word: LIKE (SQLite 3.40: finds nothing)
        sql, arg = "SELECT rowid FROM t WHERE body LIKE ?", f"%{fold(word)}%"
    elif which == "t_scan":  # what a LIKE could at best do below three characters: read every row
        sql, arg = "SELECT rowid FROM t WHERE instr(body, ?) > 0", fold(word)
    else:
        terms = fts_terms(word) if which == "b" else [word]
        if not terms:
            return set()
        # a word longer than two characters matches where all its bigrams do (as the records search asks)
        sql, arg = f"SELECT rowid FROM {which[0]} WHERE {which[0]} MATCH ?", " AND ".join(f'"{w}"' for w in terms)
    try:
        return {r[0] for r in db.execute(sql, (arg,))}
    except sqlite3.OperationalError:
        return set()


def regional_hit_rate(db: sqlite3.Connection) -> float:
    return round(sum(found(db, "b", w) == want for w, want in REGIONAL.items()) / len(REGIONAL), 3)


def hit_rate(db: sqlite3.Connection) -> dict[str, float]:
    truth = {w: {i + 1 for i, x in enumerate(TEXTS) if fold(w) in fold(x)} for w in WORDS}
    assert all(truth.values()), [w for w, t in truth.items() if not t]  # every word is in some text
    return {
        which: round(sum(found(db, which, w) == truth[w] for w in WORDS) / len(WORDS), 3)
        for which in ("u", "b", "t", "t_like", "t_scan")
    }


def chunks(n: int, seed: int = 7) -> list[str]:
    """n chunks of 4-8 sentences each, drawn from TEXTS with a serial number glued in (no two alike)."""
    rnd = random.Random(seed)
    return [" ".join(rnd.choice(TEXTS) for _ in range(rnd.randint(4, 8))) + f" 第{i}號" for i in range(n)]


def size(path: Path, which: str) -> int:
    db = sqlite3.connect(path)
    got = sum(
        r[0]
        for r in db.execute(
            "SELECT sum(pgsize) FROM dbstat WHERE name LIKE ? ESCAPE '\\' OR name = ?", (f"{which}\\_%", which)
        ).fetchall()
        if r[0]
    )
    db.close()
    return got


def query_ms(db: sqlite3.Connection, which: str, rounds: int = 5) -> float:
    times = []
    for _ in range(rounds):
        for w in WORDS:
            start = time.perf_counter()
            found(db, which, w)
            times.append(time.perf_counter() - start)
    return round(statistics.median(times) * 1000, 3)


def question_ms(db: sqlite3.Connection, rounds: int = 5) -> float:
    """A whole question as recall asks it (index/queries.py `lexical`): its terms OR-ed, bm25-ranked, 200 best."""
    times = []
    for _ in range(rounds):
        for q, _want in QUESTIONS:
            match = " OR ".join(f'"{t}"' for t in fts_terms(q))
            start = time.perf_counter()
            db.execute("SELECT rowid, bm25(b) AS s FROM b WHERE b MATCH ? ORDER BY s LIMIT 200", (match,)).fetchall()
            times.append(time.perf_counter() - start)
    return round(statistics.median(times) * 1000, 3)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chunks", type=int, default=3000)
    ap.add_argument("--out")
    a = ap.parse_args()
    small = sqlite3.connect(":memory:")
    tables(small)
    for which in ("u", "b", "t"):
        load(small, which, TEXTS)
    out: dict[str, object] = {"texts": len(TEXTS), "words": len(WORDS), "hit_rate": hit_rate(small)}
    out["regional_hit_rate"] = regional_hit_rate(small)
    out["corroboration"] = corroboration(small)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fts.sqlite"
        db = sqlite3.connect(path)
        tables(db)
        big = chunks(a.chunks)
        out["chunks"] = len(big)
        out["chunk_chars"] = sum(map(len, big))
        out["index_s"] = {w: round(load(db, w, big), 3) for w in ("u", "b", "t")}
        db.execute("VACUUM")
        out["fts_bytes"] = {w: size(path, w) for w in ("u", "b", "t")}
        out["query_ms_p50"] = {w: query_ms(db, w) for w in ("u", "b", "t", "t_like", "t_scan")}
        out["question_ms_p50"] = question_ms(db)
        db.close()
    out["legend"] = {
        "u": "porter unicode61 over raw text (before)",
        "b": "porter unicode61 over index_text (bigrams, folded)",
        "t": "trigram tokenizer over folded text, MATCH",
        "t_like": "trigram table, LIKE %word% (SQLite " + sqlite3.sqlite_version + ")",
        "t_scan": "trigram table read whole: instr(body, word) > 0",
        "question_ms_p50": "the 18 questions on the bigram table, as recall's lexical query (OR, bm25, 200 best)",
    }
    text = json.dumps(out, indent=2, ensure_ascii=False)
    print(text)
    if a.out:
        Path(a.out).write_text(text + "\n", "utf-8")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
