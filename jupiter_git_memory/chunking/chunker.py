"""Split a record into embedding chunks.

Why this shape: a record's meaning lives in its title and in its sections, so every chunk carries the
title (and the heading it sits under), paragraphs are never split unless one alone exceeds the budget,
and short records stay one chunk. Token counting is injected so the chunker stays pure and model-agnostic.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass

CHUNKER_VERSION = "md-heading-paragraph-1"
_HEADING_RE = re.compile(r"^(#{1,6})\s+(.*\S)\s*$")
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+")

TokenCounter = Callable[[str], int]


@dataclass(frozen=True)
class Chunk:
    ordinal: int
    text: str  # what is embedded: title + heading + body part
    body: str  # the body part alone (snippets, lexical index)

    @property
    def hash(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


def _sections(body: str) -> list[tuple[str, list[str]]]:
    """[(heading, [paragraph, ...])] with fenced code blocks kept whole."""
    sections: list[tuple[str, list[str]]] = [("", [])]
    para: list[str] = []
    in_fence = False

    def flush() -> None:
        if para:
            sections[-1][1].append("\n".join(para).strip())
            para.clear()

    for line in body.splitlines():
        if line.strip().startswith("```"):
            in_fence = not in_fence
        m = None if in_fence else _HEADING_RE.match(line)
        if m:
            flush()
            sections.append((m.group(2), []))
        elif not in_fence and not line.strip():
            flush()
        else:
            para.append(line)
    flush()
    return [(h, [p for p in ps if p]) for h, ps in sections if h or ps]


def _split_long(text: str, budget: int, count: TokenCounter) -> list[str]:
    """Split one oversized paragraph by sentences, then by words."""
    pieces = _SENTENCE_RE.split(text)
    if len(pieces) == 1:
        pieces = text.split()
    out: list[str] = []
    cur = ""
    for piece in pieces:
        cand = f"{cur} {piece}".strip()
        if cur and count(cand) > budget:
            out.append(cur)
            cur = piece
        else:
            cur = cand
    if cur:
        out.append(cur)
    # a single word longer than the budget is left to the tokenizer's truncation
    return out


def chunk_record(title: str, body: str, max_tokens: int, count: TokenCounter) -> list[Chunk]:
    """Chunks whose `text` fits in `max_tokens` (as measured by `count`), each prefixed with the title."""
    title = title.strip()
    if count(f"{title}\n\n{body}") <= max_tokens:
        return [Chunk(0, f"{title}\n\n{body}".strip(), body.strip())]
    chunks: list[Chunk] = []
    for heading, paragraphs in _sections(body):
        prefix = f"{title}\n{heading}".strip() if heading and heading != title else title
        budget = max(16, max_tokens - count(prefix) - 2)
        units: list[str] = []
        for p in paragraphs or ([heading] if heading else []):
            units.extend(_split_long(p, budget, count) if count(p) > budget else [p])
        cur: list[str] = []
        for u in units:
            if cur and count("\n\n".join(cur + [u])) > budget:
                part = "\n\n".join(cur)
                chunks.append(Chunk(len(chunks), f"{prefix}\n\n{part}", part))
                cur = [u]
            else:
                cur.append(u)
        if cur:
            part = "\n\n".join(cur)
            chunks.append(Chunk(len(chunks), f"{prefix}\n\n{part}", part))
    return chunks or [Chunk(0, title, "")]
