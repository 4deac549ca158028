"""`jgm drift`: which in-force records cite code that changed since they were written (docs/drift.md);
`jgm governs PATH...`: which in-force records cite a path (the decisions a change is subject to)."""

from __future__ import annotations

from pathlib import Path

import typer

from ...app.limits import MAX_GOVERNS
from .common import emit_json, err, esc, out, reported
from .options import WHERE, AtOpt, JsonOpt, RepoOpt, here


def _cites(r: dict) -> str:
    """The citations that did not stay put: drifted, moved (and where to), missing; external evidence."""
    parts = [
        f"{v['ref']} {v['state']}" + (f" → {v['at']}" if v.get("at") else "")
        for v in r.get("citations") or []
        if v["state"] != "fresh" or v.get("at")
    ]
    if r.get("external"):
        parts.append("external: " + ", ".join(r["external"]))
    return "; ".join(parts)


def _since(r: dict) -> str:
    if r["state"] == "missing":
        return "gone: " + ", ".join(r["missing"])
    if r["state"] != "drifted":
        return ""
    parts = [f"{c['sha'][:10]} {c['subject']} ({c['author']}, {c['date'][:10]})" for c in r["changed"][:3]]
    if r["commits"] > 3:
        parts.append(f"… {r['commits'] - 3} more")
    if r["uncommitted"]:
        parts.append("uncommitted: " + ", ".join(r["uncommitted"]))
    return "; ".join(parts) + (f" [{r['diffstat']}]" if r["diffstat"] else "")


drift_app = typer.Typer(no_args_is_help=False)


@drift_app.callback(invoke_without_command=True)
def drift(
    ctx: typer.Context,
    repo: Path | None = RepoOpt,
    base: str | None = typer.Option(
        None, "--base", metavar="REV", help="Only records whose cited code changes between REV and HEAD (a PR)."
    ),
    at: str | None = AtOpt,
    as_json: bool = JsonOpt,
    as_markdown: bool = typer.Option(False, "--markdown", help="Print a pull-request comment (Markdown)."),
    fail_on: str = typer.Option(
        "never", "--fail-on", help="Exit 1 when a listed record is: drifted (or missing) | missing | never."
    ),
):
    """Evidence drift: each in-force record with citations is fresh, drifted (what it cites changed since its
    baseline, its last confirmation, else its file's last commit: a symbol's or range's text, a file past the size
    rule), missing (a cited path or symbol is gone) or external (it cites only evidence outside the repository).
    `jgm drift confirm ID...` records that you re-read records against the current code."""
    if ctx.invoked_subcommand is not None:
        return
    from ...app.drift import DriftRequest
    from ...app.drift import drift as run
    from ...recall import evidence
    from ...recall.service import Recaller

    with reported(as_json):
        if fail_on not in evidence.FAIL_ON:
            raise ValueError(f"--fail-on must be one of {', '.join(evidence.FAIL_ON)}, not {fail_on!r}")
        rep = run(Recaller(repo), DriftRequest.model_construct(at=at, base=base))
    code = 1 if evidence.failed(rep, fail_on) else 0
    if as_json:
        from ...recall.answers import DriftAnswer, dump

        emit_json(dump(DriftAnswer, rep))
    elif as_markdown:
        out.print(evidence.markdown(rep), markup=False, end="")
    else:
        c = rep["counts"]
        out.print(
            f"{c['drifted']} drifted, {c['missing']} missing, {c['fresh']} fresh, {c['external']} external",
            markup=False,
        )
        for r in rep["records"]:
            touched = f" · touches {', '.join(r['touched'])}" if r.get("touched") else ""
            if r.get("baseline") and r["baseline"] != r.get("commit"):  # counted from its last confirmation
                touched += f" · confirmed at {r['baseline'][:10]}"
            out.print(f"[bold]{esc(r['state']):8}[/] {esc(r['id'])}: {esc(r['title'])}{esc(touched)}", markup=True)
            for line in (_cites(r), _since(r)):
                if line:
                    out.print(f"         {line}", markup=False)
    raise typer.Exit(code)


def governs(
    paths: list[str] = typer.Argument(..., help=f"Files or folders (e.g. the files a change touches), {WHERE}."),
    repo: Path | None = RepoOpt,
    as_json: bool = JsonOpt,
    k: int = typer.Option(50, "-k", min=1, max=MAX_GOVERNS, help="How many records at most."),
    at: str | None = AtOpt,
):
    """The in-force records that cite these paths (a file, a folder above it, or a glob covering it)."""
    from ...app.drift import GovernsRequest
    from ...app.drift import governs as run
    from ...recall.service import Recaller

    with reported(as_json):
        answer = run(Recaller(repo), GovernsRequest.model_construct(paths=paths, k=k, at=at, cwd=here()))
    files, records = answer["files"], answer["records"]
    if as_json:
        from ...recall.answers import GovernsAnswer, dump

        emit_json(dump(GovernsAnswer, answer))
        return
    for w in answer["warnings"]:
        err.print(f"note: {w}", markup=False)
    if not records:
        out.print(f"no in-force record cites {', '.join(files)}", markup=False)
    for r in records:
        state = (r.get("evidence") or {}).get("state", "")
        out.print(f"[bold]{esc(r['id'])}[/]: {esc(r['title'])} [dim]({esc(state)})[/]", markup=True)
        for g in r["governs"]:
            out.print(f"   {g['file']}: {g['reason']}", markup=False)


@drift_app.command("confirm")
def confirm(
    ids: list[str] = typer.Argument(..., help="The records you re-read against the current code."),
    branch: bool = typer.Option(
        False,
        "--branch",
        help="Commit the lines on a new branch from HEAD (as `candidates propose` does); the "
        "working tree stays as it is.",
    ),
    repo: Path | None = RepoOpt,
    as_json: bool = JsonOpt,
):
    """Record that you re-read these records against the code at HEAD: one `reviewed: <sha> on <date>` line in
    each record file (a `Reviewed:` line or bullet in an ADR), on the working tree for you to commit, or with
    --branch on a new branch. Each is fresh until its cited code changes again (docs/drift.md)."""
    from ...app.drift import ConfirmRequest
    from ...app.drift import confirm as run
    from ...recall.service import Recaller

    with reported(as_json):
        answer = run(Recaller(repo), ConfirmRequest.model_construct(ids=ids, branch=branch))
    if as_json:
        from ...recall.answers import ConfirmAnswer, dump

        emit_json(dump(ConfirmAnswer, answer))
        return
    where = f"on branch {answer['branch']}" if answer["mode"] == "branch" else "in the working tree"
    for r in answer["records"]:
        out.print(f"confirmed {r['id']} ({r['state']}): {r['path']}:{r['line']} {r['text']}", markup=False)
    out.print(f"written {where}; next: {answer['next']}", markup=False)
    for w in answer.get("warnings") or []:
        err.print(f"warning: {w}", markup=False)


def register(app: typer.Typer) -> None:
    app.add_typer(drift_app, name="drift")
    app.command("governs")(governs)
