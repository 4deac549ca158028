"""The two ways recall refuses to answer, so that an empty answer can only ever mean "nothing matches"."""

from __future__ import annotations

from ..base import error_codes as E
from ..base.errors import JgmError


class RecallError(JgmError, RuntimeError):
    """Recall could not run (model or index unavailable): never to be reported as 'no matches'."""

    entry = E.MEMORY_RETRIEVAL_FAILED


class NotSeeded(JgmError, RuntimeError):
    """The store holds no records for this workspace, so an empty answer would mean nothing: only a
    seeded, non-empty workspace can answer 'no match'. The message names the store and the fix."""

    entry = E.MEMORY_NOT_SEEDED
