"""Whether a token reads as generated (a key) or as written (a word, an identifier, a path, a hash). Pure.

Used by the secret scan (candidates/secrets.py) where no provider format says what a token is: a value assigned
to a secret-ish name, a token in a code span, a bare 40-character string, a PEM-width line. Costs are C-side
(translate, findall, Counter) and repeated tokens are judged once, so a body of many tokens stays linear and
cheap.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache

_HEXISH = re.compile(r"^[0-9a-fA-F-]+$")  # git SHAs, digests, UUIDs
MAX_PIECE = 2.8  # mean letters per camel-case piece of a random token (random base64: 1.9, p99 2.8)
_WORD_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values()) if n else 0.0


def _changes(value: str) -> float:
    """How often the character class (small, capital, digit) changes from one letter or digit to the next:
    about 0.6 for random base64, under 0.3 for paths and identifiers made of words."""

    if value.isascii():  # C does it: each letter or digit as its class, runs of a class counted
        classes = value.translate(_CLASS_OF)
        return max(len(_RUNS.findall(classes)) - 1, 0) / max(len(classes) - 1, 1)

    def kind(c: str) -> int:
        return 0 if c.islower() else 1 if c.isupper() else 2

    chars = [c for c in value if c.isalnum()]  # separators (`/`, `_`, `-`) do not make a path look random
    return sum(kind(a) != kind(b) for a, b in zip(chars, chars[1:])) / max(len(chars) - 1, 1)


_CLASS_OF = {
    c: ("a" if chr(c).islower() else "A" if chr(c).isupper() else "0" if chr(c).isdigit() else None) for c in range(128)
}
_RUNS = re.compile(r"a+|A+|0+")


def looks_random(token: str, min_entropy: float, min_changes: float, digits: bool = True, words: bool = True) -> bool:
    """A token that reads as generated: small and capital letters (and `digits`), high entropy, classes mixed
    throughout, and (`words`) no run of word-sized pieces: `RecallAnswerSchemaV2Model` splits into words of 4
    letters on average, random base64 into pieces under 3. Hex strings (git SHAs, digests, UUIDs) never count."""
    if _HEXISH.match(token) or not (re.search("[a-z]", token) and re.search("[A-Z]", token)):
        return False
    if digits and not re.search(r"\d", token):
        return False
    pieces = _WORD_RE.findall(token)
    if words and sum(map(len, pieces)) > MAX_PIECE * len(pieces):
        return False
    return entropy(token) >= min_entropy and _changes(token) >= min_changes


# The scan's entry: a body repeating one token judges it once (looks_random itself stays a plain function).
looks_random_cached = lru_cache(maxsize=4096)(looks_random)
