"""The base of every typed answer (API response models, MCP output schemas, `--json`).

Open on purpose: extra keys are kept, not dropped, so an answer may grow a field before its model does,
and a client that reads a field it knows never loses it to validation.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class OpenModel(BaseModel):
    model_config = ConfigDict(extra="allow")
