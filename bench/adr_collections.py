"""Existing ADR collections as a new user meets them: one fresh repo per collection holding only its ADR
folder at its usual path, no config. Prints JSON per collection: files found/indexed/skipped per format and
why, errors, superseded records kept out of default recall and back with `--status superseded`, and
recall@3 / MRR on our questions (bench/adr_questions.yaml).

The collections' text never enters this repository: bring each one here yourself and pass its checkout
(a work tree or a bare git directory; HEAD is read with `git archive`):

    python bench/adr_collections.py --checkout adr-tools=/path/to/adr-tools --checkout madr=/path/to/madr ...
"""

from __future__ import annotations

import argparse
import io
import subprocess
import sys
import tarfile
import time
from pathlib import Path

from collection_runs import commit_all, emit, first_rank, run_collections

HERE = Path(__file__).resolve().parent


def build(checkout: Path, folders: list[str], extra: list[str], dest: Path) -> None:
    """Copy the ADR folders (and tool config files) of `checkout`'s HEAD into a fresh git repo at `dest`."""
    dest.mkdir(parents=True)
    for paths, optional in ((folders, False), (extra, True)):
        for p in paths:
            got = subprocess.run(["git", "-C", str(checkout), "archive", "HEAD", "--", p], capture_output=True)
            if got.returncode and optional:
                continue
            got.check_returncode()
            with tarfile.open(fileobj=io.BytesIO(got.stdout)) as tar:  # no filters before Python 3.11.4 (Debian 12)
                tar.extractall(dest, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    commit_all(dest, "existing ADRs")


def run_collection(name: str, spec: dict, checkout: Path, work: Path, k: int = 3) -> dict:
    from jupiter_git_memory.recall.service import Recaller
    from jupiter_git_memory.seed.seeder import Seeder

    repo = work / name
    build(checkout, spec["folders"], spec.get("extra", []), repo)
    t0 = time.perf_counter()
    rep = Seeder(repo).seed().to_json()
    seconds = round(time.perf_counter() - t0, 1)
    rc = Recaller(repo)
    ranks = []
    for item in spec["questions"]:
        ids = [r["id"] for r in rc.recall(item["q"], k=k).results]
        ranks.append({"q": item["q"], "expect": item["expect"], "got": ids, "rank": first_rank(ids, item["expect"])})
    superseded = []
    rows = rc.index().catalog.records()
    for rid, row in sorted(rows.items()):
        if row.effective_status != "superseded":
            continue
        default = [r["id"] for r in rc.recall(row.title, k=5).results]
        asked = [r["id"] for r in rc.recall(row.title, k=3, statuses=["superseded"]).results]
        superseded.append({"id": rid, "out_of_default": rid not in default, "back_with_status": rid in asked})
    rc.close()
    found = sum(f["found"] for d in rep["inventory"] for f in d["formats"].values())
    indexed = sum(d["indexed"] for d in rep["inventory"])
    hits = [r for r in ranks if r["rank"]]
    return {
        "collection": name,
        "repo": spec.get("repo"),
        "seed_seconds": seconds,
        "inventory": [d for d in rep["inventory"] if d["markdown"]],
        "adr_files": found,
        "indexed": indexed,
        "indexed_share": round(indexed / found, 3) if found else None,
        "errors": [f"{e['path']}: {e['message']}" for e in rep["errors"]],
        "warnings": len(rep["warnings"]),
        "statuses": _count(row.effective_status for row in rows.values()),
        "superseded": superseded,
        f"recall@{k}": round(len(hits) / len(ranks), 3),
        "mrr": round(sum(1 / r["rank"] for r in hits) / len(ranks), 3),
        "misses": [r for r in ranks if not r["rank"] or r["rank"] > 1],
    }


def _count(values) -> dict:
    out: dict = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--checkout", action="append", default=[], metavar="NAME=PATH", help="a collection's checkout")
    ap.add_argument("--questions", default=str(HERE / "adr_questions.yaml"))
    ap.add_argument("--out", help="also write the JSON here")
    args = ap.parse_args()
    spec, results = run_collections(ap, args.questions, args.checkout, "--checkout", run_collection)
    total_q = sum(len(spec[r["collection"]]["questions"]) for r in results)
    hit = sum(round(r["recall@3"] * len(spec[r["collection"]]["questions"])) for r in results)
    emit({"collections": results, "questions": total_q, "recall@3": round(hit / total_q, 3)}, args.out)
    for r in results:
        print(
            f"{r['collection']:<28} {r['indexed']}/{r['adr_files']} indexed, {len(r['errors'])} errors, "
            f"recall@3 {r['recall@3']}, superseded ok {sum(s['out_of_default'] and s['back_with_status'] for s in r['superseded'])}"
            f"/{len(r['superseded'])}",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
