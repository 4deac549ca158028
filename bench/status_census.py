"""How jgm reads the statuses of whole public collections, without embedding anything: each mirror's HEAD
copied into a fresh repository (as bench/wild_collections.py does), then discovery and the record reading of
`jgm seed`, no config. Prints JSON per collection: roots, decision files found and indexed (by the
collection's `decisions` globs in bench/wild_questions.yaml when it is listed there), records per lifecycle
group (in force, proposed, retired), unmapped status words, records saying no status, errors, and every
record's path with its declared and effective status.

To count what a change does, run it with each version of the code on the path and compare the two files:

    PYTHONPATH=/work/main python bench/status_census.py --mirror npm-rfcs=/work/.mirror/npm+rfcs/repo --out old.json
    python bench/status_census.py --mirror npm-rfcs=/work/.mirror/npm+rfcs/repo --out new.json
    python bench/status_census.py --diff old.json new.json   # per collection: how many records moved, and how

A NAME that bench/wild_questions.yaml does not list is read with every record counted as a decision file.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

import yaml
from wild_collections import build, matches

HERE = Path(__file__).resolve().parent
GROUPS = {"accepted": "in force", "verified": "in force", "proposed": "proposed"}


def census(name: str, mirror: Path, work: Path, globs: list[str] | None) -> dict:
    from jupiter_git_memory.config import load_settings
    from jupiter_git_memory.seed import sources
    from jupiter_git_memory.seed.reading import read_knowledge

    repo = work / name
    tree = build(mirror, repo)
    paths = tree.pop("paths")
    settings = load_settings(repo)
    files, _issues = sources.read_worktree(repo, settings)
    k = read_knowledge(files, {}, settings, reuse=False)
    res = k.resolution
    records = {
        r.path: {"status": r.status, "effective": res.effective[rid], "format": r.format}
        for rid, r in res.records.items()
        if r.kind == "adr"
    }
    failed = {i.path for i in k.issues if i.severity == "error"}
    decisions = {p for p in paths if matches(p, globs)} if globs else set(records)
    groups = Counter(GROUPS.get(r["effective"], "retired") for p, r in records.items() if p in decisions)
    unmapped = Counter(r.metadata["status_unmapped"] for r in res.records.values() if "status_unmapped" in r.metadata)
    no_status = sum(1 for r in res.records.values() if str(r.metadata.get("status_source", "")).startswith("no status"))
    return {
        "collection": name,
        "markdown": tree["markdown"],
        "roots": list(settings.roots),
        "decision_files": len(decisions),
        "decision_indexed": len(decisions & set(records)),
        "decision_failed": sorted(decisions & failed),
        "ordinary_indexed": len(set(records) - decisions),
        "groups": dict(groups),
        "unmapped": dict(unmapped.most_common()),
        "no_status": no_status,
        "errors": len(failed),
        "records": records,
    }


def diff(old_file: str, new_file: str) -> dict:
    """Per collection: records indexed before and after, in force before and after, and each move
    (`proposed -> accepted`, `not indexed -> accepted`) with its count."""
    old = {c["collection"]: c for c in json.loads(Path(old_file).read_text("utf-8"))["collections"]}
    new = {c["collection"]: c for c in json.loads(Path(new_file).read_text("utf-8"))["collections"]}
    out = []
    for name in new:
        a, b = old.get(name, {"records": {}, "groups": {}}), new[name]
        moves: Counter[str] = Counter()
        for path in set(a["records"]) | set(b["records"]):
            before = a["records"].get(path, {}).get("effective", "not indexed")
            after = b["records"].get(path, {}).get("effective", "not indexed")
            if before != after:
                moves[f"{before} -> {after}"] += 1
        out.append(
            {
                "collection": name,
                "decision_indexed": [a.get("decision_indexed"), b["decision_indexed"]],
                "in_force": [a["groups"].get("in force", 0), b["groups"].get("in force", 0)],
                "proposed": [a["groups"].get("proposed", 0), b["groups"].get("proposed", 0)],
                "retired": [a["groups"].get("retired", 0), b["groups"].get("retired", 0)],
                "unmapped_words": [sum(a.get("unmapped", {}).values()), sum(b["unmapped"].values())],
                "errors": [a.get("errors"), b["errors"]],
                "moves": dict(moves.most_common()),
            }
        )
    return {"diff": out}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mirror", action="append", default=[], metavar="NAME=PATH")
    ap.add_argument("--questions", default=str(HERE / "wild_questions.yaml"))
    ap.add_argument("--out")
    ap.add_argument("--diff", nargs=2, metavar=("OLD", "NEW"))
    args = ap.parse_args()
    if args.diff:
        print(json.dumps(diff(*args.diff), indent=2, ensure_ascii=False))
        return 0
    if not args.mirror:
        ap.error("--mirror NAME=PATH (or --diff OLD NEW)")
    spec = yaml.safe_load(Path(args.questions).read_text("utf-8"))["collections"]
    results = []
    with tempfile.TemporaryDirectory(prefix="jgm-status-census-") as tmp:
        for pair in args.mirror:
            name, _, path = pair.partition("=")
            results.append(census(name, Path(path), Path(tmp), (spec.get(name) or {}).get("decisions")))
    text = json.dumps({"collections": results}, indent=2, ensure_ascii=False)
    if args.out:
        Path(args.out).write_text(text + "\n", "utf-8")
    print(json.dumps([{k: v for k, v in r.items() if k != "records"} for r in results], indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
