"""The ADR id rule and link targets (pure). Ids are how agents cite records, so the rule is fixed and
documented in docs/adr-formats.md:

1. A date-named file (`20201016-use-slugs.md`, `2020-10-16-use-slugs.md`) keeps its file name as id:
   `20201016-use-slugs` (log4brains calls this the slug).
2. A numbered file (`0012-x.md`, `12-x.md`, `adr-012-x.md`, `ADR-0012.md`) is `ADR-` plus the number
   padded to four digits: `ADR-0012`.
3. Any other file keeps its file name: `use-postgres` (a name in another script, plus a short hash of it:
   `使用託管資料庫.md` is `adr-` and 8 hex digits).
A `README.md` or `index.md` inside a numbered folder (`rfcs/0006-cdevents/README.md`) is named by its folder:
`ADR-0006`. Characters outside the id alphabet become `-`. Two files sharing a number are told apart after
parsing (`records.links.distinct_numbers`).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import re
from posixpath import basename, dirname, join, normpath

_DATE_RE = re.compile(r"^(\d{4})-?(\d{2})-?(\d{2})[-_.]")
_NUM_RE = re.compile(r"^(?:adr)?[-_ ]?0*(\d{1,7})(?=[-_. ]|$)", re.IGNORECASE)
_BAD_CHARS = re.compile(r"[^A-Za-z0-9._:-]+")
# A bare reference to a numbered ADR: `0002`, `2`, `#2`, `ADR-2`, `adr-0002`, `ADR 2`, `ADR0002`.
_NUM_REF_RE = re.compile(r"^(?:adr[-_ #]?|#)?0*(\d{1,7})$", re.IGNORECASE)
_MD_LINK_RE = re.compile(r"\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
# A number tagged by a short prefix: `SE-0390`, `RFC 2119`, `EIP-1559`, `KEP-1287`, `otep-0066`.
_TAGGED_REF_RE = re.compile(r"^([a-z]{1,6})[-_ #]?0*(\d{1,7})$", re.IGNORECASE)
# The number a collection's file or folder carries, for discovery: `0012-x`, `adr-12`, `rfc-100-x`, `eip-1559`.
_COLLECTION_NUM_RE = re.compile(r"^(?:[a-z]{2,6}[-_ ])?0*(\d{1,7})(?=[-_. ]|$)", re.IGNORECASE)
_STOP_RE = re.compile(r"\s(?:in|on|since|at|for|from|until|because|after|before|when|via)\s", re.IGNORECASE)
_YEAR_RE = re.compile(r"^(?:19[7-9]\d|20\d\d)(?:[-_]?\d\d){0,2}$")  # 2021, 2021-03, 20210304: dates
FOLDER_RECORD_NAMES = ("readme.md", "index.md", "readme.markdown", "index.markdown")


def _file_stem(name: str) -> str:
    for ext in (".markdown", ".md"):
        if name.lower().endswith(ext):
            return name[: -len(ext)]
    return name


def folder_record(path: str) -> bool:
    """True for a `README.md`/`index.md` whose folder is numbered: the folder is the record (`0006-x/README.md`,
    also with a short tag: `CIP-0031/README.md`)."""
    parent = basename(dirname(path))
    return basename(path).lower() in FOLDER_RECORD_NAMES and bool(parent) and collection_number(parent) is not None


def stem(path: str) -> str:
    """The name the id rule reads: the file name without extension, or a numbered folder's name for its README."""
    if folder_record(path):
        return basename(dirname(path))
    return _file_stem(basename(path))


def collection_number(name: str) -> int | None:
    """The number a file or folder name carries for discovery (a tag like `rfc-` or `eip-` allowed), or None.
    A year folder (`2021`) is not a record number."""
    s = _file_stem(name)
    if _YEAR_RE.match(s):
        return None
    m = _COLLECTION_NUM_RE.match(s)
    return int(m.group(1)) if m else None


def attachment_folder(path: str) -> str | None:
    """The numbered folder (`0007/`, `3392-council/`) holding a file that is not its README: an attachment
    of that record (images, appendices, translations), never a record of its own. None otherwise."""
    parent = basename(dirname(path))
    if not parent or folder_record(path) or collection_number(parent) is None:
        return None
    return parent


def tagged_number_id(token: str) -> str | None:
    """`SE-0390`, `RFC 2119` -> `ADR-0390`, `ADR-2119`: the number rule's id for a tagged reference."""
    m = _TAGGED_REF_RE.match(token.strip())
    return number_id(m.group(2)) if m else None


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
        what = "README of a numbered folder" if folder_record(path) else "numbered file"
        return number_id(m.group(1)), f"{what}: ADR- and the number {int(m.group(1))} padded to 4 digits"
    return _clean(s), "file name (no number or date prefix)"


def _clean(s: str) -> str:
    """The name in the id alphabet. A name written in another script (`使用託管資料庫`) keeps what is left of
    it plus a short hash of the whole name, so two such files never share an id."""
    out = _BAD_CHARS.sub("-", s).strip("-._:")
    if s.isascii():
        return out[:128] or "adr"
    digest = hashlib.sha1(s.encode("utf-8")).hexdigest()[:8]
    return f"{out[:119]}-{digest}" if out else f"adr-{digest}"


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
    rest = re.sub(r"\([^()]*\)", " ", _MD_LINK_RE.sub(" ", text))
    rest = _STOP_RE.split(rest, maxsplit=1)[0]  # "superseded by ADR-9 in 2024": the year is no target
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
