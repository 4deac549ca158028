"""What every ADR adapter shares (pure): options, the title heading, and turning the pieces an adapter
read into the same `Record` our own format gives, with `kind: adr` and the derived id."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from ..model import Issue, Record
from ..parse import ParseOutcome
from .ids import adr_id
from .status import ADR_STATUSES, StatusReading

MISSING_STATUS_CHOICES = ("accepted", "proposed", "error")
_H1_RE = re.compile(r"^#\s+(.+?)\s*#*\s*$")
# "12. Title", "ADR 12: Title", "ADR-0012 - Title", "0012 – Title": the number is not part of the title
_TITLE_NUM_RE = re.compile(r"^(?:adr[-_ ]?)?\d+\s*(?:[.:)\]]|\s[-–—])\s*|^adr[-_ ]?\d+\s+", re.IGNORECASE)


@dataclass(frozen=True)
class AdapterOptions:
    """Settings that change how ADR files are read: `[status_map]`, `adr_missing_status`, `[formats]`."""

    status_map: dict[str, str] = field(default_factory=dict)  # normalised word -> one of ADR_STATUSES
    missing_status: str = "accepted"
    formats: dict[str, str] = field(default_factory=dict)  # root folder -> forced format name

    def forced(self, path: str) -> tuple[str, str] | None:
        """(format, root) when `path` lies under a root whose format is forced by `[formats]`."""
        best = None
        for root, fmt in self.formats.items():
            r = root.strip("/")
            if (path.startswith(r + "/") or not r) and (best is None or len(r) > len(best[1])):
                best = (fmt, r)
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


def missing_status_warning(path: str, status: str, line: int | None) -> Issue:
    return Issue(
        path,
        f"ADR has no status; read as {status}",
        "add a status, or set adr_missing_status (accepted | proposed | error) in jgm.toml",
        severity="warning",
        line=line,
    )


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
    """One ADR record, or the errors that stop it; a missing status gives a warning (or an error)."""
    rid, _rule = adr_id(path)
    issues: list[Issue] = []
    if not title:
        return ParseOutcome(
            issues=[
                Issue(path, f"read as a {fmt} ADR but it has no `# ` title heading", "add a `# Title` line at the top")
            ]
        )
    if status.unknown is not None:
        key, line = status.unknown
        choices = ", ".join(s for s in ADR_STATUSES)
        return ParseOutcome(
            issues=[
                Issue(
                    path,
                    f"ADR status {status.written!r} is not in the status table",
                    f'map it in jgm.toml: [status_map] "{key}" = "<one of {choices}>", or write a known status',
                    line=line,
                )
            ]
        )
    st = status.status
    if st is None:
        if options.missing_status == "error":
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
        st = options.missing_status
        issues.append(missing_status_warning(path, st, title_line))
    meta = dict(metadata or {})
    if deciders not in (None, "", []):
        meta["decision-makers"] = deciders
    if status.written:
        meta["status_as_written"] = status.written
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
        content_hash=hashlib.sha256(raw).hexdigest(),
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
    return ParseOutcome(record=record, issues=issues)
