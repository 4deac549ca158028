"""`jgm remember` (record or --dry-run validate a candidate), `jgm revise`, `jgm forget`.

Exit codes: 0 created/merged/skipped, 1 rejected, 3 saved but not indexed (re-run with the same
--run-key, or `jgm seed`, to finish), 2 usage/environment errors, 4 the record is file-backed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from ...records.kinds import REQUESTABLE_KINDS
from .common import emit_json, err, fail, out, reported
from .options import JsonOpt, RepoOpt


def service(repo: Path | None, as_json: bool):
    from ...candidates.service import CandidateService

    with reported(as_json):
        return CandidateService(repo)


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
        from ...candidates.answers import CandidateAnswer
        from ...recall.answers import dump

        emit_json(dump(CandidateAnswer, a.to_json()))
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


def answer_exit(a) -> int:
    if a.decision == "rejected":
        return 1
    return 3 if a.index_error else 0


def remember(
    kind: str = typer.Option(..., "--kind", help=f"Requested kind: {', '.join(REQUESTABLE_KINDS)}."),
    title: str = typer.Option(..., "--title", help="One line: what is true or decided."),
    body: str | None = typer.Option(None, "--body", help="The explanation (for a decision: why)."),
    body_file: str | None = typer.Option(None, "--body-file", help="Read the body from a file, `-` for stdin."),
    tag: list[str] = typer.Option([], "--tag", help="A tag (repeatable)."),
    source: str | None = typer.Option(None, "--source", help="Where it comes from (path, URL, command)."),
    evidence: list[str] = typer.Option([], "--evidence", help="What backs it (repeatable)."),
    agent: str | None = typer.Option(None, "--agent", envvar="JGM_AGENT", help="Who observed it ($JGM_AGENT)."),
    session: str | None = typer.Option(None, "--session", envvar="JGM_SESSION", help="The agent session."),
    work_item: str | None = typer.Option(None, "--work-item", help="Work item or bundle id."),
    run_key: str | None = typer.Option(
        None, "--run-key", help="Idempotency key: the same agent + key never creates a second candidate."
    ),
    trigger: str | None = typer.Option(None, "--trigger", help="What prompted it: the symptom, error or request."),
    change: str | None = typer.Option(None, "--change", help="What was changed."),
    verification: str | None = typer.Option(None, "--verification", help="How it was checked (command, test)."),
    scope: str | None = typer.Option(None, "--scope", help="project (this repository only) or transferable."),
    file: list[str] = typer.Option([], "--file", help="A repository file it is about (repeatable)."),
    supersedes: list[str] = typer.Option(
        [], "--supersedes", help="An in-force record id it proposes to retire (repeatable)."
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Validate only: say what would happen, write nothing."),
    repo: Path | None = RepoOpt,
    as_json: bool = JsonOpt,
):
    """Record an observation as a candidate (never a project rule by itself)."""
    from ...candidates.model import CandidateInput

    text = _read_body(body, body_file, as_json)
    inp = CandidateInput(
        kind,
        title,
        text,
        list(tag),
        source,
        list(evidence),
        agent,
        session,
        work_item,
        run_key,
        trigger,
        change,
        verification,
        scope,
        list(file),
        list(supersedes),
    )
    svc = service(repo, as_json)
    with reported(as_json):
        a = svc.record(inp, dry_run=dry_run)
    print_answer(a, as_json)
    raise typer.Exit(answer_exit(a))


def revise(
    record_id: str = typer.Argument(..., help="A candidate id (file-backed records are edited in Git)."),
    title: str | None = typer.Option(None, "--title"),
    body: str | None = typer.Option(None, "--body"),
    body_file: str | None = typer.Option(None, "--body-file", help="Read the body from a file, `-` for stdin."),
    tag: list[str] | None = typer.Option(None, "--tag", help="Replace the tags (repeatable)."),
    source: str | None = typer.Option(None, "--source"),
    agent: str | None = typer.Option(None, "--agent", envvar="JGM_AGENT"),
    repo: Path | None = RepoOpt,
    as_json: bool = JsonOpt,
):
    """Edit an open candidate in the store."""

    text = _read_body(body, body_file, as_json) if (body is not None or body_file is not None) else None
    svc = service(repo, as_json)
    with reported(as_json):
        c = svc.revise(record_id, title=title, body=text, tags=tag, source=source, agent=agent)
    if as_json:
        emit_json({"candidate": c})
    else:
        out.print(f"revised {c['id']} ({c['kind']}, {c['state']})", markup=False)


def forget(
    record_id: str = typer.Argument(..., help="A candidate id (file-backed records are removed in Git)."),
    agent: str | None = typer.Option(
        None, "--agent", envvar="JGM_AGENT", help="You, the agent that recorded it (as when recording)."
    ),
    reviewer: bool = typer.Option(False, "--reviewer", help="Forget it as the reviewer, whoever recorded it."),
    repo: Path | None = RepoOpt,
    as_json: bool = JsonOpt,
):
    """Delete an open candidate from the store (its row, chunks and vectors): its recorder or a reviewer."""

    svc = service(repo, as_json)
    with reported(as_json):
        res = svc.forget(record_id, agent=agent, reviewer=reviewer)
    if as_json:
        emit_json(res)
    else:
        out.print(f"forgot {res['id']} (was {res['state']})", markup=False)


def register(app: typer.Typer) -> None:
    app.command("remember")(remember)
    app.command("revise")(revise)
    app.command("forget")(forget)
