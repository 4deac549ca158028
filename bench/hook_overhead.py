"""What jgm's Git hooks add to `git checkout`.

    python bench/hook_overhead.py                 # prints JSON
    python bench/hook_overhead.py --runs 40 --records 200

What is measured: wall time of `git checkout <branch>` (a subprocess, as a user runs it) alternating
between two branches, in a temp repo with `--records` knowledge records:
- `no_knowledge_change`: the branches differ only in code, so the hook starts Python, runs one
  `git diff --name-only` and exits; timed without hooks and with `jgm hooks install`ed hooks;
- `knowledge_change_background`: the branches differ in one record, so the hook also starts the detached
  reseed; the checkout's own time is what is reported (each background reseed is awaited, untimed,
  before the next checkout so it does not steal CPU from the next measurement).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ENV = {
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "b@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "b@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def record(i: int, extra: str = "") -> str:
    return (
        f"---\nid: rec-{i}\nkind: decision\nstatus: accepted\ntitle: Decision {i}\n---\n"
        f"We decided {i} things about service {i % 13}.{extra}\n"
    )


def make_repo(root: Path, records: int) -> Path:
    repo = root / "repo"
    (repo / "knowledge").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    for i in range(records):
        (repo / "knowledge" / f"rec-{i}.md").write_text(record(i))
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("print('main')\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "main")
    git(repo, "checkout", "-q", "-b", "code")
    (repo / "src" / "app.py").write_text("print('code')\n")
    git(repo, "commit", "-q", "-am", "code only")
    git(repo, "checkout", "-q", "-b", "knowledge", "main")
    (repo / "knowledge" / "rec-0.md").write_text(record(0, " Changed."))
    git(repo, "commit", "-q", "-am", "one record changed")
    git(repo, "checkout", "-q", "main")
    return repo


def time_checkouts(repo: Path, branches: tuple[str, str], runs: int, after=None) -> list[float]:
    times = []
    for i in range(runs):
        t0 = time.perf_counter()
        subprocess.run(["git", "-C", str(repo), "checkout", "-q", branches[i % 2]], check=True, capture_output=True)
        times.append((time.perf_counter() - t0) * 1000)
        if after:
            after()
    return times


def summary(ms: list[float]) -> dict:
    s = sorted(ms)
    return {
        "runs": len(s),
        "median_ms": round(statistics.median(s), 1),
        "mean_ms": round(statistics.fmean(s), 1),
        "p90_ms": round(s[int(0.9 * (len(s) - 1))], 1),
        "min_ms": round(s[0], 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--records", type=int, default=100)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(ENV, JGM_HOME=str(Path(tmp) / "home"))
        os.environ.pop("JGM_HOOK_SYNC", None)
        repo = make_repo(Path(tmp), args.records)
        from jupiter_git_memory.base.store import workspace_dir
        from jupiter_git_memory.freshness import githooks, hook_run
        from jupiter_git_memory.git.workspace import find_workspace
        from jupiter_git_memory.seed.seeder import Seeder

        Seeder(repo).seed()
        time_checkouts(repo, ("code", "main"), 4)  # warm the page cache
        without = time_checkouts(repo, ("code", "main"), args.runs)
        githooks.install(repo)
        with_hooks = time_checkouts(repo, ("code", "main"), args.runs)
        wsdir = workspace_dir(find_workspace(repo).id)

        def wait_jobs() -> None:
            deadline = time.monotonic() + 120
            time.sleep(0.2)
            while hook_run.running_jobs(wsdir) and time.monotonic() < deadline:
                time.sleep(0.1)

        background = time_checkouts(repo, ("knowledge", "main"), max(6, args.runs // 5), after=wait_jobs)
        githooks.uninstall(repo)
    a, b, c = summary(without), summary(with_hooks), summary(background)
    print(
        json.dumps(
            {
                "bench": "hook_overhead",
                "records": args.records,
                "python": sys.version.split()[0],
                "machine": {
                    "cpus": os.cpu_count(),
                    "platform": platform.platform(),
                    "load_avg_1m_at_end": round(os.getloadavg()[0], 2),
                },
                "no_knowledge_change": {
                    "without_hooks": a,
                    "with_hooks": b,
                    "overhead_median_ms": round(b["median_ms"] - a["median_ms"], 1),
                    "overhead_mean_ms": round(b["mean_ms"] - a["mean_ms"], 1),
                },
                "knowledge_change_background": {
                    "with_hooks": c,
                    "overhead_median_ms": round(c["median_ms"] - a["median_ms"], 1),
                },
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
