"""Request bodies. The recall requests are the application layer's (app/recall.py), so the API and the MCP
tools declare one set of names, bounds and descriptions; closed vocabularies are enums in the schema."""

from __future__ import annotations

from pydantic import Field

from ...app.recall import ContextRequest, Kind, RecallRequest, Status, Strict, TaskRequest

__all__ = ["ContextRequest", "Kind", "RecallRequest", "SeedRequest", "Status", "Strict", "TaskRequest"]


class SeedRequest(Strict):
    rebuild: bool = Field(
        False,
        description="Re-read and re-embed everything into a new collection; the old one answers until it is done.",
    )
