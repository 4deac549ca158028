"""Nygard / adr-tools ADRs (pure): `# 12. Title`, a `Date:` line and a `## Status` section holding the
status word and link lines (Supersedes/Supercedes, Superseded by, Amends, Amended by); the same shape written in
Chinese (`## 狀態` / `## 状态`, `日期：`)."""

from __future__ import annotations

import re

from ..parse import ParseOutcome
from .common import CHANGELOG_HEAD_RE, AdapterOptions, build, clean_title, first_heading
from .status import first_words, lifecycle_key, lookup, read_lifecycle_keys, read_status

NAME = "nygard"
_STATUS_HEAD_RE = re.compile(r"^#{1,6}\s*(?:status|狀態|状态)\s*[:：]?\s*$", re.IGNORECASE)
_HEAD_RE = re.compile(r"^#{1,6}\s")
_STATUS_LINE_RE = re.compile(
    r"^\s*(?:[*+-]\s+)?[*_]*(?:status|狀態|状态)[*_]*\s*[:：]\s*[*_]*\s*(.+?)\s*$", re.IGNORECASE
)  # `Status: X`, `**Status:** X`, and a bullet anywhere in the header: `* Status: X` under `## Metadata`
_KEY_LINE_RE = re.compile(r"^\s*(?:[*+-]\s+)?[*_]*([A-Za-z][A-Za-z _-]*?)[*_]*\s*:\s*[*_]*\s*(.+?)\s*$")
_ROW_RE = re.compile(r"^\s*\|(.*)\|\s*$")
_SEPARATOR_RE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_STATUS_CELL = frozenset({"status", "狀態", "状态"})
HEADER_LINES = 40  # where a `Status:` line, a status table row or a lifecycle key line is looked for
_DATE_LINE_RE = re.compile(r"^\s*[*_]*(?:date|日期)[*_]*\s*[:：]\s*[*_]*\s*(.+?)\s*$", re.IGNORECASE)
# `Reviewed: <sha> on <date>` (records/formats/reviewed.py writes it under the `Date:` line), also as a bullet
_REVIEWED_LINE_RE = re.compile(r"^\s*(?:[*+-]\s+)?[*_]*reviewed[*_]*\s*[:：]\s*[*_]*\s*(.+?)\s*$", re.IGNORECASE)


def date_line(lines: list[str]) -> int | None:
    """The 1-based line of the header's `Date:` line, None when it has none."""
    return next((i + 1 for i, line in enumerate(lines[:HEADER_LINES]) if _DATE_LINE_RE.match(line)), None)


def reviewed_line(lines: list[str]) -> tuple[int, str] | None:
    """(1-based line, value) of the header's `Reviewed:` line, None when it has none."""
    for i, line in enumerate(lines[:HEADER_LINES]):
        m = _REVIEWED_LINE_RE.match(line)
        if m:
            return i + 1, m.group(1)
    return None


def status_section(lines: list[str]) -> list[tuple[int, str]] | None:
    """(1-based line, text) of the lines under a `Status` heading, or None when there is none."""
    for i, line in enumerate(lines):
        if _STATUS_HEAD_RE.match(line.strip()):
            out = []
            for j in range(i + 1, len(lines)):
                if _HEAD_RE.match(lines[j]):
                    break
                out.append((j + 1, lines[j]))
            return out
    return None


def status_line(lines: list[str]) -> list[tuple[int, str]] | None:
    for i, line in enumerate(lines[:HEADER_LINES]):
        m = _STATUS_LINE_RE.match(line)
        if m:
            return [(i + 1, m.group(1))]
    return None


def _cells(line: str) -> list[str] | None:
    m = _ROW_RE.match(line)
    return [c.strip() for c in m.group(1).split("|")] if m else None


def _cell_name(cell: str) -> str:
    return re.sub(r"[*_`]", "", cell).strip().rstrip(":：").strip().lower()


def table_status(lines: list[str], status_map: dict[str, str] | None = None) -> list[tuple[int, str]] | None:
    """(line, value) of a status written in a Markdown table near the top: a `| Status | Accepted |` row, or
    the cell under a `| Status |` column heading of a table with one row (several rows are a list of tasks or
    versions, not this record's status). Change-log tables are the change log's (records/formats/common.py)."""
    fence = False
    for i, line in enumerate(lines[: HEADER_LINES * 2]):
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
        if CHANGELOG_HEAD_RE.match(line.strip()):
            return None
        cells = None if fence else _cells(line)
        if not cells or _SEPARATOR_RE.match(line):
            continue
        names = [_cell_name(c) for c in cells]
        at = next((j for j, n in enumerate(names) if n in _STATUS_CELL), None)
        if at is None:
            continue
        right = cells[at + 1] if at + 1 < len(cells) else ""
        header = i + 1 < len(lines) and bool(_SEPARATOR_RE.match(lines[i + 1]))
        pair = right and (not header or lookup(first_words(right), status_map or {})[0] is not None)
        if pair:  # `| Status | Accepted |`, also as a table's first row
            return [(i + 1, right)]
        below = _cells(lines[i + 2]) if header and i + 2 < len(lines) else None
        more = i + 3 < len(lines) and _cells(lines[i + 3]) is not None  # a list of tasks, not one record's row
        if below and at < len(below) and below[at] and not more:
            return [(i + 3, below[at])]
    return None


def lifecycle_lines(lines: list[str]) -> list[tuple[int, str, str]]:
    """(line, key, value) of `Superseded-by: X`-like lines (also bullets, bold) in the header."""
    out = []
    for i, line in enumerate(lines[:HEADER_LINES]):
        m = _KEY_LINE_RE.match(line)
        if m and lifecycle_key(m.group(1)) is not None:
            out.append((i + 1, m.group(1), m.group(2)))
    return out


def read(path: str, raw: bytes, text: str, options: AdapterOptions) -> ParseOutcome:
    lines = text.splitlines()
    h, heading = first_heading(lines)
    section = status_section(lines)
    source = "a `## Status` section"
    if section is None:
        section, source = status_line(lines), "a `Status:` line"
    if section is None:
        section, source = table_status(lines, options.status_map) or [], "a `| Status |` table row"
    status = read_status(section, path, options.status_map)
    status.source = source if section else ""
    read_lifecycle_keys(status, lifecycle_lines(lines), path)
    dated = date_line(lines)
    m = _DATE_LINE_RE.match(lines[dated - 1]) if dated is not None else None
    date = m.group(1) if m else None
    reviewed = reviewed_line(lines)
    body = "\n".join(lines[h + 1 :]) if h is not None else text
    return build(
        path,
        raw,
        NAME,
        clean_title(heading) if heading else None,
        body,
        status,
        options,
        date=date,
        metadata={"reviewed": reviewed[1]} if reviewed else None,
        title_line=h + 1 if h is not None else None,
    )
