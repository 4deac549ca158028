"""Request bodies. Closed vocabularies (kinds, statuses, modes) are enums so the OpenAPI schema says them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ...app.limits import MAX_BUDGET, MAX_ERRORS, MAX_FILES, MAX_K, MAX_RECALL_K, MAX_TEXT, MIN_BUDGET
from ...recall.ranking import MODES
from ...records.model import ALL_EFFECTIVE, KINDS

Kind = Literal[KINDS]  # type: ignore[valid-type]
Status = Literal[ALL_EFFECTIVE]  # type: ignore[valid-type]
NOT_BLANK = r"\S"  # in the schema too, so clients (and schema-driven tests) know blank text is refused


def _not_blank(v: str) -> str:
    if not v.strip():
        raise ValueError("must not be blank")
    return v


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RecallRequest(Strict):
    query: str = Field(min_length=1, max_length=MAX_TEXT, pattern=NOT_BLANK, description="What you want to know.")
    k: int = Field(5, ge=1, le=MAX_RECALL_K)
    kinds: list[Kind] = Field(default_factory=list, max_length=len(KINDS), description="Only these kinds.")
    statuses: list[Status] = Field(
        default_factory=list,
        max_length=len(ALL_EFFECTIVE),
        description="Replace the default statuses (accepted, verified, unverified).",
    )
    mode: Literal[MODES] | None = None  # type: ignore[valid-type]
    at: str | None = Field(
        None,
        min_length=1,
        max_length=200,
        pattern=r"^[^\s-][^\s]*$",
        description="Answer as of this commit, tag or branch (records and lifecycle then).",
    )

    _q = field_validator("query")(_not_blank)


class TaskRequest(Strict):
    goal: str = Field(min_length=1, max_length=MAX_TEXT, pattern=NOT_BLANK, description="What the task is.")
    errors: list[str] = Field(default_factory=list, max_length=MAX_ERRORS, description="Error signatures seen.")
    files: list[str] = Field(default_factory=list, max_length=MAX_FILES, description="Files the task touches.")
    k: int = Field(5, ge=1, le=MAX_K)
    include_global: bool = False
    global_k: int = Field(3, ge=1, le=MAX_K)
    statuses: list[Status] = Field(
        default_factory=list,
        max_length=len(ALL_EFFECTIVE),
        description="Replace the default statuses (accepted, verified, unverified), e.g. add historical or proposed.",
    )

    _g = field_validator("goal")(_not_blank)

    @field_validator("errors", "files")
    @classmethod
    def _short(cls, v: list[str]) -> list[str]:
        if any(len(x) > MAX_TEXT for x in v):
            raise ValueError(f"each entry must be at most {MAX_TEXT} characters")
        return v


class ContextRequest(Strict):
    goal: str = Field(min_length=1, max_length=MAX_TEXT, pattern=NOT_BLANK, description="What the new task is.")
    budget_tokens: int = Field(1500, ge=MIN_BUDGET, le=MAX_BUDGET)
    k: int = Field(8, ge=1, le=MAX_K)
    errors: list[str] = Field(default_factory=list, max_length=MAX_ERRORS, description="Error signatures seen.")
    files: list[str] = Field(default_factory=list, max_length=MAX_FILES, description="Files the task touches.")
    statuses: list[Status] = Field(
        default_factory=list,
        max_length=len(ALL_EFFECTIVE),
        description="Replace the default statuses (accepted, verified, unverified), e.g. add historical or proposed.",
    )

    _g = field_validator("goal")(_not_blank)

    @field_validator("errors", "files")
    @classmethod
    def _short(cls, v: list[str]) -> list[str]:
        if any(len(x) > MAX_TEXT for x in v):
            raise ValueError(f"each entry must be at most {MAX_TEXT} characters")
        return v


class SeedRequest(Strict):
    rebuild: bool = Field(
        False,
        description="Re-read and re-embed everything into a new collection; the old one answers until it is done.",
    )
