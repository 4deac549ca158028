"""How an installed entry starts jgm: the command line every client file jgm writes names, and the marker by
which jgm knows its own entries again (a re-install replaces them in place, uninstall takes out only them)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Any

SERVER_NAME = "jupiter-git-memory"
ENTRY_MODULE = "jupiter_git_memory"
PORTABLE_COMMAND = "jgm"  # the console script: found on each machine's PATH (decision dec-agent-portable-command)
HOOK_TIMEOUT_SECONDS = 30  # the client kills the hook after this; the hook gives up earlier (hook.py)
STALE_NOTE = "Note (memory may be stale): "  # a hook answer's line about unindexed edits, shown to the user too


@dataclass(frozen=True)
class Launch:
    """How an installed entry starts jgm, and for which repository. Project scope (files a team commits):
    `jgm`, looked up on each machine's PATH; its console script starts the light entry (`__main__.py`) and,
    unlike `python -m`, never puts the working directory on `sys.path`, so a checked-out branch cannot shadow
    the package. Local scope (this machine only): the installing interpreter, `-P -m jupiter_git_memory`."""

    argv: tuple[str, ...]
    root: str = ""  # the repository's top: the key of Claude Code's per-project table in ~/.claude.json

    @classmethod
    def portable(cls, root: str = "") -> Launch:
        return cls((PORTABLE_COMMAND,), root)

    @classmethod
    def interpreter(cls, python: str, root: str = "") -> Launch:
        return cls((python, "-P", "-m", ENTRY_MODULE), root)


def mcp_entry(launch: Launch) -> dict[str, Any]:
    """`jgm mcp`; the store is found from the repository's `git config jgm.home`, as the git hooks find it."""
    return {"command": launch.argv[0], "args": [*launch.argv[1:], "mcp"]}


def hook_marker(client: str) -> str:
    """In every command jgm writes for `client`, in either form (`jgm hook …`, `python -P -m … hook …`), so a
    re-install in the other form replaces the old entry in place."""
    return f" hook {client} "


def hook_command(launch: Launch, client: str, event: str) -> str:
    return f"{shlex.join(launch.argv)}{hook_marker(client)}{event}"
