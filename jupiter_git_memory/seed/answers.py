"""The typed answer of a seed (POST /seed, `jgm seed --json`, the watcher's seed events): SeedReport as an
open pydantic model, so the API's OpenAPI schema shows it and every surface prints the same keys."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from ..base.answer import OpenModel as _Open


class Counts(_Open):
    added: int
    updated: int
    removed: int
    unchanged: int
    errors: int
    embedded_chunks: int


class SeedAnswer(_Open):
    workspace: str
    commit: str | None = None
    dirty: bool = False
    rev: str | None = Field(None, description="The commit an `--at` view was built from; null for the worktree.")
    view: str | None = None
    counts: Counts
    added: list[str] = Field(default_factory=list)
    updated: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
    unchanged: int = 0
    embedded_chunks: int = 0
    deleted_vectors: int = 0
    errors: list[dict[str, Any]] = Field(default_factory=list, description="Files not indexed: file, line, fix.")
    warnings: list[dict[str, Any]] = Field(default_factory=list)
    skipped: list[dict[str, Any]] = Field(default_factory=list)
    inventory: list[dict[str, Any]] = Field(default_factory=list, description="Per root: found, indexed, skipped.")
    records: int = 0
    chunks: int = 0
    seconds: float = 0.0
    generation: int = 0
    floor: dict[str, Any] | None = Field(None, description="What the post-seed floor calibration did, and why.")
    model: dict[str, Any] | None = Field(
        None, description="The workspace's embedding model: name, source (env|settings|workspace|index), reason."
    )
    recovered_from: str | None = None
