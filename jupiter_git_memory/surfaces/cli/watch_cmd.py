"""`jgm watch`: reindex as record files change (the logic lives in freshness/watch*.py)."""

from __future__ import annotations

from pathlib import Path

import typer

from .common import reported
from .options import RepoOpt, json_option


def watch(
    repo: Path | None = RepoOpt,
    debounce: float = typer.Option(0.3, "--debounce", min=0.0, help="Seconds of quiet before reindexing."),
    as_json: bool = json_option("Print one JSON object per line (ready, seed, stopped)."),
):
    """Watch the knowledge roots and reindex after changes settle; stops cleanly on Ctrl-C or SIGTERM."""
    from ...base.memory import limit_arenas

    limit_arenas()  # before any thread starts (base/memory.py)
    from ...freshness.watch_cli import run_cli

    with reported(as_json):
        code = run_cli(repo, debounce, as_json)
    raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    app.command("watch")(watch)
