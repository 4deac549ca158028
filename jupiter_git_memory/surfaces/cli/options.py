"""The options many commands share, declared once (as sqlite-utils does): a command names `repo: Path | None =
RepoOpt, as_json: bool = JsonOpt` and gets the same flag, default and help text as every other command.
How a command then prints its answer (`answer`, `emit_json`) and how it fails (`reported`) live in common.py.

An option whose help says something of its own (the daemon's `--repo` names a store, the watcher's `--json`
prints one object per line) is made here too, through `repo_option` / `json_option`, so the flag and its
default are still written once.
"""

from __future__ import annotations

from typing import Any

import typer

REPO_HELP = "Repository path (default: the current one)."
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
