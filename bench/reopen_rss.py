"""RSS of a long-lived reader across outside writes: as before (default malloc arenas, freed pages kept), with
free pages given back when a Chroma epoch stops, and with that plus the arena cap `jgm serve`/`mcp`/`watch`
set at start (base/memory.py). All three in one run, each in its own child process.

    python bench/reopen_rss.py --records 300 --writes 60 --out bench/results/reopen_rss.json

A child opens a WorkspaceHandle, as the servers do, then per write: edits a record, reseeds with `jgm seed`
in another process and asks three recalls (each reopens Chroma at the new generation). It samples RSS, fds
and threads every 10 writes. Prints JSON: per variant the RSS growth after 10 warm-up writes, and the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

WARMUP = 10
VARIANTS = ("as_before", "trim_on_stop", "capped_arenas")  # each later one includes the one before


def proc(name: str) -> int:
    return int(next(line for line in open("/proc/self/status") if line.startswith(name)).split()[1])


def child(repo: Path, writes: int, variant: str) -> None:
    from jupiter_git_memory.base.memory import limit_arenas
    from jupiter_git_memory.index import vectors

    if variant == "capped_arenas":
        limit_arenas()
    if variant == "as_before":
        vectors.give_back = lambda: None  # the stopped epoch's pages stay in the arenas
    from jupiter_git_memory.app.workspace_handle import WorkspaceHandle

    handle = WorkspaceHandle.for_repo(repo)

    def ask(i: int) -> None:
        with handle.reading() as r:
            r.recall(f"probe {i} walrus signal", k=3)

    for i in range(5):
        ask(i)
    samples = []
    for i in range(writes):
        (repo / f"knowledge/probe-{i}.md").write_text(
            f"---\nid: fact-probe-{i}\nkind: fact\nstatus: verified\ntitle: Probe {i} walrus\n---\nProbe {i}.\n"
        )
        old = repo / f"knowledge/probe-{i - 5}.md"
        if old.exists():
            old.unlink()
        subprocess.run(["jgm", "seed", "--repo", str(repo)], check=True, capture_output=True, timeout=600)
        for _ in range(3):
            ask(i)
        if (i + 1) % 10 == 0:
            samples.append(
                {
                    "writes": i + 1,
                    "rss_mb": round(proc("VmRSS") / 1024, 1),
                    "fds": len(os.listdir("/proc/self/fd")),
                    "threads": len(os.listdir("/proc/self/task")),
                }
            )
    handle.close()
    print(json.dumps(samples))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=300)
    ap.add_argument("--writes", type=int, default=60)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--child", nargs=3, metavar=("REPO", "WRITES", "VARIANT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(Path(args.child[0]), int(args.child[1]), args.child[2])
    from generate import generate

    report: dict = {"records": args.records, "writes": args.writes, "warmup": WARMUP, "variants": {}}
    for name in VARIANTS:
        with tempfile.TemporaryDirectory() as tmp:
            repo, home = Path(tmp) / "repo", Path(tmp) / "home"
            generate(repo, args.records)
            env = dict(os.environ, JGM_HOME=str(home))
            env.pop("MALLOC_ARENA_MAX", None)
            subprocess.run(["jgm", "seed", "--repo", str(repo)], env=env, check=True, capture_output=True)
            out = subprocess.run(
                [sys.executable, __file__, "--child", str(repo), str(args.writes), name],
                env=env,
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            samples = json.loads(out.strip().splitlines()[-1])
            base = samples[0]["rss_mb"]  # after WARMUP writes
            report["variants"][name] = {
                "samples": samples,
                "growth_after_warmup_mb": round(max(s["rss_mb"] for s in samples) - base, 1),
                "final_rss_mb": samples[-1]["rss_mb"],
            }
    v = report["variants"]
    for name in VARIANTS[1:]:
        report[f"growth_ratio_{name}_vs_as_before"] = round(
            v[name]["growth_after_warmup_mb"] / max(0.1, v["as_before"]["growth_after_warmup_mb"]), 3
        )
        report[f"final_rss_ratio_{name}_vs_as_before"] = round(
            v[name]["final_rss_mb"] / v["as_before"]["final_rss_mb"], 3
        )
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
