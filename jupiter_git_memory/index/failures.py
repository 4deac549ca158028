"""Which exceptions mean that the index itself failed (the catalog's SQLite, Chroma's files or its server).

Only these may be reported as "the index is unavailable", "Chroma could not be opened" or "corrupt". A hook's
deadline or Ctrl-C (BaseExceptions, never caught as Exception) and a bug (TypeError, AttributeError, ...) are
none of them: they leave as what they are, so nobody is told to repair a store that is fine (issue 37).
"""

from __future__ import annotations

import sqlite3
import sys

from ..base.errors import JgmError


def chroma_failures() -> tuple[type[BaseException], ...]:
    """What Chroma raises for damaged or unreadable files (chromadb's own errors wrap its Rust core's, e.g.
    `InternalError: (code: 26) file is not a database`), a full or read-only disk, and a server that does not
    answer (httpx). Chroma's classes are taken only when chromadb was loaded: otherwise none can be in flight
    (and a failure path must not pay chromadb's import)."""
    found: list[type[BaseException]] = [OSError, sqlite3.Error]
    errors, httpx = sys.modules.get("chromadb.errors"), sys.modules.get("httpx")
    if errors is not None:
        found.append(errors.ChromaError)
    if httpx is not None:
        found.append(httpx.HTTPError)
    return tuple(found)


def index_failures() -> tuple[type[BaseException], ...]:
    """`chroma_failures` and the index's own errors (a corrupt catalog, a full disk, a vector identity
    mismatch: JgmErrors that already name their fix): what a read of the index may report as unavailable."""
    return (JgmError, *chroma_failures())
