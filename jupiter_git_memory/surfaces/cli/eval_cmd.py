"""`jgm eval`, `jgm calibrate` and `jgm floors`."""

from __future__ import annotations

from pathlib import Path

import typer

from .common import emit_json, out, reported
from .options import JsonBareOpt, RepoOpt
from .recall_cmd import _recaller


def eval_cmd(
    file: Path = typer.Argument(..., exists=True, dir_okay=False, help="YAML question set."),
    repo: Path | None = RepoOpt,
    k: int = typer.Option(3, "-k", min=1, max=50),
    mode: str = typer.Option("hybrid", "--mode", help="hybrid | dense | lexical | all"),
    min_recall: float | None = typer.Option(None, "--min-recall", help="Exit 1 below this recall@k."),
    min_no_answer: float | None = typer.Option(None, "--min-no-answer", help="Exit 1 below this no-answer-empty rate."),
    min_in_domain: float | None = typer.Option(
        None, "--min-in-domain-empty", help="Exit 1 below this empty rate on in-domain no-answer questions."
    ),
    min_off_topic: float | None = typer.Option(
        None, "--min-off-topic-empty", help="Exit 1 below this empty rate on off-topic questions."
    ),
    split: str | None = typer.Option(None, "--split", help="Only questions of this split (dev | heldout)."),
    out_path: Path | None = typer.Option(None, "--out", help="Also write the JSON report here."),
    as_json: bool = JsonBareOpt,
):
    """Measure recall@k, MRR, no-answer emptiness and forbidden leaks. Exit 1 on a leak or below the gates."""
    import json

    from ...recall.eval import gate, run_eval
    from ...recall.ranking import check_mode

    modes = ["dense", "lexical", "hybrid"] if mode == "all" else [mode]
    with reported(as_json):
        modes = [check_mode(m) for m in modes]
    with reported(as_json, answer=True):
        report = run_eval(_recaller(repo, as_json), file, k, modes, split)
    report["gate"] = gate(
        report,
        modes[-1],
        k,
        min_recall=min_recall,
        min_no_answer=min_no_answer,
        min_in_domain=min_in_domain,
        min_off_topic=min_off_topic,
    )
    main, problems = report["modes"][modes[-1]], report["gate"]["problems"]
    if out_path:
        out_path.write_text(json.dumps(report, indent=2), "utf-8")
    if as_json:
        emit_json(report)
    else:
        prov = report["floor_provenance"]
        floor = prov.get("in_force") or f"floor {report['floor']} ({report['floor_source']})"
        out.print(
            f"eval {file} sha256 {report['eval_sha256'][:12]} · model {report['model']} ({report['identity']}) · "
            f"{floor}",
            markup=False,
        )
        if report["floor_source"] == "calibrated":
            out.print(
                f"  floor from {prov.get('source')} calibration: {prov.get('statistic')} over "
                f"{prov.get('probe_count')} probes ({prov.get('probes_file')})",
                markup=False,
            )
        out.print(
            f"{'mode':<8} {'recall@' + str(k):>9} {'MRR':>6} {'in-domain':>10} {'off-topic':>10} {'leaks':>6}",
            markup=False,
        )
        for m, r in report["modes"].items():
            out.print(
                f"{m:<8} {r['recall_at_k']!s:>9} {r['mrr']!s:>6} {r['in_domain_empty_rate']!s:>10} "
                f"{r['off_topic_empty_rate']!s:>10} {r['forbidden_leaks']:>6}",
                markup=False,
            )
        for q in report["lint"]:
            out.print(f'  lint {q["id"]}: shares "{q["run"]}" with {q["record"]}; paraphrase it', markup=False)
        for q in main["per_question"]:
            if not q["ok"]:
                out.print(f"  miss {q['id']}: {q['query']!r} expected {q['expect']} got {q['returned']}", markup=False)
        out.print("gate: passed" if not problems else "gate: FAILED: " + "; ".join(problems), markup=False)
    raise typer.Exit(0 if not problems else 1)


def calibrate_cmd(
    probes: Path = typer.Argument(
        ..., exists=True, dir_okay=False, help="Questions the knowledge base cannot answer (YAML or one per line)."
    ),
    repo: Path | None = RepoOpt,
    dry_run: bool = typer.Option(False, "--dry-run", help="Measure only."),
    as_json: bool = JsonBareOpt,
):
    """Measure and store the no-match floor for the current model identity."""
    from ...recall.calibrate import calibrate

    with reported(as_json, answer=True):
        res = calibrate(_recaller(repo, as_json), probes, save=not dry_run)
    if as_json:
        emit_json(res)
    else:
        out.print(
            f"floor {res['floor']} ({'saved' if res['saved'] else 'not saved'}) for workspace {res['workspace']}: "
            f"{res['statistic']} over {res['probe_count']} probes (median {res['median_cos']}, MAD "
            f"{res['mad_cos']}); highest cosine {res['max_cos']} for {res['max_probe']!r} (record {res['max_record']})",
            markup=False,
        )


def floors_cmd(
    repo: Path | None = RepoOpt,
    all_workspaces: bool = typer.Option(False, "--all", help="Every workspace in the store."),
    as_json: bool = JsonBareOpt,
):
    """List the stored floors of this workspace (or --all): model identity, value and where each came from."""
    import datetime

    from ...base import error_codes as E
    from ...git.workspace import find_workspace
    from ...recall.floors import language_lines, list_floors

    with reported(as_json, recode={Exception: E.MEMORY_NO_WORKSPACE}, hint="; pass --repo PATH or --all"):
        only = None if all_workspaces else find_workspace(repo).id
    rows = [
        {k: v for k, v in e.items() if k not in ("identity",)}
        for e in list_floors()
        if only is None or e.get("workspace") == only
    ]
    for r in rows:
        r["corpus"] = {k: v for k, v in (r.get("corpus") or {}).items() if k != "sketch"}
    if as_json:
        emit_json({"floors": rows})
        return
    if not rows:
        out.print(
            "no floors stored: recall uses the model's shipped default until `jgm seed` or `jgm calibrate`",
            markup=False,
        )
    for r in rows:
        when = datetime.datetime.fromtimestamp(r.get("measured_at", 0), datetime.UTC).strftime("%Y-%m-%d %H:%M")
        out.print(
            f"{r['workspace']}  {r['identity_hash']}  floor {r['floor']}  {r.get('source')} at {when} UTC: "
            f"{r.get('statistic')} over {r.get('probe_count')} probes ({r.get('probes_file')}); corpus "
            f"{r['corpus'].get('records')} records, {r['corpus'].get('chunks')} chunks",
            markup=False,
        )
        for line in language_lines(r):
            out.print(f"  {line}", markup=False)


def register(app: typer.Typer) -> None:
    app.command("eval")(eval_cmd)
    app.command("calibrate")(calibrate_cmd)
    app.command("floors")(floors_cmd)
