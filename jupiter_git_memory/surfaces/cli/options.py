"""The options many commands share, declared once (as sqlite-utils does): a command names `repo: Path | None =
RepoOpt, as_json: bool = JsonOpt` and gets the same flag, default and help text as every other command.
How a command then prints its answer (`answer`, `emit_json`) and how it fails (`reported`) live in common.py.

A repository path on the command line (`governs PATH`, `--file`, `check --explain`) is sent as typed with
`here()`, the folder it was typed in; app/paths.py reads it from there, once, for every surface.

An option whose help says something of its own (the daemon's `--repo` names a store, the watcher's `--json`
prints one object per line) is made here too, through `repo_option` / `json_option`, so the flag and its
default are still written once.
"""

from __future__ import annotations

import os
from typing import Any

import typer

REPO_HELP = "Repository path (default: the current one)."
WHERE = "relative to the current folder, or absolute"
JSON_HELP = "Print JSON."


def repo_option(help: str = REPO_HELP) -> Any:
    """`--repo PATH`: the repository (and so the workspace) a command works on; None is the current one."""
    return typer.Option(None, "--repo", help=help)


def json_option(help: str | None = JSON_HELP) -> Any:
    """`--json`: print the answer as one JSON object (common.emit_json) instead of text."""
    return typer.Option(False, "--json", help=help)


RepoOpt = repo_option()
JsonOpt = json_option()
# `--json` of the commands whose flag had no help line; kept so the command reference stays as it was
JsonBareOpt = json_option(help=None)
AtOpt = typer.Option(None, "--at", help="Answer as of this commit, tag or branch.")
FileOpt = typer.Option([], "--file", help=f"A file the task touches, {WHERE} (repeatable).")


def here() -> str:
    """The folder the command was typed in: what a relative repository path on its command line is read
    from (app/paths.py; with `--repo` elsewhere, a path that does not exist here is repository-relative)."""
    return os.getcwd()
