"""Recall quality of each embedding model on each eval set, all in one run: prints JSON.

    python bench/recall_models.py [--models minilm-l6-v2-int8,multilingual-e5-small-q4] [--sets self,zh,team]
        [--mode hybrid] [--out FILE]

Each set is copied into a fresh git repository and seeded with `jgm seed` (a subprocess with `JGM_MODEL` set
and a store of its own, so the floor is calibrated for that model exactly as a user's first seed would), then
its questions are run in this process against that store:

| set | corpus | questions |
| --- | --- | --- |
| self | our `knowledge/` (with `pyproject.toml`, for its roots) | tests/eval/questions.yaml |
| zh | tests/eval/zh/knowledge/ (Traditional and Simplified Chinese, some English) | tests/eval/zh/questions.yaml |
| team | tests/eval/team/repo/ (ADRs in docs/adr/ found by discovery, front-matter records) | tests/eval/team/questions.yaml |

Per model and set: recall@k, MRR, no-answer / in-domain / off-topic empty rates, forbidden leaks, and
`retired_returned`: ids returned under the default filters whose effective status is retired (superseded,
rejected, deprecated, invalidated) whether or not a question forbids them. Also the floor and its source,
the seed's wall time, the failing question ids, and figures per question language where a set tags them
(`lang:`). With two models or more, `ratios` gives each later model's figure over the first one's.
Names are passed through as they are: a model this install lacks fails its seed, reported as an error.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SETS = {
    # name: (files copied into the repository root: (source, destination)), questions
    "self": ([("knowledge", "knowledge"), ("pyproject.toml", "pyproject.toml")], "tests/eval/questions.yaml"),
    "zh": ([("tests/eval/zh/knowledge", "knowledge")], "tests/eval/zh/questions.yaml"),
    "team": ([("tests/eval/team/repo", ".")], "tests/eval/team/questions.yaml"),
}
RETIRED = ("superseded", "rejected", "deprecated", "invalidated")
FIGURES = ("recall_at_k", "mrr", "no_answer_empty_rate", "in_domain_empty_rate", "off_topic_empty_rate")
GIT_ENV = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@x"}


def make_repo(name: str, dest: Path) -> Path:
    files, _ = SETS[name]
    dest.mkdir(parents=True)
    for src, rel in files:
        s, d = ROOT / src, dest / rel
        if s.is_dir():
            shutil.copytree(s, d, dirs_exist_ok=True)
        else:
            shutil.copy(s, d)
    env = dict(os.environ, **GIT_ENV)
    for cmd in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", name]):
        subprocess.run(["git", "-C", str(dest), *cmd], check=True, env=env, capture_output=True)
    return dest


def seed(repo: Path, home: Path, model: str) -> tuple[float, dict]:
    env = dict(os.environ, JGM_HOME=str(home), JGM_MODEL=model, JGM_NO_DAEMON="1", PYTHONPATH=str(ROOT))
    t = time.perf_counter()
    p = subprocess.run(
        [sys.executable, "-m", "jupiter_git_memory", "seed", "--json", "--repo", str(repo)],
        env=env,
        capture_output=True,
        text=True,
    )
    took = time.perf_counter() - t
    if p.returncode != 0:
        said = (p.stderr.strip() or p.stdout.strip())[-400:]
        raise RuntimeError(f"seed with {model} failed ({p.returncode}): {said}")
    return took, json.loads(p.stdout)


def by_lang(rows: list[dict], langs: dict[str, str]) -> dict:
    from jupiter_git_memory.recall.eval import summarize

    out = {}
    for lang in sorted({langs[r["id"]] for r in rows if r["id"] in langs}):
        s = summarize([r for r in rows if langs.get(r["id"]) == lang])
        out[lang] = {k: s[k] for k in ("questions", *FIGURES)}
    return out


def measure(name: str, model: str, tmp: Path, mode: str) -> dict:
    import yaml

    from jupiter_git_memory.recall.eval import run_eval
    from jupiter_git_memory.recall.service import Recaller

    repo = make_repo(name, tmp / f"{model}-{name}")
    home = tmp / f"{model}-{name}-home"
    took, seeded = seed(repo, home, model)
    os.environ.update(JGM_HOME=str(home), JGM_MODEL=model)
    qfile = ROOT / SETS[name][1]
    rc = Recaller(repo)
    try:
        report = run_eval(rc, qfile, k=3, modes=[mode])
        status = {rid: row.effective_status for rid, row in rc.index().catalog.records().items()}
    finally:
        rc.close()
    main = report["modes"][mode]
    rows = main.pop("per_question")
    questions = yaml.safe_load(qfile.read_text("utf-8"))["questions"]
    asks_status = {q.get("id") for q in questions if q.get("status")}  # these ask for retired records on purpose
    default_rows = [r for r in rows if r["id"] not in asks_status]
    retired = sorted({rid for r in default_rows for rid in r["returned"] if status.get(rid) in RETIRED})
    langs = {q["id"]: q["lang"] for q in questions if q.get("id") and q.get("lang")}
    out = {
        **{k: main[k] for k in ("questions", "answerable", "no_answer", *FIGURES, "forbidden_leaks")},
        "retired_returned": len([rid for r in default_rows for rid in r["returned"] if status.get(rid) in RETIRED]),
        "retired_ids": retired,
        "floor": report["floor"],
        "floor_source": report["floor_source"],
        "records": len(status),
        "chunks": seeded.get("counts", {}).get("embedded_chunks"),
        "seed_s": round(took, 2),
        "lint": len(report["lint"]),
        "missed": [r["id"] for r in rows if r["expect"] and r["rank"] is None],
        "not_empty": [r["id"] for r in rows if not r["expect"] and r["returned"]],
    }
    if langs:
        out["by_lang"] = by_lang(rows, langs)
    return out


def ratios(results: dict[str, dict]) -> dict:
    """Each later model's figure over the first model's, per set (None where either side is missing or 0)."""
    models = list(results)
    base, out = results[models[0]], {}
    for other in models[1:]:
        for name, figs in results[other].items():
            ref = base.get(name, {})
            out.setdefault(f"{other}/{models[0]}", {})[name] = {
                k: (round(figs[k] / ref[k], 3) if figs.get(k) is not None and ref.get(k) else None)
                for k in (*FIGURES, "seed_s")
            }
    return out


def emit(report: dict, out: Path | None) -> None:
    """Print the report as JSON, and write it to `out` too when given."""
    text = json.dumps(report, indent=1, ensure_ascii=False)
    if out:
        out.write_text(text + "\n", "utf-8")
    print(text)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default="minilm-l6-v2-int8", help="comma-separated model names")
    ap.add_argument("--sets", default=",".join(SETS), help=f"comma-separated, from {', '.join(SETS)}")
    ap.add_argument("--mode", default="hybrid", choices=("hybrid", "dense", "lexical"))
    ap.add_argument("--out", type=Path, help="also write the JSON here")
    a = ap.parse_args()
    models = [m.strip() for m in a.models.split(",") if m.strip()]
    names = [s.strip() for s in a.sets.split(",") if s.strip()]
    unknown = [s for s in names if s not in SETS]
    if unknown:
        ap.error(f"unknown set(s) {unknown}; choose from {list(SETS)}")
    tmp = Path(tempfile.mkdtemp(prefix="jgm-recall-models-"))
    results: dict[str, dict] = {}
    try:
        for model in models:
            for name in names:
                try:
                    results.setdefault(model, {})[name] = measure(name, model, tmp, a.mode)
                except Exception as e:  # a model this install lacks: say so, keep measuring the others
                    results.setdefault(model, {})[name] = {"error": str(e)}
                print(f"{model} {name}: done", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report = {"mode": a.mode, "k": 3, "models": results}
    if len(models) > 1:
        report["ratios"] = ratios(results)
    emit(report, a.out)


if __name__ == "__main__":
    main()
