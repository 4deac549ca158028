"""Nygard / adr-tools ADRs (pure): `# 12. Title`, a `Date:` line and a `## Status` section holding the
status word and link lines (Supersedes/Supercedes, Superseded by, Amends, Amended by); the same shape written in
Chinese (`## 狀態` / `## 状态`, `日期：`)."""

from __future__ import annotations

import re

from ..parse import ParseOutcome
from .common import AdapterOptions, build, clean_title, first_heading
from .status import read_status

NAME = "nygard"
_STATUS_HEAD_RE = re.compile(r"^#{1,6}\s*(?:status|狀態|状态)\s*[:：]?\s*$", re.IGNORECASE)
_HEAD_RE = re.compile(r"^#{1,6}\s")
_STATUS_LINE_RE = re.compile(r"^\s*[*_]*(?:status|狀態|状态)[*_]*\s*[:：]\s*[*_]*\s*(.+?)\s*$", re.IGNORECASE)
_DATE_LINE_RE = re.compile(r"^\s*[*_]*(?:date|日期)[*_]*\s*[:：]\s*[*_]*\s*(.+?)\s*$", re.IGNORECASE)


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
    for i, line in enumerate(lines[:40]):
        m = _STATUS_LINE_RE.match(line)
        if m:
            return [(i + 1, m.group(1))]
    return None


def read(path: str, raw: bytes, text: str, options: AdapterOptions) -> ParseOutcome:
    lines = text.splitlines()
    h, heading = first_heading(lines)
    section = status_section(lines)
    source = "a `## Status` section"
    if section is None:
        section, source = status_line(lines) or [], "a `Status:` line"
    status = read_status(section, path, options.status_map)
    status.source = source if section else ""
    date = None
    for line in lines[:40]:
        m = _DATE_LINE_RE.match(line)
        if m:
            date = m.group(1)
            break
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
        title_line=h + 1 if h is not None else None,
    )
