"""`jgm model list | pull | add`."""

from __future__ import annotations

from pathlib import Path

import typer

from .common import emit_json, err, fail, out, progress_bar, reported
from .options import JsonBareOpt, JsonOpt, RepoOpt

app = typer.Typer(
    help="Embedding models: list specs, choose a workspace's model, pull from the hub, register a local folder.",
    no_args_is_help=True,
)


@app.command("list")
def list_(as_json: bool = JsonBareOpt):
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
def pull(name: str, as_json: bool = JsonBareOpt):
    """Download a shipped spec's files at its pinned revision (needs the hub)."""
    from ...embedding import registry

    with reported(as_json):
        spec = registry.pull_model(name)
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
    as_json: bool = JsonBareOpt,
):
    """Register a model from a local folder; files are hashed and the model is test-run."""
    if pooling not in (None, "cls", "mean"):
        fail("--pooling must be cls or mean", 2, as_json)
    from ...embedding import registry

    with reported(as_json):
        spec = registry.add_model(name, dir, pooling, dimension, max_tokens, query_instruction)
    if as_json:
        emit_json({"name": spec.name, "files": spec.files, "dimension": spec.dimension, "pooling": spec.pooling})
    else:
        out.print(
            f"registered {spec.name}: {spec.dimension}d, {spec.pooling} pooling; use it with JGM_MODEL={spec.name} "
            f'or `model = "{spec.name}"` in jgm.toml, then `jgm seed --rebuild`'
        )


@app.command()
def use(
    name: str = typer.Argument(..., help="A model name from `jgm model list`."),
    repo: Path | None = RepoOpt,
    as_json: bool = JsonOpt,
):
    """Switch this workspace to another model: re-embed everything beside the old vectors, then use it.

    Until the new vectors are complete, recall keeps answering from the old ones; the choice is stored with
    the workspace (in the store, not in the repository) and every seed, recall, hook and the daemon follow it."""
    import time

    from ...config import load_settings
    from ...embedding import registry
    from ...git.workspace import find_workspace
    from ...recall.calibrate import after_seed
    from ...seed import model_choice
    from ...seed.seeder import Seeder

    with reported(as_json):
        ws = find_workspace(repo)
        settings = load_settings(ws.repo_root)
        current = model_choice.resolve(settings, ws)
        if current.source in ("env", "settings"):
            fail(
                f"{current.reason}: that setting chooses the model ({current.model}) and wins over `jgm model use`; "
                f"change or remove it instead",
                2,
                as_json,
            )
        ok, why = registry.available(name)
        if not ok:
            fail(f"{why}", 2, as_json)
        seeder = Seeder(ws.repo_root, settings=settings, embedder=registry.load_embedder(name))
        with progress_bar(not as_json, "embedding") as cb:
            report = seeder.seed(rebuild=True, progress=cb)  # beside the old vectors: they answer until done
        choice = model_choice.ModelChoice(name, "workspace", "chosen with `jgm model use`", {}, time.time())
        model_choice.save_choice(ws.id, None, choice)
        floor = after_seed(seeder)
    data = {"workspace": ws.id, "model": name, "previous": current.model, "seed": report.to_json()["counts"]}
    data["floor"] = floor
    if as_json:
        emit_json(data)
        return
    out.print(
        f"{ws.id} now uses {name} (was {current.model}): {report.summary(detail=True)} in {report.seconds:.2f}s",
        markup=False,
    )
    if floor and floor.get("line"):
        out.print(floor["line"], markup=False)
    for e in report.errors:
        err.print(f"  {e['path']}: {e['message']}", markup=False)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="model")
