"""A word-level diff of two texts for the reviewer, with numbers and negations marked.

Why words and not characters or lines: a near-duplicate differs in a few words ("1,860" vs "2,470",
"not"), and those are exactly what decides whether it restates or corrects. The marks use the same
number and negation rules as the near-duplicate check (dedup), so what the page highlights is what made
the check say "the numbers differ" or "one is negated".

Two questions, two vocabularies. A revision is a change in time, `before → after`: words left out are
REMOVED, new ones ADDED (`word_diff`). A near-duplicate is no change at all: the candidate and the existing
record are two texts side by side, and a word only one of them has DIFFERS (`compare`) on either side. Marking
the candidate's own words as removed (struck through in red) told the reviewer they were deleted (issue 37).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from .dedup import is_negation, is_number

SAME, REMOVED, ADDED, DIFFERS = "same", "removed", "added", "differs"
MAX_WORDS = 3000  # per side: difflib is quadratic at worst, and a review page must answer in well under a second
# a number with its separators ("1,860", "2.5"), a word with inner apostrophes/hyphens, or one symbol
_TOKEN = re.compile(r"(\s*)(\d[\d,.]*\d|\d|[\w'’-]+|[^\w\s])")


@dataclass(frozen=True)
class Piece:
    """One word of one side: its text, the space before it, and whether it changed."""

    text: str
    space: str
    change: str  # SAME, or how the word differs: REMOVED/ADDED (word_diff), DIFFERS (compare)
    number: bool
    negation: bool

    @property
    def marked(self) -> bool:
        """A changed number or negation: the words the reviewer must look at first."""
        return self.change != SAME and (self.number or self.negation)


@dataclass(frozen=True)
class WordDiff:
    left: list[Piece]
    right: list[Piece]
    truncated: bool = False  # a side had more than MAX_WORDS words: only the first ones were compared

    @property
    def changed_numbers(self) -> tuple[list[str], list[str]]:
        return (
            [p.text for p in self.left if p.change != SAME and p.number],
            [p.text for p in self.right if p.change != SAME and p.number],
        )

    @property
    def changed_negations(self) -> tuple[list[str], list[str]]:
        return (
            [p.text for p in self.left if p.change != SAME and p.negation],
            [p.text for p in self.right if p.change != SAME and p.negation],
        )


def _tokens(text: str) -> list[tuple[str, str]]:
    """(space before, word) pairs; runs of whitespace become one space (the diff is shown as flowing text)."""
    return [(" " if m.group(1) else "", m.group(2)) for m in _TOKEN.finditer(text)]


def _piece(tok: tuple[str, str], change: str) -> Piece:
    space, word = tok
    return Piece(word, space, change, is_number(word), is_negation(word))


def word_diff(a: str, b: str, max_words: int = MAX_WORDS, left: str = REMOVED, right: str = ADDED) -> WordDiff:
    """`a` (before) against `b` (after): words only in `a` are `left` (REMOVED), only in `b` `right` (ADDED).
    Words compare case-insensitively, so a capital at a sentence start is not a change."""
    ta, tb = _tokens(a), _tokens(b)
    truncated = len(ta) > max_words or len(tb) > max_words
    ta, tb = ta[:max_words], tb[:max_words]
    sm = difflib.SequenceMatcher(None, [w.lower() for _, w in ta], [w.lower() for _, w in tb], autojunk=False)
    lp: list[Piece] = []
    rp: list[Piece] = []
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            lp += [_piece(t, SAME) for t in ta[i1:i2]]
            rp += [_piece(t, SAME) for t in tb[j1:j2]]
        else:  # replace, delete, insert
            lp += [_piece(t, left) for t in ta[i1:i2]]
            rp += [_piece(t, right) for t in tb[j1:j2]]
    return WordDiff(lp, rp, truncated)


def compare(candidate: str, existing: str, max_words: int = MAX_WORDS) -> WordDiff:
    """A candidate beside an existing record or candidate: the words only one side has DIFFER, on both sides
    alike (neither text replaces the other)."""
    return word_diff(candidate, existing, max_words, left=DIFFERS, right=DIFFERS)
