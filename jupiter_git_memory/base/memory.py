"""Keep a long-running process's memory flat: fewer glibc malloc arenas, and freed pages given back.

Why (measured, fact-serve-rss-is-malloc-arenas): a server reopens Chroma after every outside write, and
Chroma's Rust runtime, onnxruntime and our request threads allocate from many threads. glibc gives each
thread its own arena (up to 8 per core), and an arena keeps the pages its thread freed. RSS then climbs
with every reopen though nothing leaks: a Recaller beside 40 outside seeds grew +43 MB with the default
arenas and +2 MB with two. So servers (`serve`, `mcp`, `watch`) cap the arenas at start, before their
threads exist, and give free pages back when a Chroma epoch stops. Elsewhere (macOS, musl) both are no-ops.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from functools import cache

M_ARENA_MAX = -8  # glibc's mallopt parameter number (malloc.h)
SERVER_ARENAS = 2


@cache
def _glibc():
    """glibc's handle, or None where malloc is not glibc's."""
    name = ctypes.util.find_library("c")
    if not name:
        return None
    try:
        libc = ctypes.CDLL(name)
        libc.gnu_get_libc_version  # noqa: B018 (only glibc has it)
        libc.mallopt, libc.malloc_trim  # noqa: B018
    except (OSError, AttributeError):
        return None
    return libc


def limit_arenas(arenas: int = SERVER_ARENAS) -> bool:
    """Cap malloc arenas for this process (call before it starts threads). An explicit MALLOC_ARENA_MAX in
    the environment wins. Returns whether a cap was set here."""
    libc = _glibc()
    if libc is None or os.environ.get("MALLOC_ARENA_MAX"):
        return False
    return bool(libc.mallopt(M_ARENA_MAX, arenas))


def give_back() -> None:
    """Return free heap pages to the OS (after a big release, such as a stopped Chroma system)."""
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)
