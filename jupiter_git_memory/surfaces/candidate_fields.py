"""The candidate fields' bounds and descriptions, declared once for the HTTP API and MCP (their schemas
show them; candidates.validate checks the content again for every surface, the CLI included)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from ..candidates.validate import MAX_BODY_BYTES, MAX_TAGS, MAX_TITLE_CHARS

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
