"""Recall quality per corpus, mode and split: recall@3, MRR, in-domain / off-topic empty rates, leaks, floor.

    python bench/recall_report.py OUT.json NAME=REPO:QUESTIONS [NAME=REPO:QUESTIONS ...] [--split dev]
        [--set ranking.SECOND_CHUNK_WEIGHT=0.0] [--setting lexical_weight=0.2]

Each REPO must be seeded (`jgm seed --repo REPO`, which also calibrates its floor). `--set` overrides a
module constant and `--setting` a project setting, to compare variants on the same questions. Prints a
Markdown table (the one in bench/README.md) and writes the full reports, per question, to OUT.json.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from jupiter_git_memory.recall.eval import evaluate, lint, load_questions
from jupiter_git_memory.recall.service import Recaller


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("corpora", nargs="+")
    ap.add_argument("--split", default=None)
    ap.add_argument("--modes", default="dense,lexical,hybrid")
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--setting", action="append", default=[])
    a = ap.parse_args()
    for s in a.set:
        target, value = s.split("=")
        mod, name = target.rsplit(".", 1)
        setattr(importlib.import_module(f"jupiter_git_memory.recall.{mod}"), name, float(value))
    report = {"variant": {"set": a.set, "setting": a.setting}, "split": a.split or "all", "corpora": {}}
    print("| corpus | split | mode | floor | recall@3 | MRR | in-domain empty | off-topic empty | leaks |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for spec in a.corpora:
        name, rest = spec.split("=", 1)
        repo, qfile = rest.rsplit(":", 1)
        rc = Recaller(repo)
        if a.setting:
            rc.settings = rc.settings.model_copy(update={k: float(v) for k, v in (x.split("=") for x in a.setting)})
        questions, digest = load_questions(Path(qfile))
        floor = rc.floor_info()
        entry = {
            "questions_file": qfile,
            "sha256": digest,
            "floor": floor.value,
            "floor_source": floor.source,
            "floor_provenance": floor.provenance,
            "lint": lint(rc, questions),
            "modes": {},
        }
        splits = [a.split] if a.split else ["dev", "heldout", None]
        for mode in a.modes.split(","):
            entry["modes"][mode] = {}
            for split in splits:
                qs = [q for q in questions if split is None or q.split == split]
                if not qs:
                    continue
                r = evaluate(rc, qs, 3, mode)
                for row in r["per_question"]:
                    row.pop("query", None)  # the questions file has it
                if split is None and len(splits) > 1:
                    r.pop("per_question")  # the dev and heldout entries have them
                entry["modes"][mode][split or "all"] = r
                print(
                    f"| {name} | {split or 'all'} | {mode} | {floor.value} ({floor.source}) | {r['recall_at_k']} | "
                    f"{r['mrr']} | {r['in_domain_empty_rate']} | {r['off_topic_empty_rate']} | {r['forbidden_leaks']} |",
                    flush=True,
                )
        report["corpora"][name] = entry
        rc.close()
    Path(a.out).write_text(json.dumps(report, indent=1), "utf-8")


if __name__ == "__main__":
    main()
