"""`jgm recall-task`, `jgm context`, `jgm receipt show|verify`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from ...app.limits import MAX_K
from .common import emit_json, err, fail_with, out, reported, via_daemon
from .options import FileOpt, JsonBareOpt, RepoOpt, here

if TYPE_CHECKING:
    from ...recall.service import Recaller

receipt_app = typer.Typer(help="Receipts: what a recall returned and against which index state.", no_args_is_help=True)
StatusOpt = typer.Option(
    [], "--status", help="Replace the default statuses (accepted, verified, unverified), e.g. historical (repeatable)."
)


def _recaller(repo, as_json) -> Recaller:
    from ...recall.service import Recaller

    with reported(as_json, answer=True):
        return Recaller(repo)


def recall_task_cmd(
    goal: str = typer.Option(..., "--goal", help="What the task is."),
    error: list[str] = typer.Option([], "--error", help="An error signature (repeatable)."),
    file: list[str] = FileOpt,
    repo: Path | None = RepoOpt,
    k: int = typer.Option(5, "-k", min=1, max=MAX_K),
    include_global: bool = typer.Option(False, "--global", help="Also recall from global workspaces."),
    global_k: int = typer.Option(3, "--global-k", min=1, max=MAX_K),
    status: list[str] = StatusOpt,
    as_json: bool = JsonBareOpt,
):
    """Memories for a task. Status: ok | no-matches | no-workspace (exit 4) | not-seeded (5) | retrieval-failed (3)."""
    from ...recall.results import via_note
    from ...recall.task import EXIT_CODES

    asked = {"goal": goal, "errors": error, "files": file, "cwd": here(), "k": k, "include_global": include_global}
    asked |= {"global_k": global_k, "statuses": status}
    res = via_daemon("recall-task", asked, repo)
    if res is None:
        res = _recall_task_here(asked, repo, as_json)
    if as_json:
        from ...recall.answers import TaskAnswer, dump

        emit_json(dump(TaskAnswer, res))
    else:
        if res.get("message"):  # nothing was looked for: one line on what is wrong and what to run
            err.print(f"{res['status']}: {res['message']}", markup=False)
        else:
            out.print(f"status: {res['status']}")
        for w in res["warnings"] if not res.get("message") else []:
            err.print(f"warning: {w}", markup=False)
        for r in res["results"] + res["global_results"]:
            ws = f"[{r['workspace']}] " if r.get("workspace") else ""
            marked = " · not in force" if r["status"] == "proposed" else ""
            out.print(
                f"- {ws}{r['title']} ({r['id']} · {r['kind']}/{r['status']}{marked} · {r['score']})", markup=False
            )
            if via_note(r):  # returned in place of the retired record that matched
                out.print(f"    {via_note(r)}", markup=False)
            for g in r.get("governs") or []:
                out.print(f"    governs {g['file']}: {g['reason']}", markup=False)
        if res.get("receipt"):
            out.print(f"receipt {res['receipt']['id']}")
    raise typer.Exit(EXIT_CODES[res["status"]])


def _recall_task_here(asked: dict, repo, as_json) -> dict:
    """`recall-task` answered in this process (no daemon, or it could not answer). A failure is printed as
    an answer whose status names it (app.recall.task_failure), with that status's exit code."""
    from ...app.recall import TaskRequest, recall_task, task_failure
    from ...base.errors import JgmError
    from ...base.store import store_root
    from ...git.workspace import NotARepo
    from ...recall.service import Recaller, RecallError
    from ...recall.task import empty_answer

    recaller, why = None, ""
    try:
        recaller = Recaller(repo)
    except NotARepo as e:  # still answers from global workspaces when asked to
        why = f"{e} (store: {store_root()})"
    except RecallError as e:
        return empty_answer("retrieval-failed", str(e))
    except JgmError as e:
        fail_with(e, as_json)
    with reported(as_json):
        try:
            return recall_task(recaller, TaskRequest.model_construct(**asked), no_workspace=why)
        except JgmError as e:
            failed = task_failure(e, recaller.workspace.id if recaller else None)
            if failed is None:
                raise
            return failed


def context_cmd(
    goal: str = typer.Option(..., "--goal", help="What the new task is."),
    budget: int = typer.Option(1500, "--budget", help="Token budget for the pack."),
    error: list[str] = typer.Option([], "--error", help="An error signature (repeatable)."),
    file: list[str] = FileOpt,
    status: list[str] = StatusOpt,
    repo: Path | None = RepoOpt,
    k: int = typer.Option(8, "-k", min=1, max=MAX_K),
    as_json: bool = JsonBareOpt,
):
    """An initial context pack: best records trimmed to a token budget, with provenance and a receipt."""
    asked = {"goal": goal, "budget_tokens": budget, "k": k, "files": file, "errors": error, "statuses": status}
    asked["cwd"] = here()
    res = via_daemon("context", asked, repo)
    if res is None:
        from ...app.recall import ContextRequest, context

        recaller = _recaller(repo, as_json)
        with reported(as_json, answer=True):
            res = context(recaller, ContextRequest.model_construct(**asked))
    if as_json:
        from ...recall.answers import ContextPack, dump

        emit_json(dump(ContextPack, res))
    else:
        out.print(res["text"], markup=False)
        for w in res.get("warnings") or []:
            err.print(f"warning: {w}", markup=False)
        err.print(
            f"{res['used_tokens']}/{budget} tokens · {len(res['records'])} records · receipt {res['receipt']['id']}",
            markup=False,
        )


@receipt_app.command("show")
def receipt_show(receipt_id: str, repo: Path | None = RepoOpt, as_json: bool = JsonBareOpt):
    """Print a stored receipt."""
    from ...recall.receipts import require_receipt

    recaller = _recaller(repo, as_json)
    with reported(as_json):
        rec = require_receipt(recaller.index().catalog, receipt_id, recaller.workspace.id)
    from ...recall.answers import Receipt, dump

    emit_json(dump(Receipt, rec))


@receipt_app.command("verify")
def receipt_verify(
    receipt_id: str,
    repo: Path | None = RepoOpt,
    on_commit: bool = typer.Option(False, "--on-commit", help="Replay on the receipt's commit."),
    as_json: bool = JsonBareOpt,
):
    """Run the receipt's request again: same ids or not, and why. Exit 1 when they differ. An `--at`
    receipt replays on its commit; `--on-commit` replays any recall receipt on the commit it stood on."""
    from ...recall.verify import verify_receipt

    recaller = _recaller(repo, as_json)
    with reported(as_json):
        res = verify_receipt(recaller, receipt_id, on_commit=on_commit)
    if as_json:
        emit_json(res)
    else:
        out.print("same ids" if res["same"] else "different ids: " + "; ".join(res["reasons"]), markup=False)
        out.print(f"  receipt: {res['old_ids']}\n  now:     {res['new_ids']}", markup=False)
    raise typer.Exit(0 if res["same"] else 1)


def register(app: typer.Typer) -> None:
    app.command("recall-task")(recall_task_cmd)
    app.command("context")(context_cmd)
    app.add_typer(receipt_app, name="receipt")
