"""Cost of views: disk and time for 10 worktrees and 100 historical views of a 1,000-record repo, and the
time of a first `recall --at` on an old tag. Prints one JSON object (and a table on stderr).

    python bench/views.py --workdir /tmp/jgm-bench-views [--records 1000 --history 100 --worktrees 10]

The repo comes from bench/generate.py (4 commits of 250 records, tag `v0` on the first 500), then
`--history` commits that each edit 5 records. The main worktree is seeded cold; `--at` views are built for
every history commit (at_views raised so none is evicted), and worktrees are added on history commits.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from generate import change_records, generate, git


def du(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def make_history(repo: Path, n: int, history: int, seed: int) -> list[str]:
    records = generate(repo, n, seed)
    git(repo, "tag", "v0", "HEAD~2")  # 500 records, before any edit
    git(repo, "config", "commit.gpgsign", "false")
    (repo / "jgm.toml").write_text(f"at_views = {history + 10}\n")  # committed: worktrees read it too
    git(repo, "add", "jgm.toml")
    git(repo, "commit", "-q", "-m", "keep every --at view of the benchmark")
    commits = []
    for i in range(history):
        change_records(repo, records, 5, seed=1000 + i)
        commits.append(git(repo, "rev-parse", "HEAD").strip())
    return commits


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/jgm-bench-views"))
    ap.add_argument("--records", type=int, default=1000)
    ap.add_argument("--history", type=int, default=100)
    ap.add_argument("--worktrees", type=int, default=10)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    home, repo = args.workdir / "home", args.workdir / "repo"
    os.environ["JGM_HOME"] = str(home)
    commits = make_history(repo, args.records, args.history, args.seed)

    from jupiter_git_memory.recall.service import Recaller
    from jupiter_git_memory.seed.seeder import Seeder

    out: dict = {
        "records": args.records,
        "history_commits": args.history,
        "worktrees": args.worktrees,
        "loadavg_start": [round(x, 2) for x in os.getloadavg()],
    }
    t = time.perf_counter()
    main_seed = Seeder(repo).seed()
    out["cold_seed_s"] = round(time.perf_counter() - t, 2)
    out["cold_seed_chunks"] = main_seed.chunks
    (wsdir,) = (home / "workspaces").iterdir()

    def disk() -> dict:
        """Bytes on disk after a WAL checkpoint (receipts included; the model files are not in the store)."""
        db = sqlite3.connect(wsdir / "catalog.sqlite")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()
        cat = sum(p.stat().st_size for p in wsdir.glob("catalog.sqlite*"))
        return {"catalog": cat, "chroma": du(wsdir / "chroma")}

    base = disk()
    out["disk_one_view_bytes"] = base

    r = Recaller(repo)
    q = "How does the retry policy handle partial network failures?"
    before = r.index().vectors.count()
    t = time.perf_counter()
    first = r.recall(q, at="v0")
    out["first_at_old_tag_s"] = round(time.perf_counter() - t, 2)
    out["first_at_old_tag_embedded_chunks"] = r.index().vectors.count() - before
    out["first_at_old_tag_results"] = len(first.results)
    t = time.perf_counter()
    r.recall(q, at="v0")
    out["second_at_old_tag_s"] = round(time.perf_counter() - t, 3)

    seeder = Seeder(repo, embedder=r.embedder)
    times, embedded = [], 0
    for c in commits:
        t = time.perf_counter()
        rep = seeder.seed(rev=c)
        times.append(time.perf_counter() - t)
        embedded += rep.embedded_chunks
    after_at = disk()
    out["at_views"] = {
        "count": len(commits),
        "build_s_mean": round(sum(times) / len(times), 3),
        "build_s_max": round(max(times), 3),
        "embedded_chunks_total": embedded,
        "catalog_bytes_added": after_at["catalog"] - base["catalog"],
        "chroma_bytes_added": after_at["chroma"] - base["chroma"],
    }
    t = time.perf_counter()
    r.recall(q, at=commits[len(commits) // 2])
    out["warm_at_recall_s"] = round(time.perf_counter() - t, 3)

    wt_times, wt_embedded = [], 0
    step = max(1, len(commits) // args.worktrees)
    for i in range(args.worktrees):
        wt = args.workdir / f"wt{i}"
        git(repo, "worktree", "add", "-q", "--detach", str(wt), commits[min(i * step, len(commits) - 1)])
        t = time.perf_counter()
        rep = Seeder(wt, embedder=r.embedder).seed()
        wt_times.append(time.perf_counter() - t)
        wt_embedded += rep.embedded_chunks
    after_wt = disk()
    out["worktree_views"] = {
        "count": args.worktrees,
        "seed_s_mean": round(sum(wt_times) / len(wt_times), 3),
        "embedded_chunks_total": wt_embedded,
        "catalog_bytes_added": after_wt["catalog"] - after_at["catalog"],
        "chroma_bytes_added": after_wt["chroma"] - after_at["chroma"],
    }
    out["disk_total_bytes"] = after_wt
    out["views_total"] = len(r.index().catalog.views())
    r.close()
    out["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(out, indent=1))
    for k, v in out.items():
        print(f"{k:28} {v}", file=sys.stderr)


if __name__ == "__main__":
    main()
