"""`reviewed:`: a person re-read a record against the code it cites, at a commit (pure; dec-drift-confirm).

`jgm drift confirm` writes it as one line in the place the record's format has for such a line, and changes
nothing else in the file, byte for byte (line endings, a BOM, the order and quoting of every other key):
- our front matter and MADR 3/4 front matter: a `reviewed:` key (replaced where it is, else added last);
- Nygard / adr-tools: a `Reviewed:` line in the header (replaced, else under the `Date:` line, else under
  the title);
- MADR 2, log4brains and numbered files without a status: a `* Reviewed:` bullet among the header bullets.

The value is `<commit sha> on <YYYY-MM-DD>`. The readers keep it in the record's `metadata` (records/parse.py
as any other key, the adapters from their line), and seed/drift.py makes the commit the record's drift
baseline. A value without a commit (`reviewed: 2026-12-01`, as the docs once suggested) is kept and names
no baseline.
"""

from __future__ import annotations

import re
from typing import Any

from ..model import REVIEWED_KEY
from . import madr, nygard

_SHA = re.compile(r"(?<![0-9A-Za-z])([0-9a-fA-F]{7,64})(?![0-9A-Za-z])")
_FENCE = re.compile(r"\A(?:\ufeff)?---[ \t]*\Z")
_END_FENCE = re.compile(r"\A-{3,}\s*\Z")
_KEY = re.compile(rf"\A({REVIEWED_KEY})\s*:", re.IGNORECASE)
_VALUE = re.compile(r"\A(\s*(?:[*+-]\s+)?[*_]*reviewed[*_]*\s*[:：]\s*[*_]*\s*)(.*?)(\s*)\Z", re.IGNORECASE)
_BULLET = re.compile(r"\A\s*[*+-]\s+")
_CONTINUED = re.compile(r"\A(?:[ \t]|-(?!--))")  # a YAML value's next lines: indented, or a `- item`
FRONT_MATTER = ("jgm", "madr3")
HEADER_LINE = (nygard.NAME,)
BULLETS = (madr.NAME2, "log4brains", "plain")


class NoPlace(ValueError):
    """The file has no place the format allows the line in (no front matter, no title): the message says why."""


def value(commit: str, day: str) -> str:
    return f"{commit} on {day}"


def reviewed_text(data: dict[str, Any]) -> str | None:
    """The `reviewed` value a stored record holds (its data, as the catalog keeps it), as written."""
    meta = data.get("metadata")
    if not isinstance(meta, dict):
        return None
    got = next((v for k, v in meta.items() if str(k).lower() == REVIEWED_KEY), None)
    return None if got is None or isinstance(got, (dict, list)) else str(got)


def reviewed_commit(data: dict[str, Any]) -> str | None:
    """The commit a `reviewed` value names (lower-case hex, possibly abbreviated), None when it names none."""
    text = reviewed_text(data)
    m = _SHA.search(text) if text else None
    return m.group(1).lower() if m else None


def write(raw: bytes, fmt: str, val: str) -> tuple[bytes, int]:
    """`raw` with its reviewed line set to `val` (replaced where it is, else added), and that line's 1-based
    number. NoPlace when the format has no place for it here; ValueError for a file that is not UTF-8."""
    text = raw.decode("utf-8")
    lines = text.split("\n")  # each part but the last lost its "\n"; a "\r" stays on its line
    if fmt in FRONT_MATTER:
        at, line = _front_matter(lines, val)
    elif fmt in HEADER_LINE:
        at, line = _header_line(lines, val)
    elif fmt in BULLETS:
        at, line = _bullet(lines, val)
    else:
        raise NoPlace(f"the {fmt} format has no place for a `reviewed` line")
    return "\n".join(lines).encode("utf-8"), at + 1


def _bare(line: str) -> str:
    return line[:-1] if line.endswith("\r") else line


def _insert(lines: list[str], at: int, text: str, like: int) -> tuple[int, str]:
    """Insert `text` as line `at`, ending as line `like` ends (CRLF or LF)."""
    lines.insert(at, text + ("\r" if lines[like].endswith("\r") else ""))
    return at, text


def _replace(lines: list[str], at: int, text: str, upto: int | None = None) -> tuple[int, str]:
    """Replace line `at` (and the lines up to `upto`, exclusive) by `text`, keeping its line ending."""
    cr = "\r" if lines[at].endswith("\r") else ""
    lines[at : (upto or at + 1)] = [text + cr]
    return at, text


def _front_matter(lines: list[str], val: str) -> tuple[int, str]:
    if not lines or not _FENCE.match(_bare(lines[0])):
        raise NoPlace("the file has no front matter (`---` on its first line)")
    end = next((i for i in range(1, len(lines)) if _END_FENCE.match(_bare(lines[i]))), None)
    if end is None:
        raise NoPlace("the front matter is not closed (no `---` line after it)")
    for i in range(1, end):
        m = _KEY.match(lines[i])
        if m:
            stop = i + 1
            while stop < end and _CONTINUED.match(lines[stop]):
                stop += 1
            return _replace(lines, i, f"{m.group(1)}: {val}", stop)
    return _insert(lines, end, f"{REVIEWED_KEY}: {val}", end)


def _replaced_value(lines: list[str], at: int, val: str) -> tuple[int, str]:
    m = _VALUE.match(_bare(lines[at]))
    assert m is not None  # located by the same pattern
    return _replace(lines, at, m.group(1) + val)


def _title(lines: list[str]) -> int:
    from .common import first_heading

    h, _ = first_heading([_bare(x) for x in lines])
    if h is None:
        raise NoPlace("the file has no `# ` title to put the line under")
    return h


def _header_line(lines: list[str], val: str) -> tuple[int, str]:
    bare = [_bare(x) for x in lines]
    found = nygard.reviewed_line(bare)
    if found is not None:
        return _replaced_value(lines, found[0] - 1, val)
    dated = nygard.date_line(bare)
    at = dated - 1 if dated is not None else _title(lines)
    prefix = m.group(0) if dated is not None and (m := _BULLET.match(bare[at])) else ""
    return _insert(lines, at + 1, f"{prefix}Reviewed: {val}", at)


def _bullet(lines: list[str], val: str) -> tuple[int, str]:
    bare = [_bare(x) for x in lines]
    found = madr.bullets(bare)
    if REVIEWED_KEY in found:
        return _replaced_value(lines, found[REVIEWED_KEY][0] - 1, val)
    anchor = next((found[k][0] - 1 for k in ("status", "date") if k in found), None)
    if anchor is None and found:
        anchor = min(n for n, _ in found.values()) - 1
    if anchor is None:
        at = _title(lines)
        return _insert(lines, at + 1, f"- Reviewed: {val}", at)
    prefix = m.group(0) if (m := _BULLET.match(bare[anchor])) else "* "
    last = anchor
    while last + 1 < len(bare) and (_BULLET.match(bare[last + 1]) or bare[last + 1].startswith(("  ", "\t"))):
        last += 1  # the end of the header's list: its bullets and their continuation lines
    return _insert(lines, last + 1, f"{prefix}Reviewed: {val}", last)
