"""The requests of the candidate operations, derived from the one declaration of a candidate's fields.

`CandidateInput` (candidates/fields.py) declares each field once, with its description and bounds.
`CANDIDATE_FIELDS` reads them, and every surface builds its input from that list: the API's
`CandidateRequest` body, the MCP tools' arguments (surfaces/mcp/candidates.py) and the CLI's options
(surfaces/cli/remember_cmd.py). So a new field is one line in CandidateInput, and it shows in the OpenAPI
schema, the MCP tool schemas and `jgm remember --help`.

Servers validate a request against these models (the bounds in their schemas); the CLI builds it with
`model_construct` and sends the text as typed: candidates/validate.py checks the content for every surface
and answers a bad field with its reason code, as it always did.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from ..candidates.fields import MAX_ID_CHARS, MAX_NAME, REVISABLE, CandidateInput
from ..candidates.transitions import MAX_REASON_CHARS
from ..records.model import ID_PATTERN

Name = Annotated[str, Field(max_length=MAX_NAME)]


@dataclass(frozen=True)
class FieldSpec:
    """One candidate field as the surfaces need it (from CandidateInput's metadata, candidates/fields.about)."""

    name: str
    description: str | None
    required: bool = False
    many: bool = False  # a list of strings (repeatable on the CLI)
    max_length: int | None = None  # of the text, or of each entry
    min_length: int | None = None
    max_items: int | None = None
    choices: tuple[str, ...] = ()
    nullable: bool = False  # None is a value of its own (revise: keep the candidate's); lists too

    @property
    def default(self) -> Any:
        return [] if self.many and not self.nullable else None  # a fresh list each time

    def annotation(self) -> Any:
        """The pydantic type with the bounds (without the description: `pydantic()` puts it on the field)."""
        if self.choices:
            base: Any = Literal[self.choices]  # type: ignore[valid-type]
        else:
            bounds = {k: v for k, v in (("min_length", self.min_length), ("max_length", self.max_length)) if v}
            base = Annotated[str, Field(**bounds)] if bounds else str
        if self.many:
            base = Annotated[list[base], Field(max_length=self.max_items)] if self.max_items else list[base]
        return base | None if self.nullable or not (self.required or self.many) else base

    def pydantic(self) -> tuple[Any, Any]:
        """(type, FieldInfo) for pydantic.create_model."""
        about = {"description": self.description} if self.description else {}
        return self.annotation(), Field(... if self.required else self.default, **about)

    def annotated(self) -> Any:
        """The type with its description attached (a function parameter's annotation: the MCP tools)."""
        kind = self.annotation()
        return Annotated[kind, Field(description=self.description)] if self.description else kind

    def optional(self) -> FieldSpec:
        """The same field, not required and None by default (what revise takes: None leaves it as it is)."""
        return dataclasses.replace(self, required=False, nullable=True)


def _specs(cls: type) -> tuple[FieldSpec, ...]:
    undeclared = [f.name for f in dataclasses.fields(cls) if "required" not in f.metadata]
    if undeclared:  # a programming error: every surface needs the field's description and bounds
        raise TypeError(
            f"{cls.__name__} fields {undeclared} need their declaration: `= about(...)` (candidates/fields.py)"
        )
    return tuple(FieldSpec(f.name, **f.metadata) for f in dataclasses.fields(cls))


CANDIDATE_FIELDS = _specs(CandidateInput)
BY_NAME = {s.name: s for s in CANDIDATE_FIELDS}
# What `revise` takes: the revisable fields (None: unchanged) and the agent revising it.
REVISE_FIELDS = (*(BY_NAME[n].optional() for n in REVISABLE), FieldSpec("agent", None, max_length=MAX_NAME))


class Request(BaseModel):
    """The base of the operations' requests: an unknown field is refused (a typo is not silently dropped)."""

    model_config = ConfigDict(extra="forbid")


class CandidateRequestBase(Request):
    def to_input(self) -> CandidateInput:
        values = {s.name: getattr(self, s.name) for s in CANDIDATE_FIELDS}
        return CandidateInput(**{k: list(v) if isinstance(v, list) else v for k, v in values.items()})


# An observation to record or validate, with CandidateInput's fields.
CandidateRequest: type[CandidateRequestBase] = create_model(
    "CandidateRequest", __base__=CandidateRequestBase, **{s.name: s.pydantic() for s in CANDIDATE_FIELDS}
)


class ReviseRequestBase(Request):
    def changes(self) -> dict[str, Any]:
        """The fields to change (None: keep the candidate's)."""
        return {n: getattr(self, n) for n in REVISABLE}


ReviseRequest: type[ReviseRequestBase] = create_model(
    "ReviseRequest", __base__=ReviseRequestBase, **{s.name: s.pydantic() for s in REVISE_FIELDS}
)


class RejectRequest(Request):
    why: str = Field(min_length=1, max_length=MAX_REASON_CHARS, description="Kept with the candidate for the agent.")


class ProposeRequest(Request):
    status: Literal["proposed", "accepted"] = "proposed"
    base: Annotated[str, Field(max_length=200, pattern=r"^[A-Za-z0-9][A-Za-z0-9._/^~-]*$")] | None = None
    open_pr: bool = False


class ConcludeRequest(Request):
    target: str = Field(
        pattern=ID_PATTERN,
        max_length=MAX_ID_CHARS,
        description="The record or candidate it duplicates, merges into or supersedes.",
    )
    reviewer: Name | None = None
