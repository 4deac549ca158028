"""A task goal split into its concerns. Pure.

Why: "add a carrier with rate caching and VAT rounding" asked as one query is an average of three topics,
and each topic's record can fall just under the floor although asked alone each is found. Task recall asks
the whole goal and each concern, each under its own floor, and fuses the answers (recall/fusion.py).

The split is by sentences, then clauses (commas, semicolons, and connectives such as "and", "with",
"including", "then", "after"), merging a fragment too small to be a concern (one content word) into its
neighbour. Fragments are asked as written: a concern names its topic, the goal around it is asked anyway.
"""

from __future__ import annotations

import re

MAX_CONCERNS = 5  # each concern is one more recall: this bounds the cost of a long goal
_SENTENCES = re.compile(r"(?<=[.!?;:])\s+|\n+\s*(?:[-*•]\s+|\d+[.)]\s+)?|^\s*(?:[-*•]\s+|\d+[.)]\s+)")
_CLAUSES = re.compile(
    r"\s*,\s*(?:(?:and|then|with|plus|including|also)\s+)?|\s+(?:and|with|plus|including|as well as|then|also|while|"
    r"after|before|but|so that|without)\s+",
    re.IGNORECASE,
)
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_'./-]*")
_STOP = frozenset(
    """a an the this that these those it its to of in on for by at from as is are be been being do does did
make sure must should can could would will we i you they our my your their also then so some any all each
every both one new way how what which when where why who please need needs want let us just only more""".split()
)


def content_words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _STOP]


def split_concerns(goal: str, limit: int = MAX_CONCERNS) -> list[str]:
    """The concerns of `goal`, in order; a goal of one concern gives `[]` (the goal is asked anyway)."""
    parts: list[str] = []
    for sentence in _SENTENCES.split(goal):
        for clause in _CLAUSES.split(sentence or ""):
            text = clause.strip(" \t.,;:!?-")
            if not text:
                continue
            if parts and len(content_words(text)) < 2:
                parts[-1] = f"{parts[-1]} {text}"  # too small to be a concern on its own
            else:
                parts.append(text)
    if parts and len(parts) > 1 and len(content_words(parts[0])) < 2:
        parts[1] = f"{parts[0]} {parts[1]}"
        parts = parts[1:]
    parts = list(dict.fromkeys(parts))
    return parts[:limit] if len(parts) > 1 else []
