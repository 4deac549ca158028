"""A candidate's fields, declared once: `CandidateInput`, what an agent sends. Each field's metadata holds
its description and bounds; app/candidate_requests.py derives every surface's input from them (the API's
body, the MCP tools' arguments, the CLI's options), so a new field is one line here, and it reaches the
OpenAPI schema, the MCP tool schemas and `jgm remember --help` alike (plus its checks in validate.py when
it needs any). The bounds are what the servers' schemas refuse; validate.py checks the content again for
every surface, the CLI included.

Plain Python on purpose: `jgm remember --help` reads these declarations without loading pydantic or the
candidate code (tests/test_cli_imports.py).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from ..records.kinds import REQUESTABLE_KINDS
from ..records.limits import MAX_RECORD_BYTES

SCOPES = ("project", "transferable")  # project-specific, or a lesson that holds beyond this repository
# The structured write-back fields: optional, each rendered as a section of the proposed record file.
TEXT_FIELDS = ("trigger", "change", "verification")
PROVENANCE = ("agent", "session", "work_item", "run_key")  # who sent it: kept together as the candidate's provenance
REVISABLE = ("title", "body", "tags", "source")  # what `revise` may change on an open candidate
MAX_TITLE_CHARS = 200
MAX_BODY_BYTES = MAX_RECORD_BYTES - 8 * 1024  # room for the frontmatter when the record is proposed
MAX_TAGS = 20
MAX_FIELD_CHARS = 4000  # trigger, change, verification: a paragraph each
MAX_FILES = 50
MAX_SUPERSEDES = 5
MAX_TAG_CHARS, MAX_SHORT, MAX_EVIDENCE, MAX_NAME, MAX_ID_CHARS = 40, 400, 20, 200, 128


def about(
    description: str,
    *,
    required: bool = False,
    many: bool = False,
    max_length: int | None = None,
    min_length: int | None = None,
    max_items: int | None = None,
    choices: tuple[str, ...] = (),
) -> Any:
    """A field of CandidateInput with what the surfaces show and bound: its description, whether it is
    required, `many` (a list of strings: max_length bounds each, max_items the list), a closed vocabulary."""
    meta = {
        "description": description,
        "required": required,
        "many": many,
        "max_length": max_length,
        "min_length": min_length,
        "max_items": max_items,
        "choices": choices,
    }
    if required:
        return field(metadata=meta)
    return field(default_factory=list, metadata=meta) if many else field(default=None, metadata=meta)


@dataclass
class CandidateInput:
    """One observation. `evidence` lists what backs it (paths, URLs, commands, commits). Built without
    validation: the checks in validate.py answer for bad content with a reason code."""

    kind: str = about(
        "Requested kind; the result is always a candidate of that kind.", required=True, choices=REQUESTABLE_KINDS
    )
    title: str = about("One line: what is true or decided.", required=True, min_length=1, max_length=MAX_TITLE_CHARS)
    body: str = about(
        "The explanation: a decision says why, a fact names its evidence.", required=True, max_length=MAX_BODY_BYTES
    )
    tags: list[str] = about("Single-word tags.", many=True, max_items=MAX_TAGS, max_length=MAX_TAG_CHARS)
    source: str | None = about("Where it comes from (path, URL, command).", max_length=MAX_SHORT)
    evidence: list[str] = about("What backs it.", many=True, max_items=MAX_EVIDENCE, max_length=MAX_SHORT)
    agent: str | None = about("Who observed it.", max_length=MAX_NAME)
    session: str | None = about("The agent session.", max_length=MAX_NAME)
    work_item: str | None = about("Work item or bundle id.", max_length=MAX_NAME)
    run_key: str | None = about(
        "Idempotency key: the same (agent, run_key) never creates a second candidate.", max_length=MAX_NAME
    )
    trigger: str | None = about("What prompted it: the symptom, error or request.", max_length=MAX_FIELD_CHARS)
    change: str | None = about("What was changed.", max_length=MAX_FIELD_CHARS)
    verification: str | None = about(
        "How it was checked: a command, a test, a measurement.", max_length=MAX_FIELD_CHARS
    )
    scope: str | None = about("project (this repository only) or transferable.", choices=SCOPES)
    files: list[str] = about(
        "Repository files it is about (the record will cite them).",
        many=True,
        max_items=MAX_FILES,
        max_length=MAX_SHORT,
    )
    supersedes: list[str] = about(
        "In-force record ids it proposes to retire (carried into the PR file).",
        many=True,
        max_items=MAX_SUPERSEDES,
        max_length=MAX_ID_CHARS,
    )

    def structured(self) -> dict[str, Any]:
        """The structured fields that were given (what the proposed file renders and the run key compares)."""
        d: dict[str, Any] = {k: (getattr(self, k) or "").strip() for k in (*TEXT_FIELDS, "scope")}
        d["files"] = [f.strip() for f in self.files or [] if f.strip()]
        d["supersedes"] = [s.strip() for s in self.supersedes or [] if s.strip()]
        return {k: v for k, v in d.items() if v}

    def provenance(self) -> dict[str, str]:
        p = {k: getattr(self, k) for k in PROVENANCE}
        return {k: v for k, v in p.items() if v}

    def text_fields(self) -> dict[str, str]:
        """Every caller-supplied text, by field name (what the secret scan covers)."""
        out = {"title": self.title or "", "body": self.body or "", "source": self.source or ""}
        for i, t in enumerate(self.tags or []):
            out[f"tags[{i}]"] = str(t)
        for i, e in enumerate(self.evidence or []):
            out[f"evidence[{i}]"] = str(e)
        for k, v in self.provenance().items():
            out[f"provenance.{k}"] = v
        for k in TEXT_FIELDS:
            out[k] = getattr(self, k) or ""
        for key in ("files", "supersedes"):
            for i, v in enumerate(getattr(self, key) or []):
                out[f"{key}[{i}]"] = str(v)
        return out

    def content_sha(self) -> str:
        return content_hash(self.title, self.body)

    def run_sha(self) -> str:
        """What a reused run key must carry again: the text and, when given, the structured fields and
        evidence (equal to content_sha without them, so runs recorded before these fields compare alike)."""
        extra = {**self.structured(), "evidence": list(self.evidence or []), "source": self.source or ""}
        extra = {k: v for k, v in extra.items() if v}
        if not extra:
            return self.content_sha()
        return hashlib.sha256(
            json.dumps([self.title.strip(), self.body.strip(), extra], sort_keys=True).encode()
        ).hexdigest()


def content_hash(title: str, body: str) -> str:
    return hashlib.sha256(json.dumps([title.strip(), body.strip()]).encode("utf-8")).hexdigest()
