"""The ADR id rule and link targets (pure). Ids are how agents cite records, so the rule is fixed and
documented in the README ("Existing ADRs"):

1. A date-named file (`20201016-use-slugs.md`, `2020-10-16-use-slugs.md`) keeps its file name as id:
   `20201016-use-slugs` (log4brains calls this the slug).
2. A numbered file (`0012-x.md`, `12-x.md`, `adr-012-x.md`, `ADR-0012.md`) is `ADR-` plus the number
   padded to four digits: `ADR-0012`.
3. Any other file keeps its file name: `use-postgres`.
Characters outside the id alphabet become `-`.
"""

from __future__ import annotations

import datetime as _dt
import re
from posixpath import basename, dirname, join, normpath

_DATE_RE = re.compile(r"^(\d{4})-?(\d{2})-?(\d{2})[-_.]")
_NUM_RE = re.compile(r"^(?:adr)?[-_ ]?0*(\d{1,7})(?=[-_. ]|$)", re.IGNORECASE)
_BAD_CHARS = re.compile(r"[^A-Za-z0-9._:-]+")
# A bare reference to a numbered ADR: `0002`, `2`, `#2`, `ADR-2`, `adr-0002`, `ADR 2`, `ADR0002`.
_NUM_REF_RE = re.compile(r"^(?:adr[-_ #]?|#)?0*(\d{1,7})$", re.IGNORECASE)
_MD_LINK_RE = re.compile(r"\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def stem(path: str) -> str:
    name = basename(path)
    for ext in (".markdown", ".md"):
        if name.lower().endswith(ext):
            return name[: -len(ext)]
    return name


def _is_date(m: re.Match[str]) -> bool:
    try:
        _dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        return True
    except ValueError:
        return False


def number_id(n: int | str) -> str:
    return f"ADR-{int(n):04d}"


def date_named(path: str) -> bool:
    m = _DATE_RE.match(stem(path))
    return bool(m and _is_date(m))


def numbered(path: str) -> bool:
    return not date_named(path) and bool(_NUM_RE.match(stem(path)))


def adr_id(path: str) -> tuple[str, str]:
    """(id, which rule gave it) for the ADR file at `path`."""
    s = stem(path)
    m = _DATE_RE.match(s)
    if m and _is_date(m):
        return _clean(s), "date-named file: the file name"
    m = _NUM_RE.match(s)
    if m:
        return number_id(m.group(1)), f"numbered file: ADR- and the number {int(m.group(1))} padded to 4 digits"
    return _clean(s), "file name (no number or date prefix)"


def _clean(s: str) -> str:
    return _BAD_CHARS.sub("-", s).strip("-._:")[:128] or "adr"


def ref_id(token: str) -> str:
    """A written reference (`0002`, `ADR-2`, `0002-x.md`, a slug) in the form the id rule gives."""
    t = token.strip().strip("`*_[]()<>.,;:").strip()
    m = _NUM_REF_RE.match(t)
    if m:
        return number_id(m.group(1))
    if t.lower().endswith((".md", ".markdown")):
        return adr_id(t)[0]
    return t


def link_targets(text: str, path: str) -> list[str]:
    """Ids a status line points to: Markdown links to `.md` files (resolved by the id rule on the target
    file name), else bare id forms. The cross-record pass (`records.links`) maps them to real ids."""
    out: list[str] = []
    links = _MD_LINK_RE.findall(text)
    for label, href in links:
        href = href.split("#", 1)[0]
        if "://" in href or not href:
            continue
        if href.lower().endswith((".md", ".markdown")):
            target = normpath(join(dirname(path), href))
            out.append(adr_id(target)[0])
        else:
            out.append(ref_id(label))
    if links:
        return _unique(out)
    rest = _MD_LINK_RE.sub(" ", text)
    for token in re.split(r"[,;]|\s+and\s+|\s+", rest):
        token = token.strip().strip("`*_[]()<>.,;:")
        if token and re.search(r"\d", token):
            out.append(ref_id(token))
    return _unique(out)


def _unique(items: list[str]) -> list[str]:
    seen: list[str] = []
    for i in items:
        if i and i not in seen:
            seen.append(i)
    return seen
