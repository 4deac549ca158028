"""Checks on caller-supplied ids, shared by every surface and the candidate service."""

from __future__ import annotations

import re

from ..base import error_codes as E
from ..base.errors import OperationError
from .model import ID_PATTERN

_ID_RE = re.compile(ID_PATTERN)


def check_id(rid: str, what: str = "record id") -> str:
    """Ids name files and catalog rows: anything outside ID_PATTERN (e.g. `../x`) is refused, not looked up."""
    if not isinstance(rid, str) or not _ID_RE.match(rid):
        raise OperationError(E.REQUEST_BAD_ID, f"{what} {rid!r} is not valid: ids match {ID_PATTERN}")
    return rid
