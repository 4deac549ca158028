"""The `jgm` command line (Typer)."""
