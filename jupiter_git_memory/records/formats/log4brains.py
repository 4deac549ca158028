"""log4brains ADRs (pure): MADR-like `- Status:` / `- Date:` / `- Deciders:` / `- Tags:` bullets and
date-prefixed file names whose name (the slug) is the id."""

from __future__ import annotations

from ..parse import ParseOutcome
from .common import AdapterOptions
from .madr import read_bullets

NAME = "log4brains"


def read(path: str, raw: bytes, text: str, options: AdapterOptions) -> ParseOutcome:
    return read_bullets(path, raw, text, options, fmt=NAME)
