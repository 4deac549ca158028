"""`jgm recall-task`, `jgm context`, `jgm receipt show|verify`."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ...index.workspace import NotARepo
from ...recall.service import NotSeeded, RecallError, Recaller
from .common import emit_json, empty_exit, err, fail, no_workspace_message, out

receipt_app = typer.Typer(help="Receipts: what a recall returned and against which index state.", no_args_is_help=True)
RepoOpt = typer.Option(None, "--repo", help="Repository path (default: the current one).")


def _recaller(repo, as_json):
    from .main import known_errors

    try:
        return Recaller(repo)
    except NotARepo as e:
        empty_exit("no-workspace", no_workspace_message(e), as_json)
    except RecallError as e:
        fail(str(e), 3, as_json, "retrieval-failed")
    except known_errors() as e:
        fail(str(e), 2, as_json, type(e).__name__)


def recall_task_cmd(goal: str = typer.Option(..., "--goal", help="What the task is."),
                    error: list[str] = typer.Option([], "--error", help="An error signature (repeatable)."),
                    file: list[str] = typer.Option([], "--file", help="A file the task touches (repeatable)."),
                    repo: Optional[Path] = RepoOpt, k: int = typer.Option(5, "-k", min=1, max=50),
                    include_global: bool = typer.Option(False, "--global", help="Also recall from global workspaces."),
                    global_k: int = typer.Option(3, "--global-k", min=1, max=50),
                    as_json: bool = typer.Option(False, "--json")):
    """Memories for a task. Status: ok | no-matches | no-workspace (exit 4) | not-seeded (5) | retrieval-failed (3)."""
    from ...recall.task import EXIT_CODES, empty_answer, recall_task
    from .main import known_errors

    recaller, why = None, ""
    try:
        recaller = Recaller(repo)
    except NotARepo as e:
        why = no_workspace_message(e)
    except RecallError as e:
        recaller = False
        res = empty_answer("retrieval-failed", str(e))
    except known_errors() as e:
        fail(str(e), 2, as_json, type(e).__name__)
    if recaller is not False:
        try:
            res = recall_task(recaller, goal, error, file, k, include_global, global_k, no_workspace=why)
        except ValueError as e:
            fail(str(e), 2, as_json, "bad-request")
    if as_json:
        emit_json(res)
    else:
        if res.get("message"):  # nothing was looked for: one line on what is wrong and what to run
            err.print(f"{res['status']}: {res['message']}", markup=False)
        else:
            out.print(f"status: {res['status']}")
        for w in res["warnings"] if not res.get("message") else []:
            err.print(f"warning: {w}", markup=False)
        for r in res["results"] + res["global_results"]:
            ws = f"[{r['workspace']}] " if r.get("workspace") else ""
            out.print(f"- {ws}{r['title']} ({r['id']} · {r['kind']}/{r['status']} · {r['score']})", markup=False)
        if res.get("receipt"):
            out.print(f"receipt {res['receipt']['id']}")
    raise typer.Exit(EXIT_CODES[res["status"]])


def context_cmd(goal: str = typer.Option(..., "--goal", help="What the new task is."),
                budget: int = typer.Option(1500, "--budget", help="Token budget for the pack."),
                repo: Optional[Path] = RepoOpt, k: int = typer.Option(8, "-k", min=1, max=50),
                as_json: bool = typer.Option(False, "--json")):
    """An initial context pack: best records trimmed to a token budget, with provenance and a receipt."""
    from ...recall.context import build_context

    recaller = _recaller(repo, as_json)
    try:
        res = build_context(recaller, goal, budget, k)
    except NotSeeded as e:
        empty_exit("not-seeded", str(e), as_json)
    except RecallError as e:
        fail(str(e), 3, as_json, "retrieval-failed")
    except ValueError as e:
        fail(str(e), 2, as_json, "bad-request")
    if as_json:
        emit_json(res)
    else:
        out.print(res["text"], markup=False)
        err.print(f"{res['used_tokens']}/{budget} tokens · {len(res['records'])} records · receipt {res['receipt']['id']}",
                  markup=False)


@receipt_app.command("show")
def receipt_show(receipt_id: str, repo: Optional[Path] = RepoOpt, as_json: bool = typer.Option(False, "--json")):
    """Print a stored receipt."""
    from ...recall.receipts import get_receipt

    rec = get_receipt(_recaller(repo, as_json).index().catalog, receipt_id)
    if rec is None:
        fail(f"no receipt {receipt_id!r} in this workspace", 1, as_json, "memory/not-found")
    emit_json(rec)


@receipt_app.command("verify")
def receipt_verify(receipt_id: str, repo: Optional[Path] = RepoOpt,
                   on_commit: bool = typer.Option(False, "--on-commit", help="Replay on the receipt's commit."),
                   as_json: bool = typer.Option(False, "--json")):
    """Run the receipt's request again: same ids or not, and why. Exit 1 when they differ. An `--at`
    receipt replays on its commit; `--on-commit` replays any recall receipt on the commit it stood on."""
    from ...recall.verify import verify_receipt

    try:
        res = verify_receipt(_recaller(repo, as_json), receipt_id, on_commit=on_commit)
    except KeyError as e:
        fail(str(e.args[0]), 1, as_json, "memory/not-found")
    except ValueError as e:
        fail(str(e), 2, as_json, "bad-request")
    except RecallError as e:
        fail(str(e), 3, as_json, "retrieval-failed")
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
