"""`jgm`: seed, recall, check and the command groups."""

from __future__ import annotations

from pathlib import Path

import typer

from ...app.limits import MAX_RECALL_K
from .common import emit_json, err, esc, out, progress_bar, reported, via_daemon
from .group import HOME_HELP, ROOT, JgmGroup
from .options import WHERE, AtOpt, JsonOpt, RepoOpt, here

app = typer.Typer(
    help="jupiter-git-memory: Git-native long-term memory for coding agents.",
    cls=JgmGroup,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        import sys

        from ... import __version__

        sys.stdout.write(f"jgm {__version__}\n")  # not through `out`: it would import rich for one line
        raise typer.Exit(0)


@app.callback()
def main(
    version: bool = typer.Option(False, "--version", is_eager=True, callback=_version, help="Print the version."),
    home: Path | None = typer.Option(None, "--home", metavar="DIR", file_okay=False, help=HOME_HELP),
):
    """jupiter-git-memory: Git-native long-term memory for coding agents."""
    ROOT["home"] = home


@app.command()
def seed(
    repo: Path | None = RepoOpt,
    rev: str | None = typer.Option(None, "--rev", help="Index this commit from Git objects."),
    rebuild: bool = typer.Option(
        False,
        "--rebuild",
        help="Re-read and re-embed everything into a new collection (e.g. after a model change); the old "
        "vectors answer until it finishes.",
    ),
    as_json: bool = JsonOpt,
    verbose: bool = typer.Option(False, "-v", "--verbose", help="List skipped files."),
):
    """Index the repo's knowledge records (incremental)."""
    from ...base.store import store_root
    from ...config.discover import discovery_notes
    from ...git.home import record_home
    from ...recall.answers import dump
    from ...recall.calibrate import calibrating_seeder
    from ...seed.answers import SeedAnswer

    with reported(as_json):
        seeder = calibrating_seeder(repo)
        with progress_bar(not as_json, "embedding") as cb:
            report = seeder.seed(rev=rev, rebuild=rebuild, progress=cb)
    noted = record_home(seeder.workspace.repo_root, store_root())
    hint = _no_roots_hint(seeder.workspace.repo_root, seeder.settings) if not rev else None
    found = discovery_notes(seeder.settings) if not rev else []
    if as_json:
        data = dict(report.to_json(), store=str(store_root()), notes=[n for n in (noted, hint, *found) if n])
        emit_json(dump(SeedAnswer, data))
    else:
        for n in (noted, hint, *found):
            if n:
                err.print(f"note: {n}", markup=False)
        out.print(
            f"seeded {report.workspace} at {(report.commit or 'no commit')[:12]}{' (dirty)' if report.dirty else ''}: "
            f"{report.summary(detail=True)}, {len(report.errors)} errors in {report.seconds:.2f}s"
        )
        if report.model and report.model.get("decided_now"):
            out.print(f"model {report.model['name']}: {report.model['reason']}", markup=False)
        for w in (report.model or {}).get("warnings") or []:
            err.print(f"warning: {w}", markup=False)
        if report.floor and report.floor.get("line"):  # which floor is in force, and where it came from
            out.print(report.floor["line"], markup=False)
        for e in report.errors + report.warnings:
            where = f"{e['path']}:{e['line']}" if e.get("line") else e["path"]
            err.print(f"  {where}: {e['severity']}: {e['message']} — fix: {e['fix']}", markup=False)
        from ...seed.reading import render_inventory

        for line in render_inventory(report.inventory):
            out.print(f"  {line}", markup=False)
        if verbose:
            for s in report.skipped:
                out.print(f"  skipped {s['path']}: {s['reason']}", markup=False)
    raise typer.Exit(1 if report.errors else 0)


@app.command()
def recall(
    query: str = typer.Argument(..., help="What you want to know."),
    repo: Path | None = RepoOpt,
    k: int = typer.Option(5, "-k", min=1, max=MAX_RECALL_K, help="How many records at most."),
    kind: list[str] = typer.Option([], "--kind", help="Only these kinds (repeatable)."),
    status: list[str] = typer.Option([], "--status", help="Replace the default statuses (repeatable)."),
    mode: str | None = typer.Option(None, "--mode", help="hybrid (default) | dense | lexical"),
    at: str | None = AtOpt,
    as_json: bool = JsonOpt,
):
    """Recall records for a question under the memory contract (as of a commit with --at)."""
    from ...recall.answers import RecallAnswer, dump

    asked = {"query": query, "k": k, "kinds": kind, "statuses": status, "mode": mode, "at": at}
    res = via_daemon("recall", asked, repo)  # warm when the daemon answers; it never changes the answer
    if res is None:
        from ...app.recall import RecallRequest
        from ...app.recall import recall as run
        from ...recall.ranking import check_mode
        from ...recall.service import Recaller

        with reported(as_json):  # before the model loads
            if mode:
                check_mode(mode)
        with reported(as_json, answer=True):
            res = run(Recaller(repo), RecallRequest.model_construct(**asked)).to_json()
    if as_json:
        emit_json(dump(RecallAnswer, res))
        return
    from ...recall.results import via_note
    from ...records.drift import evidence_line

    for w in res["warnings"]:
        err.print(f"[yellow]warning:[/] {esc(w)}", markup=True)
    if not res["results"]:
        reason = (res["why"] or {}).get("reason", f"nothing above the floor {res['floor']}")
        out.print(
            f"no match above the floor ({res['floor']}); the knowledge base may not know this: {reason}.",
            markup=False,
        )
    marked = [bool((r.get("why") or {}).get("fallback")) for r in res["results"]]
    if res.get("fallback") and all(marked):  # on stdout too: a pipe must not take these for records in force
        out.print("no in-force record matches; these are proposed, not in force:", markup=False)
    elif res.get("fallback"):  # a mostly unmapped collection answered beside the in-force records
        out.print("results marked (fallback) are proposed, not in force:", markup=False)
    for i, r in enumerate(res["results"], 1):
        tag = " (fallback)" if marked[i - 1] and not all(marked) else ""
        out.print(
            f"[bold]{i}. {esc(r['title'])}[/]  [dim]{esc(r['id'])} · {esc(r['kind'])}/{esc(r['status'])}{tag} · "
            f"score {r['score']}[/]",
            markup=True,
        )
        out.print(
            f"   {r['path'] or r['origin']}{'@' + r['commit'][:10] if r.get('commit') else ''}"
            f"{' (uncommitted changes)' if r.get('dirty') else ''}",
            markup=False,
        )
        if via_note(r):  # returned in place of the retired record that matched (docs/concepts.md)
            out.print(f"   {via_note(r)}: the question matched that retired record; this one replaces it", markup=False)
        if evidence_line(r):  # the code it cites moved on since it was written (docs/drift.md)
            out.print("   " + evidence_line(r).removeprefix(" · "), markup=False)
        out.print("   " + " ".join(r["snippet"].split())[:240], markup=False)
    receipt = res["receipt"]
    view = f" · as of {receipt['index']['at'][:12]}" if receipt["index"].get("at") else ""
    floor = (res.get("floor_provenance") or {}).get("in_force") or f"floor {res['floor']} ({res['floor_source']})"
    out.print(f"[dim]receipt {receipt['id']} · {esc(floor)}{esc(view)}[/]", markup=True)


@app.command()
def check(
    repo: Path | None = RepoOpt,
    as_json: bool = JsonOpt,
    explain: str | None = typer.Option(
        None,
        "--explain",
        metavar="PATH",
        help=f"Show how one file ({WHERE}) is read: adapter, id, kind, status and why, links.",
    ),
):
    """Validate the knowledge base (no index needed). Exits 1 on errors or on a root whose Markdown files gave
    no record: fit for CI and pre-commit."""
    from ...config import load_settings
    from ...config.discover import discovery_notes
    from ...git.workspace import find_workspace
    from ...seed.checking import check_repo, render_explain
    from ...seed.checking import explain as explain_file

    with reported(as_json):
        ws = find_workspace(repo)
        settings = load_settings(ws.repo_root)
        if explain:
            from ...app.paths import repo_path

            shown = explain_file(ws.repo_root, settings, repo_path(ws.repo_root, explain, here()))
    if explain:
        if as_json:
            emit_json(shown)
        else:
            for line in render_explain(shown):
                out.print(line, markup=False)
        raise typer.Exit(1 if any(i["severity"] == "error" for i in shown["issues"]) else 0)
    notes = [n for n in (_no_roots_hint(ws.repo_root, settings), *discovery_notes(settings)) if n]
    if not as_json:
        for n in notes:
            err.print(f"note: {n}", markup=False)
    rep = check_repo(ws.repo_root, settings)
    issues = rep.pop("_issues")
    if as_json:
        emit_json({**rep, "notes": notes})
    else:
        from ...seed.reading import render_inventory

        for i in issues:
            (err if i.severity == "error" else out).print(i.render(), markup=False)
        for line in render_inventory(rep["inventory"]):
            out.print(line, markup=False)
        out.print(
            f"{rep['files']} files, {rep['records']} valid records, {len(rep['errors'])} errors, "
            f"{len(rep['warnings'])} warnings, {len(rep['skipped'])} skipped",
            markup=False,
        )
    raise typer.Exit(0 if rep["ok"] else 1)


def _no_roots_hint(root: Path, settings) -> str | None:
    """One line for a repository without knowledge roots (a configured root that is missing is a ConfigError)."""
    if any((root / r).is_dir() for r in settings.roots):
        return None
    return (
        f"no knowledge roots in {root}: create {settings.roots[0]}/ with records (docs/records.md), "
        "or set `roots` in jgm.toml"
    )


def _register_commands() -> None:
    """Every `surfaces/cli/*_cmd.py` module registers its commands with `register(app)`."""
    import importlib
    import pkgutil

    from .. import cli

    for info in sorted(pkgutil.iter_modules(cli.__path__), key=lambda m: m.name):
        if info.name.endswith("_cmd"):
            importlib.import_module(f"{cli.__name__}.{info.name}").register(app)


_register_commands()
