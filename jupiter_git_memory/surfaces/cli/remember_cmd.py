"""`jgm remember` (record or --dry-run validate a candidate), `jgm revise`, `jgm forget`.

Exit codes: 0 created/merged/skipped, 1 rejected, 3 saved but not indexed (re-run with the same
--run-key, or `jgm seed`, to finish), 2 usage/environment errors, 4 the record is file-backed.
"""

from __future__ import annotations

import dataclasses
import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from ...base.environment import AGENT, SESSION
from ...candidates.fields import REVISABLE, CandidateInput
from .common import emit_json, err, fail, out, reported
from .options import WHERE, JsonOpt, RepoOpt, here

# The CLI's own spelling of a few candidate fields (CandidateInput declares them all, candidates/fields.py):
FLAGS = {"tags": "--tag", "files": "--file"}  # one value a flag, repeatable
ENV = {"agent": AGENT.name, "session": SESSION.name}


def candidates(repo: Path | None, as_json: bool):
    """The repository's candidate operations (app/candidates.py)."""
    from ...app.candidates import Candidates

    with reported(as_json):
        return Candidates.for_repo(repo)


def emit(answer) -> None:
    """`--json`: a typed answer as JSON, with the keys it was given."""
    emit_json(answer.model_dump(mode="json", exclude_unset=True))


def _option(f: dataclasses.Field, revise: bool = False) -> inspect.Parameter:
    """A typer option for a CandidateInput field, from its declaration (description, list or not, choices)."""
    meta = f.metadata
    text = meta["description"].rstrip(".") + (f", {WHERE}" if f.name == "files" else "")
    if meta["choices"] and not all(c in text for c in meta["choices"]):
        text += f": {', '.join(meta['choices'])}"
    if meta["many"]:
        text += "; repeatable" + (", replaces the candidate's" if revise else "")
    text += "."
    required = meta["required"] and not revise
    default = ... if required else (None if revise or not meta["many"] else [])
    flag = FLAGS.get(f.name, "--" + f.name.replace("_", "-"))
    annotation = list[str] if meta["many"] else str
    return inspect.Parameter(
        f.name,
        inspect.Parameter.KEYWORD_ONLY,
        default=typer.Option(default, flag, help=text, envvar=ENV.get(f.name)),
        annotation=annotation if required or (meta["many"] and not revise) else annotation | None,
    )


def _with_options(*fields: inspect.Parameter, tail: tuple[inspect.Parameter, ...] = ()) -> Callable:
    """Give a command taking `**fields` these options (typer reads the signature); its own arguments (before
    `*`) come first, its keyword-only names are among `fields` and `tail`."""

    def apply(fn: Callable) -> Callable:
        first = [p for p in inspect.signature(fn).parameters.values() if p.kind is p.POSITIONAL_OR_KEYWORD]
        fn.__signature__ = inspect.Signature([*first, *fields, *tail])  # type: ignore[attr-defined]
        return fn

    return apply


def _body_options(help_text: str) -> tuple[inspect.Parameter, ...]:
    kw = inspect.Parameter.KEYWORD_ONLY
    return (
        inspect.Parameter("body", kw, default=typer.Option(None, "--body", help=help_text), annotation=str | None),
        inspect.Parameter(
            "body_file",
            kw,
            default=typer.Option(None, "--body-file", help="Read the body from a file, `-` for stdin."),
            annotation=str | None,
        ),
    )


def _candidate_options(names: tuple[str, ...] | None = None, revise: bool = False) -> list[inspect.Parameter]:
    """The options of CandidateInput's fields (`names`: only these), --body and --body-file for `body`."""
    params: list[inspect.Parameter] = []
    for f in dataclasses.fields(CandidateInput):
        if names is not None and f.name not in names:
            continue
        params += _body_options(f.metadata["description"]) if f.name == "body" else [_option(f, revise)]
    return params


_COMMON = (
    inspect.Parameter("repo", inspect.Parameter.KEYWORD_ONLY, default=RepoOpt, annotation=Path | None),
    inspect.Parameter("as_json", inspect.Parameter.KEYWORD_ONLY, default=JsonOpt, annotation=bool),
)


def _read_body(body: str | None, body_file: str | None, as_json: bool) -> str:
    if body is not None and body_file is not None:
        fail("give --body or --body-file, not both", 2, as_json)
    if body_file == "-":
        return sys.stdin.read()
    if body_file is not None:
        try:
            return Path(body_file).read_text("utf-8")
        except (OSError, UnicodeDecodeError) as e:
            fail(
                f"--body-file {body_file}: cannot read it ({e.__class__.__name__}); pass a UTF-8 text file",
                2,
                as_json,
                "bad-request",
            )
    return body or ""


def print_answer(a, as_json: bool) -> None:
    if as_json:
        emit(a)
        return
    verb = f"would be {a.decision}" if a.dry_run else a.decision
    reason = a.reason.removeprefix(f"{verb}: ")  # a dry run's reason already starts with "would be ..."
    if a.decision == "rejected":
        err.print(f"{verb} ({a.reason_code}): {reason}", markup=False)
    if a.rejected_before:
        r = a.rejected_before
        err.print(f"  a reviewer rejected this before ({r['id']}): {r['reason']}", markup=False)
    else:
        target = f" {a.id}" if a.id else ""
        out.print(f"{verb}{target}: {reason}" + (" (dry run: nothing was written)" if a.dry_run else ""), markup=False)
        if a.decision in ("created", "merged") and not a.dry_run:
            out.print(
                "  a candidate is not a project rule: review it with `jgm candidates show|propose|reject`", markup=False
            )
    for w in a.warnings:
        err.print(f"  warning: {w}", markup=False)
    if a.index_error:
        err.print(
            f"  not indexed yet ({a.index_error}); re-run with the same --run-key or `jgm seed` to finish", markup=False
        )


@_with_options(
    *_candidate_options(),
    inspect.Parameter(
        "dry_run",
        inspect.Parameter.KEYWORD_ONLY,
        default=typer.Option(False, "--dry-run", help="Validate only: say what would happen, write nothing."),
        annotation=bool,
    ),
    tail=_COMMON,
)
def remember(
    *, body: str | None, body_file: str | None, dry_run: bool, repo: Path | None, as_json: bool, **fields: Any
):
    """Record an observation as a candidate (never a project rule by itself)."""
    from ...app.candidate_requests import CandidateRequest
    from ...candidates.errors import CandidateRejected

    text = _read_body(body, body_file, as_json)
    request = CandidateRequest.model_construct(**fields, body=text)  # the checks answer for bad text (exit 1)
    ops = candidates(repo, as_json)
    with reported(as_json):  # any other failure: its code and exit
        try:
            a = ops.record(request, dry_run=dry_run, cwd=here())
        except CandidateRejected as e:  # the answer says why (exit 1)
            print_answer(e.answer, as_json)
            raise typer.Exit(e.exit_code) from None
    print_answer(a, as_json)
    raise typer.Exit(3 if a.index_error else 0)  # 3: saved, its indexing still owed


@_with_options(
    *_candidate_options(REVISABLE, revise=True),
    inspect.Parameter(
        "agent",
        inspect.Parameter.KEYWORD_ONLY,
        default=typer.Option(None, "--agent", envvar=AGENT.name),
        annotation=str | None,
    ),
    tail=_COMMON,
)
def revise(
    record_id: str = typer.Argument(..., help="A candidate id (file-backed records are edited in Git)."),
    *,
    body: str | None,
    body_file: str | None,
    repo: Path | None,
    as_json: bool,
    **fields: Any,
):
    """Edit an open candidate in the store: the options given replace its fields, the rest are kept."""
    from ...app.candidate_requests import ReviseRequest

    text = _read_body(body, body_file, as_json) if (body is not None or body_file is not None) else None
    ops = candidates(repo, as_json)
    with reported(as_json):
        c = ops.revise(record_id, ReviseRequest.model_construct(**fields, body=text), cwd=here())
    if as_json:
        emit(c)
    else:
        out.print(f"revised {c.candidate.id} ({c.candidate.kind}, {c.candidate.state})", markup=False)


def forget(
    record_id: str = typer.Argument(..., help="A candidate id (file-backed records are removed in Git)."),
    agent: str | None = typer.Option(
        None, "--agent", envvar=AGENT.name, help="You, the agent that recorded it (as when recording)."
    ),
    reviewer: bool = typer.Option(False, "--reviewer", help="Forget it as the reviewer, whoever recorded it."),
    repo: Path | None = RepoOpt,
    as_json: bool = JsonOpt,
):
    """Delete an open candidate from the store (its row, chunks and vectors): its recorder or a reviewer."""
    ops = candidates(repo, as_json)
    with reported(as_json):
        res = ops.forget(record_id, agent=agent, reviewer=reviewer)
    if as_json:
        emit(res)
    else:
        out.print(f"forgot {res.id} (was {res.state})", markup=False)


def register(app: typer.Typer) -> None:
    app.command("remember")(remember)
    app.command("revise")(revise)
    app.command("forget")(forget)
