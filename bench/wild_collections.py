"""Decision collections in the wild, as a new user meets them: each public repository copied WHOLE (its
README, guides, changelogs, meeting notes and all) into a fresh git repo, no jgm.toml, then `jgm seed` (with
the automatic floor calibration, as the CLI runs it). Prints JSON per collection and a table:

- decision files: files matching the collection's `decisions` globs (bench/wild_questions.yaml, fixed before
  the first run), how many jgm found (read as a record or failed as one) and indexed;
- ordinary docs indexed: records whose file matches no `decisions` glob (target 0);
- retired leaks: records recalled by default (for their own title) whose written status or folder says
  retired by an independent word list (superseded, withdrawn, rejected, deprecated, …), plus every record
  jgm retired that default recall still returns (target 0);
- recall@3 on our questions with the default statuses, and with proposed records included (collections that
  say no status are read as proposed, which default recall leaves out by design).

The collections' text never enters this repository: pass each one's local mirror (a bare git directory or
a work tree; HEAD is read object by object, so a blob missing from a partial mirror is skipped and counted):

    nice python bench/wild_collections.py --mirror npm-rfcs=/work/.mirror/npm+rfcs/repo --out /tmp/npm.json
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from collection_runs import commit_all, emit, first_rank, run_collections

HERE = Path(__file__).resolve().parent
# An independent list (not jgm's table): words that mean a record is no longer, or never was, in force.
RETIRED_WORDS = re.compile(
    r"\b(supersed|supercede|replaced|deprecat|obsolete|withdrawn|rejected|reverted|discontinued|abandoned|"
    r"declined|moved|stagnant|returned for revision|postponed|deferred|closed|archived)",
    re.IGNORECASE,
)


def git_dir(mirror: Path) -> list[str]:
    return ["git", "--git-dir", str(mirror)] if (mirror / "HEAD").is_file() else ["git", "-C", str(mirror)]


def build(mirror: Path, dest: Path) -> dict:
    """Copy every blob of the mirror's HEAD into a fresh repository at `dest` (symlinks and missing blobs
    skipped and counted), then commit it."""
    g = git_dir(mirror)
    listing = subprocess.run([*g, "ls-tree", "-r", "-z", "HEAD"], capture_output=True, check=True).stdout
    entries = []
    for item in filter(None, listing.split(b"\0")):
        info, _, path = item.partition(b"\t")
        mode, otype, sha = info.decode().split()
        if otype == "blob" and mode != "120000":
            entries.append((path.decode("utf-8", "surrogateescape"), sha))
    check = subprocess.run(
        [*g, "cat-file", "--batch-check"], input="\n".join(s for _, s in entries).encode(), capture_output=True
    ).stdout.decode()
    present = {line.split()[0] for line in check.splitlines() if not line.endswith("missing")}
    kept = [(p, s) for p, s in entries if s in present]
    out = subprocess.run(
        [*g, "cat-file", "--batch"], input="\n".join(s for _, s in kept).encode() + b"\n", capture_output=True
    ).stdout
    pos = 0
    dest.mkdir(parents=True)
    for path, _sha in kept:
        header_end = out.index(b"\n", pos)
        size = int(out[pos:header_end].split()[2])
        data = out[header_end + 1 : header_end + 1 + size]
        pos = header_end + 1 + size + 1
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    commit_all(dest, "the repository as it is")
    md = [p for p, _ in kept if p.lower().endswith((".md", ".markdown"))]
    return {"files": len(kept), "markdown": len(md), "missing_blobs": len(entries) - len(kept), "paths": md}


def matches(path: str, globs: list[str]) -> bool:
    return any(fnmatch.fnmatchcase(path, g) for g in globs)


def run_collection(name: str, spec: dict, mirror: Path, work: Path, k: int = 3) -> dict:
    from jupiter_git_memory.recall.calibrate import after_seed
    from jupiter_git_memory.recall.ranking import DEFAULT_STATUSES
    from jupiter_git_memory.recall.service import Recaller
    from jupiter_git_memory.seed.seeder import Seeder

    repo = work / name
    tree = build(mirror, repo)
    decision_paths = {p for p in tree.pop("paths") if matches(p, spec["decisions"])}
    t0 = time.perf_counter()
    seeder = Seeder(repo, calibrate=after_seed)
    rep = seeder.seed().to_json()
    seconds = round(time.perf_counter() - t0, 1)
    rc = Recaller(repo)
    rows = rc.index().catalog.records()
    by_path = {r.path: r for r in rows.values() if r.origin == "file"}
    failed = {e["path"] for e in rep["errors"]}
    found = {p for p in decision_paths if p in by_path or p in failed}
    indexed = {p for p in decision_paths if p in by_path and not by_path[p].error}
    ordinary = sorted(p for p in by_path if not matches(p, spec["decisions"]))

    def ask(q: str, statuses: list[str] | None, n: int = k) -> list[str]:
        return [r["id"] for r in rc.recall(q, k=n, statuses=statuses).results]

    leaks = []
    for rid, row in sorted(rows.items()):
        if row.origin != "file":
            continue
        written = str(row.data.get("metadata", {}).get("status_as_written") or "")
        says_retired = bool(RETIRED_WORDS.search(written) or RETIRED_WORDS.search(os.path.dirname(row.path)))
        retired_by_jgm = row.effective_status not in (*DEFAULT_STATUSES, "proposed")
        if not (says_retired or retired_by_jgm):
            continue
        if says_retired and not retired_by_jgm and row.effective_status == "proposed":
            continue  # e.g. "Deferred": not in force, not in default recall
        if rid in ask(row.title, None, 5):
            leaks.append({"id": rid, "path": row.path, "written": written, "effective": row.effective_status})
    ranks, ranks_open = [], []
    for item in spec["questions"]:
        for out, statuses in ((ranks, None), (ranks_open, [*DEFAULT_STATUSES, "proposed"])):
            ids = ask(item["q"], statuses)
            out.append({"q": item["q"], "expect": item["expect"], "got": ids, "rank": first_rank(ids, item["expect"])})
    floor = rep.get("floor") or {}
    rc.close()
    statuses: dict[str, int] = {}
    for row in rows.values():
        statuses[row.effective_status] = statuses.get(row.effective_status, 0) + 1
    n = len(spec["questions"])
    return {
        "collection": name,
        "repo": spec.get("repo"),
        "shape": spec.get("shape"),
        **tree,
        "seed_seconds": seconds,
        "roots": [d["root"] for d in rep["inventory"]],
        "inventory": [d for d in rep["inventory"] if d["markdown"]],
        "decision_files": len(decision_paths),
        "decision_found": len(found),
        "decision_indexed": len(indexed),
        "decision_not_indexed": sorted(decision_paths - indexed),
        "ordinary_indexed": ordinary,
        "errors": [f"{e['path']}: {e['message']}" for e in rep["errors"]],
        "warnings": len(rep["warnings"]),
        "statuses": statuses,
        "floor": {k2: floor.get(k2) for k2 in ("action", "floor", "reason")},
        "retired_leaks": leaks,
        "questions": n,
        f"recall@{k}": round(sum(1 for r in ranks if r["rank"]) / n, 3),
        f"recall@{k}_with_proposed": round(sum(1 for r in ranks_open if r["rank"]) / n, 3),
        "misses": [r for r in ranks if not r["rank"]],
        "misses_with_proposed": [r for r in ranks_open if not r["rank"]],
    }


def table(results: list[dict]) -> str:
    head = (
        "| collection | files (Markdown) | decision files found / indexed | ordinary docs indexed | retired leaks "
        "| recall@3 default | recall@3 with proposed | questions |"
    )
    lines = [head, "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in results:
        lines.append(
            f"| {r['repo']} | {r['files']} ({r['markdown']}) | {r['decision_found']} / {r['decision_indexed']} of "
            f"{r['decision_files']} | {len(r['ordinary_indexed'])} | {len(r['retired_leaks'])} | {r['recall@3']} "
            f"| {r['recall@3_with_proposed']} | {r['questions']} |"
        )
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mirror", action="append", default=[], metavar="NAME=PATH", help="a collection's mirror")
    ap.add_argument("--questions", default=str(HERE / "wild_questions.yaml"))
    ap.add_argument("--out", help="also write the JSON here")
    args = ap.parse_args()
    _, results = run_collections(ap, args.questions, args.mirror, "--mirror", run_collection)
    emit({"collections": results}, args.out)
    print(table(results), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
