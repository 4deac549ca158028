"""`jgm model list | pull | add`."""

from __future__ import annotations

from pathlib import Path

import typer

from .common import emit_json, fail, fail_with, out

app = typer.Typer(
    help="Embedding models: list specs, pull from the hub, register a local folder.", no_args_is_help=True
)


@app.command("list")
def list_(as_json: bool = typer.Option(False, "--json")):
    """Show model specs and whether their files are available."""
    from ...embedding import registry

    rows = registry.list_models()
    if as_json:
        emit_json({"models": rows})
        return
    for r in rows:
        flag = "default" if r["default"] else ("available" if r["available"] else "not installed")
        out.print(f"{r['name']:<22} {r['dimension']:>4}d {r['pooling']:<5} {flag:<13} {r['description']}", markup=False)


@app.command()
def pull(name: str, as_json: bool = typer.Option(False, "--json")):
    """Download a shipped spec's files at its pinned revision (needs the hub)."""
    from ...embedding import registry
    from ...embedding.onnx_embedder import ModelError

    try:
        spec = registry.pull_model(name)
    except ModelError as e:
        fail_with(e, as_json)
    out.print(f"installed {spec.name} ({spec.model_id}@{spec.revision})")


@app.command()
def add(
    name: str,
    dir: Path = typer.Option(
        ..., "--dir", exists=True, file_okay=False, help="Folder with model.onnx and tokenizer.json."
    ),
    pooling: str | None = typer.Option(None, "--pooling", help="cls | mean (new names only)."),
    dimension: int | None = typer.Option(None, "--dimension", help="Vector size (new names only)."),
    max_tokens: int | None = typer.Option(None, "--max-tokens"),
    query_instruction: str | None = typer.Option(None, "--query-instruction"),
    as_json: bool = typer.Option(False, "--json"),
):
    """Register a model from a local folder; files are hashed and the model is test-run."""
    if pooling not in (None, "cls", "mean"):
        fail("--pooling must be cls or mean", 2, as_json)
    from ...embedding import registry
    from ...embedding.onnx_embedder import ModelError

    try:
        spec = registry.add_model(name, dir, pooling, dimension, max_tokens, query_instruction)
    except ModelError as e:
        fail_with(e, as_json)
    if as_json:
        emit_json({"name": spec.name, "files": spec.files, "dimension": spec.dimension, "pooling": spec.pooling})
    else:
        out.print(
            f"registered {spec.name}: {spec.dimension}d, {spec.pooling} pooling; use it with JGM_MODEL={spec.name} "
            f'or `model = "{spec.name}"` in jgm.toml, then `jgm seed --rebuild`'
        )


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="model")
