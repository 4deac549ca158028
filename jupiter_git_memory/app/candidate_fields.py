"""The candidate fields' bounds and descriptions, declared once for the HTTP API and MCP (their schemas
show them; candidates.validate checks the content again for every surface, the CLI included)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ..candidates.model import SCOPES
from ..candidates.validate import MAX_BODY_BYTES, MAX_FIELD_CHARS, MAX_FILES, MAX_SUPERSEDES, MAX_TAGS, MAX_TITLE_CHARS

MAX_TAG_CHARS, MAX_SHORT, MAX_EVIDENCE, MAX_NAME, MAX_ID_CHARS = 40, 400, 20, 200, 128

Title = Annotated[
    str, Field(min_length=1, max_length=MAX_TITLE_CHARS, description="One line: what is true or decided.")
]
Body = Annotated[
    str,
    Field(max_length=MAX_BODY_BYTES, description="The explanation: a decision says why, a fact names its evidence."),
]
Tags = Annotated[
    list[Annotated[str, Field(max_length=MAX_TAG_CHARS)]], Field(max_length=MAX_TAGS, description="Single-word tags.")
]
Short = Annotated[str, Field(max_length=MAX_SHORT)]
Evidence = Annotated[list[Short], Field(max_length=MAX_EVIDENCE, description="What backs it.")]
Name = Annotated[str, Field(max_length=MAX_NAME)]

# The structured write-back fields (all optional; the proposed record file renders each as a section).
Trigger = Annotated[
    str, Field(max_length=MAX_FIELD_CHARS, description="What prompted it: the symptom, error or request.")
]
Change = Annotated[str, Field(max_length=MAX_FIELD_CHARS, description="What was changed.")]
Verification = Annotated[
    str, Field(max_length=MAX_FIELD_CHARS, description="How it was checked: a command, a test, a measurement.")
]
CandidateScope = Literal[SCOPES]  # type: ignore[valid-type]
Files = Annotated[
    list[Short], Field(max_length=MAX_FILES, description="Repository files it is about (the record will cite them).")
]
Supersedes = Annotated[
    list[Annotated[str, Field(max_length=128)]],
    Field(
        max_length=MAX_SUPERSEDES, description="In-force record ids it proposes to retire (carried into the PR file)."
    ),
]
