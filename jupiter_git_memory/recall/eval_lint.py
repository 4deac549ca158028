"""The eval lint: a question that repeats a run of its expected record's words tests string matching,
not recall. Pure: texts in, findings out."""

from __future__ import annotations

import re

from .ranking import STOPWORDS

_WORD = re.compile(r"[a-z0-9][a-z0-9_]*")
RUN = 4  # a shared run of more than 3 content words is flagged
# negations and modal verbs carry meaning in a question ("has no answer"), so the lint keeps them
LINT_STOPWORDS = STOPWORDS - {"no", "not", "any", "all", "use", "used", "using", "should", "must", "can"}


def _stem(w: str) -> str:
    """A crude suffix strip, enough that "decides" still matches "decide" in a copied phrase."""
    for suffix in ("ing", "ies", "ed", "es", "s"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix):
            w = w[: -len(suffix)]
            break
    return w[:-1] if len(w) > 4 and w.endswith("e") else w


def content_words(text: str) -> list[str]:
    """Lower-cased, suffix-stripped words without stopwords, in order (where a copied phrase survives)."""
    return [_stem(w) for w in _WORD.findall(text.lower()) if w not in LINT_STOPWORDS]


def shared_run(question: str, record_text: str, n: int = RUN) -> str | None:
    """The first run of `n` consecutive content words of `question` that also occurs, in order and
    consecutively, among the content words of `record_text`; None when there is none."""
    q = content_words(question)
    r = content_words(record_text)
    grams = {tuple(r[i : i + n]) for i in range(len(r) - n + 1)}
    for i in range(len(q) - n + 1):
        if tuple(q[i : i + n]) in grams:
            return " ".join(q[i : i + n])
    return None
