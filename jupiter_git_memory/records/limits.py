"""The documented size limit of one record file, on its own so the CLI's option declarations (candidate
fields, candidates/fields.py) read it without loading the record model."""

from __future__ import annotations

MAX_RECORD_BYTES = 256 * 1024  # larger files are reported, not indexed
