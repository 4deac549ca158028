"""base/memory.py: the arena cap servers set at start, and what leaves it alone."""

from __future__ import annotations

import platform

import pytest

from jupiter_git_memory.base import memory

pytestmark = pytest.mark.unit

glibc = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt and malloc_trim are glibc's")


@glibc
def test_servers_cap_arenas_unless_the_user_chose(monkeypatch):
    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    assert memory.limit_arenas() is True
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")  # the user's own setting wins
    assert memory.limit_arenas() is False
    memory.give_back()  # returns free pages; must not raise


def test_without_glibc_both_are_no_ops(monkeypatch):
    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    monkeypatch.setattr(memory, "_glibc", lambda: None)
    assert memory.limit_arenas() is False
    memory.give_back()
