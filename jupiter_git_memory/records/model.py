"""The record format: kinds, their status vocabularies, and the parsed Record value."""

from __future__ import annotations

import copy
import functools
from dataclasses import asdict, dataclass, field, fields
from typing import Any

# Each kind has a closed status vocabulary (records/kinds.py). An unknown kind or status is an error, never coerced.
from .kinds import ALL_EFFECTIVE as ALL_EFFECTIVE
from .kinds import EFFECTIVE_ONLY as EFFECTIVE_ONLY
from .kinds import IN_FORCE as IN_FORCE
from .kinds import KINDS as KINDS
from .kinds import STATUSES as STATUSES
from .limits import MAX_RECORD_BYTES as MAX_RECORD_BYTES

REQUIRED = ("id", "kind", "status", "title")
KNOWN_KEYS = frozenset(REQUIRED + ("supersedes", "superseded_by", "tags", "date", "source", "scope"))
# Link fields of a record. `amends`/`amended_by` never retire anything (e.g. "Partly superseded by").
LINK_KEYS = ("supersedes", "superseded_by", "amends", "amended_by")
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$"
# A person's confirmation that the record still holds for the code it cites (`jgm drift confirm`): the commit
# they re-read it at and the day, `reviewed: <sha> on <YYYY-MM-DD>`; an ADR adapter's file says it as a
# `Reviewed:` line or bullet. Kept in `metadata`; records/reviewed.py reads and writes it (dec-drift-confirm).
REVIEWED_KEY = "reviewed"


@dataclass(frozen=True)
class Record:
    """One parsed record. `path` is repo-relative POSIX; `content_hash` covers the raw file bytes."""

    id: str
    kind: str
    status: str
    title: str
    body: str
    path: str
    content_hash: str
    supersedes: tuple[str, ...] = ()
    superseded_by: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    date: str | None = None
    source: str | None = None
    scope: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)  # frontmatter key -> 1-based line
    amends: tuple[str, ...] = ()
    amended_by: tuple[str, ...] = ()
    format: str = "jgm"  # which reader produced it: jgm (our frontmatter) or an ADR adapter
    citations: tuple[str, ...] = ()  # `source:` then `evidence:` entries, as written (records/citations.py)

    def to_dict(self) -> dict[str, Any]:
        """The record as plain data (what the catalog stores). `asdict`'s answer, built without its generic
        recursion: only `metadata` holds nested values, so only it is deep-copied (every seed asks this of
        every record, the unchanged ones too)."""
        d = {name: getattr(self, name) for name in _record_fields()}
        for k in LINK_KEYS + ("tags", "citations"):
            d[k] = list(d[k])
        meta = self.metadata  # deepcopy returns atoms as they are: only nested values need its walk
        flat = type(meta) is dict and all(type(v) in _ATOMS for v in meta.values())
        d["metadata"] = dict(meta) if flat else copy.deepcopy(meta)
        d["lines"] = dict(self.lines)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Record:
        d = dict(d)
        for k in LINK_KEYS + ("tags", "citations"):
            d[k] = tuple(d.get(k) or ())
        return cls(**d)


_ATOMS = frozenset({str, int, float, bool, type(None)})


@functools.cache
def _record_fields() -> tuple[str, ...]:
    """Record's field names, in order (`dataclasses.fields` builds them anew on every call)."""
    return tuple(f.name for f in fields(Record))


@dataclass(frozen=True)
class Issue:
    """A problem found in the knowledge base: names the file, the line where known, and the fix."""

    path: str
    message: str
    fix: str
    severity: str = "error"  # "error" | "warning"
    line: int | None = None
    record_id: str | None = None
    code: str | None = None  # a catalogue code (base/error_codes.py) for issues that have one

    def where(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path

    def render(self) -> str:
        return f"{self.where()}: {self.severity}: {self.message} — fix: {self.fix}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
