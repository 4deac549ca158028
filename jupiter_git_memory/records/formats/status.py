"""ADR status words → our statuses, and status lines → status plus links (pure).

The table is documented in the README ("Existing ADRs") and extended by `[status_map]` in jgm.toml. A word
in neither is an error for that file: a guessed status would change what agents are told.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from .ids import link_targets

ADR_STATUSES = ("proposed", "accepted", "rejected", "deprecated", "superseded")
STATUS_TABLE: dict[str, str] = {
    "accepted": "accepted",
    "approved": "accepted",
    "agreed": "accepted",
    "proposed": "proposed",
    "draft": "proposed",
    "pending": "proposed",
    "in progress": "proposed",
    "on hold": "proposed",
    "incomplete": "proposed",
    "rejected": "rejected",
    "declined": "rejected",
    "deprecated": "deprecated",
    "obsolete": "deprecated",
    "superseded": "superseded",
}
# Link lines of a status section, longest first. relation: the Record field the targets go to.
_LINK_VERBS = (
    ("partly superseded by", "amended_by"),
    ("partially superseded by", "amended_by"),
    ("partly superseded", "amended_by"),
    ("partially superseded", "amended_by"),
    ("partly supersedes", "amends"),
    ("partially supersedes", "amends"),
    ("superseded by", "superseded_by"),
    ("superceded by", "superseded_by"),
    ("supersedes", "supersedes"),
    ("supercedes", "supersedes"),
    ("amended by", "amended_by"),
    ("amends", "amends"),
    ("superseded", "superseded_by"),
    ("superceded", "superseded_by"),
)
# "accepted, supersedes adr-0002": a status value may carry link clauses after a comma or semicolon
_CLAUSE_RE = re.compile(
    r"\s*[,;]\s*(?=(?:partly|partially|supersedes|supercedes|superseded|superceded|amends|amended)\b)", re.IGNORECASE
)
_SENTENCE_RE = re.compile(r"[.;]\s|\s[—–-]\s")
_COMMENT_RE = re.compile(r"<!--.*?-->", re.DOTALL)
_LEAD_RE = re.compile(r"^[^\w\[]+", re.UNICODE)  # emoji, bullets, symbols
_PAREN_RE = re.compile(r"\s*\([^()]*\)\s*$")
_DATE_TAIL_RE = re.compile(r"\s+(?:on\s+|since\s+)?\d{4}-\d{2}-\d{2}$", re.IGNORECASE)


def normalise(text: str) -> str:
    """The status as a table key: no emoji or emphasis, no trailing parenthetical or date, lower case."""
    t = _COMMENT_RE.sub(" ", text).replace("*", "").replace("`", "").strip()
    t = _LEAD_RE.sub("", t).strip().strip("_").strip()
    prev = None
    while prev != t:
        prev = t
        t = _PAREN_RE.sub("", t)
        t = _DATE_TAIL_RE.sub("", t)
        t = t.rstrip(" .:;,!-_").strip()
    return " ".join(t.split()).lower()


@dataclass
class StatusReading:
    """What a status section or value says. `status` is None when no status word was found."""

    status: str | None = None
    written: str | None = None  # the status as written
    line: int | None = None
    rule: str = ""  # why: table, [status_map], a link line, missing
    unknown: tuple[str, int | None] | None = None  # (key, line) of a word in no table
    links: dict[str, list[str]] = field(default_factory=dict)  # relation -> ids
    other_links: list[str] = field(default_factory=list)  # link lines of verbs we do not know


def map_word(key: str, status_map: dict[str, str]) -> tuple[str | None, str]:
    if key in status_map:
        return status_map[key], "[status_map] in jgm.toml"
    if key in STATUS_TABLE:
        return STATUS_TABLE[key], "status table"
    return None, ""


def read_status(lines: Sequence[tuple[int | None, str]], path: str, status_map: dict[str, str]) -> StatusReading:
    """Read a status section (or one status value) given as (line number, text) pairs."""
    out = StatusReading()
    lines = [(n, part) for n, raw in lines for part in _CLAUSE_RE.split(raw)]
    for n, raw in lines:
        text = _COMMENT_RE.sub(" ", raw).strip()
        key = normalise(text)
        if not key:
            continue
        verb = next(((v, rel) for v, rel in _LINK_VERBS if key.startswith(v)), None)
        if verb and verb[0] not in status_map:
            v, rel = verb
            targets = link_targets(_after_verb(text, v), path)
            out.links.setdefault(rel, []).extend(t for t in targets if t not in out.links.get(rel, []))
            if rel == "superseded_by":
                out.status, out.written, out.line, out.rule = "superseded", text, n, f"link line `{v}`"
            elif rel == "amended_by" and v.startswith(("partly", "partially")) and out.status is None:
                out.written, out.line, out.rule = text, n, f"`{v}`: still in force, amended"
            continue
        if "](" in text and out.status is not None:
            out.other_links.append(text)
            continue
        if out.status is not None or out.unknown is not None:
            continue
        status, rule = map_word(key, status_map)
        if status is None:  # "Proposed. We could not agree, but …": commentary after the first sentence
            first = normalise(_SENTENCE_RE.split(text, maxsplit=1)[0])
            status, rule = map_word(first, status_map) if first != key else (None, "")
        if status is None:
            if "](" in text:
                out.other_links.append(text)
                continue
            out.unknown = (key, n)
            out.written = text
            continue
        out.status, out.written, out.line, out.rule = status, text, n, rule
    if out.status is None and out.unknown is None and "amended_by" in out.links and out.rule:
        out.status = "accepted"  # "Partly superseded": the record is still in force
    if out.status == "superseded":
        out.unknown = None  # a "Superseded by" line settles it, whatever word stood before
    return out


def _after_verb(text: str, verb: str) -> str:
    m = re.search(r"\s+".join(map(re.escape, verb.split())), text, re.IGNORECASE)
    return text[m.end() :] if m else text
