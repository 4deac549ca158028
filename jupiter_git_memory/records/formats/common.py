"""What every ADR adapter shares (pure): options, the title heading, the status when the file says none,
and turning the pieces an adapter read into the same `Record` our own format gives (`kind: adr`).

Status reading order (dec-wild-status-reading): the adapter's own place (front matter `status`/`stage`,
a `Status:` bullet or line, a `## Status` section); then a change-log entry; then the folder's name when it
is a status (`withdrawn/`, `active-rfcs/`); then a `[status_map]` folder default (`"text/" = "accepted"`);
then `adr_missing_status` (proposed by default). A status in no table is read as proposed, never in force.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from posixpath import dirname
from typing import Any

from ..model import Issue, Record
from ..parse import ParseOutcome
from .ids import adr_id, stem
from .sidecar import Sidecar, content_hash
from .status import ADR_STATUSES, STATUS_TABLE, UNMAPPED_STATUS, StatusReading, first_words, lookup, read_status

MISSING_STATUS_CHOICES = ("accepted", "proposed", "error")
_H1_RE = re.compile(r"^#\s+(.+?)\s*#*\s*$")
# "12. Title", "ADR 12: Title", "ADR-0012 - Title", "RFC-0006 Title", "KEP-1287: Title", "Proposal: Title",
# "Architecture Decision Record: Title": the number and the kind of document are not part of the title
_TITLE_NUM_RE = re.compile(
    r"^(?:(?:adr|rfc|kep|otep|eip|pep|se)[-_ #]?)?\d+\s*(?:[.:)\]：、]|\s[-–—])\s*"
    r"|^(?:adr|rfc|kep|otep|eip|pep|se)[-_ #]?\d+\s+"
    r"|^(?:architecture\s+decision\s+record|decision\s+record|design\s+proposal|proposal)\s*:\s*",
    re.IGNORECASE,
)
_NAME_PREFIX_RE = re.compile(r"^(?:\d{4}-?\d{2}-?\d{2}[-_.]|(?:[a-z]{2,6}[-_ ])?0*\d{1,7}(?:[-_. ]+|$))", re.IGNORECASE)
CHANGELOG_HEAD_RE = re.compile(
    r"^(#{1,6})\s*(?:change\s*log|changelog|history|revision\s+history|status\s+history|document\s+history"
    r"|變更記錄|变更记录|變更紀錄|修訂記錄|修订记录|修訂歷史|修订历史|歷史|历史|狀態歷史|状态历史)\s*[:：]?\s*$",
    re.IGNORECASE,
)
_HEAD_RE = re.compile(r"^(#{1,6})\s")
_ENTRY_RE = re.compile(r"^\s*(?:[*+-]|\d+[.)])\s+(.*)$")
_COMMENT_RE = re.compile(r"<!--.*?-->", re.DOTALL)
_FOLDER_SUFFIXES = frozenset({"rfc", "rfcs", "proposal", "proposals", "design", "designs", "adr", "adrs"})
_FOLDER_SUFFIXES |= {"decision", "decisions", "record", "records", "eip", "eips", "kep", "keps", "pep", "peps"}


@dataclass(frozen=True)
class AdapterOptions:
    """Settings that change how ADR files are read: `[status_map]` (words, and folder defaults written as
    `"folder/" = status`), `adr_missing_status`, `[formats]`."""

    status_map: dict[str, str] = field(default_factory=dict)  # status key -> one of ADR_STATUSES
    missing_status: str = "proposed"
    formats: dict[str, str] = field(default_factory=dict)  # root folder -> forced format name
    folder_defaults: dict[str, str] = field(default_factory=dict)  # folder ("" = everywhere) -> status
    sidecar: Sidecar | None = None  # one file's status file (a KEP's kep.yaml), set per read by read_record

    def forced(self, path: str) -> tuple[str, str] | None:
        """(format, root) when `path` lies under a root whose format is forced by `[formats]`."""
        best = None
        for root, fmt in self.formats.items():
            r = root.strip("/")
            if (path.startswith(r + "/") or not r) and (best is None or len(r) > len(best[1])):
                best = (fmt, r)
        return best

    def folder_default(self, path: str) -> tuple[str, str] | None:
        """(status, folder) of the longest `[status_map]` folder default covering `path`."""
        best = None
        for folder, status in self.folder_defaults.items():
            f = folder.strip("/")
            if (not f or path.startswith(f + "/")) and (best is None or len(f) > len(best[1])):
                best = (status, f)
        return best


def first_heading(lines: list[str]) -> tuple[int | None, str | None]:
    """(0-based index, text) of the first `# ` heading outside code fences."""
    fence = False
    for i, line in enumerate(lines):
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
        if not fence:
            m = _H1_RE.match(line)
            if m:
                return i, m.group(1)
    return None, None


def clean_title(text: str) -> str:
    t = _TITLE_NUM_RE.sub("", text.strip(), count=1).strip()
    return t or text.strip()


def title_from_name(path: str) -> str:
    """A title from the file (or numbered folder) name, for a record whose first heading is missing or only
    names a section (`# Summary`): `0013-composition-api.md` -> `Composition api`."""
    s = stem(path)
    rest = _NAME_PREFIX_RE.sub("", s, count=1)
    words = re.sub(r"[-_]+", " ", rest).strip()
    return (words[0].upper() + words[1:]) if words else s


def changelog_status(lines: list[str], path: str, status_map: dict[str, str]) -> StatusReading:
    """The status a `## Change Log` section gives: its last entry that holds a status word (entries are
    listed oldest first: `- [proposed](…) (2021-12-28)`, `- [approved](…) (2023-02-18)`)."""
    text = _COMMENT_RE.sub(lambda m: "\n" * m.group(0).count("\n"), "\n".join(lines))
    lines = text.split("\n")
    out = StatusReading()
    for i, line in enumerate(lines):
        head = CHANGELOG_HEAD_RE.match(line.strip())
        if not head:
            continue
        level = len(head.group(1))
        for j in range(i + 1, len(lines)):
            h = _HEAD_RE.match(lines[j])
            if h and len(h.group(1)) <= level:
                break
            entry = _ENTRY_RE.match(lines[j])
            cells = [entry.group(1)] if entry else [c for c in lines[j].strip().strip("|").split("|")]
            if not entry and not lines[j].lstrip().startswith("|"):
                continue
            for cell in cells:
                got = read_status([(j + 1, cell)], path, status_map)
                if got.status is not None:
                    out = got
                    break
        break
    return out


def folder_status(path: str) -> tuple[str, str] | None:
    """(status, folder) when a folder on the path is named by a status: `withdrawn/`, `implemented/`,
    `active-rfcs/`, `drafts/`; the nearest one counts."""
    parts = dirname(path).split("/") if dirname(path) else []
    for folder in reversed(parts):
        words = re.sub(r"[-_]+", " ", folder).lower().split()
        while words and words[-1] in _FOLDER_SUFFIXES and len(words) > 1:
            words = words[:-1]
        phrase = " ".join(words)
        for key in (phrase, phrase[:-1] if phrase.endswith("s") else ""):
            if key in STATUS_TABLE:
                return STATUS_TABLE[key], folder
    return None


def build(
    path: str,
    raw: bytes,
    fmt: str,
    title: str | None,
    body: str,
    status: StatusReading,
    options: AdapterOptions,
    date: str | None = None,
    deciders: Any = None,
    tags: tuple[str, ...] = (),
    metadata: dict[str, Any] | None = None,
    title_line: int | None = None,
) -> ParseOutcome:
    """One ADR record, or the error that stops it (`adr_missing_status = "error"` and no status)."""
    from .evidence import generic_title

    rid, _rule = adr_id(path)
    meta = dict(metadata or {})
    if not title or generic_title(title):
        meta["title_from"] = "the file name" + (f" (the first heading is only {title!r})" if title else "")
        title, title_line = title_from_name(path), None
    st = status.status
    if status.unknown is not None and (side := sidecar_status(path, options)) is not None:
        st, source, status = side  # a KEP's `## Status` is often an API field's section: its kep.yaml says
    elif status.unknown is not None:
        key, _line = status.unknown
        st = UNMAPPED_STATUS
        meta["status_unmapped"] = key
        source = status.source or "the file"
    elif st is None:
        st, source, status = _status_elsewhere(path, body, options)
        if st is None:
            return ParseOutcome(
                issues=[
                    Issue(
                        path,
                        "ADR has no status",
                        "add a status (e.g. `## Status` then `Accepted`), or set adr_missing_status in jgm.toml",
                        line=title_line,
                    )
                ]
            )
    else:
        source = status.source or "the file"
    if deciders not in (None, "", []):
        meta["decision-makers"] = deciders
    if status.written:
        meta["status_as_written"] = status.written
    meta["status_source"] = source
    if status.rule:
        meta["status_rule"] = status.rule
    if status.other_links:
        meta["other_links"] = status.other_links
    lines = {"title": title_line} if title_line else {}
    if status.line:
        lines["status"] = status.line
    record = Record(
        id=rid,
        kind="adr",
        status=st,
        title=title,
        body=body.strip(),
        path=path,
        content_hash=content_hash(raw, options.sidecar),
        supersedes=tuple(status.links.get("supersedes", ())),
        superseded_by=tuple(status.links.get("superseded_by", ())),
        tags=tags,
        date=date,
        source=path,
        metadata=meta,
        lines=lines,
        amends=tuple(status.links.get("amends", ())),
        amended_by=tuple(status.links.get("amended_by", ())),
        format=fmt,
    )
    return ParseOutcome(record=record)


NO_STATUS = "no status anywhere: adr_missing_status"


def sidecar_status(path: str, options: AdapterOptions) -> tuple[str, str, StatusReading] | None:
    """(status, source, reading) from the status file beside the record (a KEP's kep.yaml), when it maps."""
    side = options.sidecar
    if side is None or not side.status:
        return None
    got = read_status([(side.line, side.status)], path, options.status_map)
    if got.status is None:
        return None
    return got.status, f"`status` in `{side.name}` beside it", replace(got, line=None)


def _status_elsewhere(path: str, body: str, options: AdapterOptions) -> tuple[str | None, str, StatusReading]:
    """When the file's status places say nothing: a status file beside it (kep.yaml), change log, folder name,
    folder default, the setting."""
    side = sidecar_status(path, options)
    if side is not None:
        return side
    log = changelog_status(body.splitlines(), path, options.status_map)
    if log.status is not None:
        return log.status, "a change-log entry", log
    folder = folder_status(path)
    if folder is not None:
        return folder[0], f"the folder name `{folder[1]}/`", StatusReading(written=folder[1], rule="status table")
    default = options.folder_default(path)
    if default is not None:
        where = f'"{default[1]}/"' if default[1] else '"/"'
        return default[0], f"[status_map] folder default {where}", StatusReading(rule="[status_map] in jgm.toml")
    if options.missing_status == "error":
        return None, NO_STATUS, StatusReading()
    return options.missing_status, NO_STATUS, StatusReading()


def status_hint_toml(keys: list[str]) -> str:
    """The `[status_map]` block that maps the given unmapped status keys, as valid TOML (the value is what jgm
    reads them as today: proposed; the comment lists the others)."""
    import json

    choices = " | ".join(s for s in ADR_STATUSES if s != UNMAPPED_STATUS)
    out = ["[status_map]"]
    for k in keys:
        out.append(f"{json.dumps(k, ensure_ascii=False)} = {json.dumps(UNMAPPED_STATUS)}  # or {choices}")
    return "\n".join(out)


__all__ = ["AdapterOptions", "build", "clean_title", "first_heading", "first_words", "lookup", "title_from_name"]
