"""A record as the index holds it: the parsed record's fields plus its *effective* status (what lifecycle
resolution made of it), where it came from (a file at a commit, or a candidate in the store) and the
last parse error of a file that now fails. Lives below the index so lifecycle steps (promotion) can
work on rows without depending on the store that persists them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .citations import citations_of


@dataclass
class RecordRow:
    id: str
    path: str | None
    kind: str
    declared_status: str  # what the file (or the candidate) says
    effective_status: str  # what lifecycle made of it: what recall filters and shows as `status`
    title: str
    content_hash: str
    commit_sha: str | None
    dirty: bool
    origin: str
    data: dict[str, Any]
    error: str | None = None

    def public(self) -> dict[str, Any]:
        d = dict(self.data)
        d.update(
            id=self.id,
            path=self.path,
            kind=self.kind,
            status=self.effective_status,
            declared_status=self.declared_status,
            title=self.title,
            commit=self.commit_sha,
            dirty=self.dirty,
            origin=self.origin,
        )
        d["citations"] = citations_of(self.data)
        if self.error:
            d["stale_error"] = self.error
        d.pop("lines", None)
        return d
