"""`jgm candidates list | show ID | propose ID | reject ID --why`: the reviewer's side of the flow."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from .common import err, out, reported
from .options import JsonOpt, RepoOpt
from .remember_cmd import candidates, emit

app = typer.Typer(help="Review agents' candidates: list, show, propose as a PR branch, reject.", no_args_is_help=True)


def _run(repo: Path | None, as_json: bool, op: Callable[[Any], Any]) -> Any:
    """Run `op` on the repository's candidate operations (app/candidates.py); `--json` prints its typed
    answer. A failure leaves through the CLI's one error path with its code and exit."""
    ops = candidates(repo, as_json)
    with reported(as_json):
        answer = op(ops)
    if as_json:
        emit(answer)
    return answer


@app.command("list")
def list_(
    state: str = typer.Option(
        "queue", "--state", help="queue (open + proposed) | open | proposed | promoted | rejected | all"
    ),
    repo: Path | None = RepoOpt,
    as_json: bool = JsonOpt,
):
    """Candidates, oldest first (the review queue by default)."""
    answer = _run(repo, as_json, lambda ops: ops.listing(state))
    if as_json:
        return
    rows = [c.model_dump() for c in answer.candidates]
    if not rows:
        out.print(f"no candidates ({state})")
    for c in rows:
        agent = c["provenance"].get("agent", "?")
        extra = {
            "proposed": f" → {(c.get('proposal') or {}).get('branch')}",
            "promoted": f" → {c.get('promoted_to')}",
            "rejected": f": {c.get('reason')}",
        }.get(c["state"], "")
        pending = "" if c.get("indexed") else " [not indexed]"
        out.print(
            f"{c['id']}  {c['kind']:<8} {c['state']:<8} {c['title']}  ({agent}, "
            f"{len(c['evidence'])} observation(s)){extra}{pending}",
            markup=False,
        )


@app.command()
def show(candidate_id: str, repo: Path | None = RepoOpt, as_json: bool = JsonOpt):
    """One candidate: every field the agent sent, its observations, revisions and review state."""
    from ...candidates.said import candidate_values, said
    from ...records.text import inline

    answer = _run(repo, as_json, lambda ops: ops.show(candidate_id))
    if as_json:
        return
    c = answer.candidate.model_dump()
    out.print(
        f"{c['id']} · requested kind {c['kind']} · status candidate · state {c['state']}"
        f"{'' if c.get('indexed') else ' · not indexed'}",
        markup=False,
    )
    out.print(f"title: {inline(c['title'])}", markup=False)
    out.print("\n" + c["body"] + "\n", markup=False)
    for f in said(candidate_values(c), skip=("kind", "title", "body")):
        _print_said(f)
    for e in c["evidence"][1:]:  # the first observation is the recorder's, printed above
        who = ", ".join(f"{k}={inline(e[k])}" for k in ("agent", "session", "work_item", "run_key") if e.get(k))
        backing = "; ".join(inline(x) for x in [e.get("source"), *(e.get("evidence") or [])] if x)
        out.print(
            f"  observed by {who or '?'}{': ' + backing if backing else ''}"
            f"{' as ' + repr(e['title']) if e.get('title') else ''}",
            markup=False,
        )
        shown = ("agent", "session", "work_item", "run_key", "source", "evidence", "title", "body")
        for f in said(e, skip=shown):
            _print_said(f, indent="    ")
    for r in c.get("revisions") or []:
        out.print(f"  revised by {r.get('agent') or '?'} ({', '.join(r.get('fields') or [])})", markup=False)
    if c.get("proposal"):
        p = c["proposal"]
        out.print(
            f"proposed as {p['record_id']} ({p['status']}) on branch {p['branch']}: {p['pr_command']}", markup=False
        )
    if c.get("promoted_to"):
        out.print(f"promoted to {c['promoted_to']}", markup=False)
    if c.get("reason"):
        out.print(f"rejected: {c['reason']}", markup=False)
    for w in c.get("warnings") or []:
        err.print(f"  warning: {w}", markup=False)


def _print_said(f: Any, indent: str = "") -> None:
    """One field the agent sent: `name: value` on one line (escaped: a line break in it cannot start a forged
    line), a text of several lines indented under its name, a list one entry a line."""
    from ...records.text import inline

    if f.many:
        out.print(f"{indent}{f.label}:", markup=False)
        for v in f.value:
            out.print(f"{indent}  - {inline(v)}", markup=False)
    elif f.multiline:
        out.print(f"{indent}{f.label}:", markup=False)
        for line in f.value.splitlines():
            out.print(f"{indent}    {inline(line)}", markup=False)
    else:
        out.print(f"{indent}{f.label}: {inline(f.value)}", markup=False)


@app.command()
def propose(
    candidate_id: str,
    status: str = typer.Option("proposed", "--status", help="proposed | accepted (facts: unverified | verified)."),
    base: str | None = typer.Option(None, "--base", help="Commit/branch to branch from (default: HEAD)."),
    open_pr: bool = typer.Option(False, "--open-pr", help="Push the branch and open the PR with `gh`."),
    repo: Path | None = RepoOpt,
    as_json: bool = JsonOpt,
):
    """Write the record file on a new branch (your branch and working tree are not touched)."""
    from ...app.candidate_requests import ProposeRequest

    request = ProposeRequest.model_construct(status=status, base=base, open_pr=open_pr)  # checked when written
    answer = _run(repo, as_json, lambda ops: ops.propose(candidate_id, request))
    res = answer.model_dump()
    if not as_json:
        again = " (already proposed)" if res.get("already_proposed") else ""
        out.print(f"proposed {candidate_id} as {res['record_id']} ({res['status']}){again}", markup=False)
        out.print(f"  branch {res['branch']} · commit {res['commit'][:12]} · file {res['path']}", markup=False)
        pr = res.get("pr")
        if pr and pr.get("opened"):
            out.print(f"  pull request: {pr.get('url')}", markup=False)
        else:
            if pr:
                err.print(f"  could not open the PR: {pr['error']}", markup=False)
            out.print(f"  open the PR with: {res['pr_command']}", markup=False)
        out.print("  after the merge, `jgm seed` (or the post-merge hook) marks the candidate promoted", markup=False)
    pr = res.get("pr")
    raise typer.Exit(1 if pr and not pr.get("opened") else 0)


@app.command()
def reject(
    candidate_id: str,
    why: str = typer.Option(..., "--why", help="Why: kept with the candidate for the agent."),
    repo: Path | None = RepoOpt,
    as_json: bool = JsonOpt,
):
    """Reject a candidate; it stays in the store with the reason, out of recall."""
    from ...app.candidate_requests import RejectRequest

    answer = _run(repo, as_json, lambda ops: ops.reject(candidate_id, RejectRequest.model_construct(why=why)))
    if not as_json:
        out.print(f"rejected {answer.candidate.id}: {answer.candidate.reason}", markup=False)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="candidates")
