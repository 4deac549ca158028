"""The language a text is written in, told by its scripts: enough to choose a model and a no-match floor.

Why scripts and not a language model: the decisions that depend on it are coarse (does an English-only
model cover these records? which probes measured the floor a question is held to?), a Chinese record with
English terms mixed in must still count as Chinese, and the answer must be the same on every machine with
no data file. Han characters with kana are Japanese, with Hangul Korean, alone Chinese; Latin letters
alone are English for our purposes (the English probes and models cover them); anything else is "other".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

EN, ZH, JA, KO, OTHER = "en", "zh", "ja", "ko", "other"
CJK = frozenset({ZH, JA, KO})
# A text is CJK when its CJK characters make up this share of its letters: a Chinese sentence holds about one
# character per word, an English one five letters per word, so 0.15 already means mostly CJK words.
CJK_SHARE = 0.15


def _script(ch: str) -> str | None:
    o = ord(ch)
    if 0x4E00 <= o <= 0x9FFF or 0x3400 <= o <= 0x4DBF or 0xF900 <= o <= 0xFAFF or 0x20000 <= o <= 0x2FA1F:
        return "han"
    if 0x3040 <= o <= 0x30FF or 0x31F0 <= o <= 0x31FF or 0xFF66 <= o <= 0xFF9D:
        return "kana"
    if 0xAC00 <= o <= 0xD7AF or 0x1100 <= o <= 0x11FF or 0x3130 <= o <= 0x318F:
        return "hangul"
    if ch.isascii():
        return "latin" if ch.isalpha() else None
    if ch.isalpha():
        # Latin-1 and Latin Extended letters (é, ñ, ß) still read as Latin; Cyrillic, Greek, Arabic... as other
        return "latin" if o < 0x0250 or 0xFF21 <= o <= 0xFF5A else "other"
    return None


def script_counts(text: str) -> Counter[str]:
    """How many letters of each script `text` holds (punctuation, digits and spaces are not counted)."""
    counts: Counter[str] = Counter()
    for ch in text:
        s = _script(ch)
        if s:
            counts[s] += 1
    return counts


def language_of(text: str) -> str:
    """en | zh | ja | ko | other; "en" for a text with no letters at all (an id, a number)."""
    c = script_counts(text)
    cjk = c["han"] + c["kana"] + c["hangul"]
    total = cjk + c["latin"] + c["other"]
    if total == 0:
        return EN
    if cjk / total >= CJK_SHARE or (cjk and not c["latin"] and not c["other"]):
        if c["kana"]:
            return JA
        if c["hangul"] > c["han"]:
            return KO
        return ZH
    if c["other"] > c["latin"]:
        return OTHER
    return EN


def languages(texts: Iterable[str]) -> dict[str, int]:
    """How many of `texts` are written in each language (sorted by count, most first)."""
    counts = Counter(language_of(t) for t in texts)
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def needs_multilingual(counts: dict[str, int], min_records: int = 3, min_share: float = 0.05) -> bool:
    """Whether records in languages other than English are numerous enough that an English-only model
    would leave them unfindable: at least `min_records` of them, or `min_share` of a small corpus."""
    total = sum(counts.values())
    foreign = total - counts.get(EN, 0)
    return foreign > 0 and (foreign >= min_records or foreign / max(total, 1) >= min_share)
