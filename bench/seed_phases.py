"""Child process of bench/run.py: cold seed, no-op reseed, and reseed after editing N records, timed
in one process with one loaded model (so the ratios compare seeding work, not interpreter start-up).

Run as its own process so the seeding's peak RSS (VmHWM) is its own, not the benchmark driver's.
Prints one JSON object on stdout.

    JGM_HOME=/tmp/h python bench/seed_phases.py REPO --change 5 [--profile OUT.prof]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import change_records, make_records


def peak_rss_mb() -> float:
    """This process's own RSS high-water mark. VmHWM belongs to the address space created at exec; ru_maxrss
    does not: Linux folds in the spawning parent's RSS at exec, which inflates it when the parent is big."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)  # not Linux: best effort


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("repo", type=Path)
    ap.add_argument("--change", type=int, default=5, help="records to edit before the last reseed (0: skip)")
    ap.add_argument("--records", type=int, required=True, help="how many records the repo was generated with")
    ap.add_argument("--gen-seed", type=int, default=7)
    ap.add_argument("--cold-only", action="store_true")
    ap.add_argument("--profile", type=Path, help="write a cProfile of the cold seed here")
    args = ap.parse_args()

    t = time.perf_counter()
    from jupiter_git_memory.seed.seeder import Seeder

    seeder = Seeder(args.repo)
    out: dict = {"startup_s": round(time.perf_counter() - t, 3)}

    def timed(label: str) -> dict:
        t0 = time.perf_counter()
        rep = seeder.seed()
        secs = time.perf_counter() - t0
        if rep.errors:
            raise SystemExit(f"{label} seed reported errors: {rep.errors[:3]}")
        return {
            "seconds": round(secs, 3),
            "records": rep.records,
            "chunks": rep.chunks,
            "embedded_chunks": rep.embedded_chunks,
            "added": len(rep.added),
            "updated": len(rep.updated),
        }

    if args.profile:
        import cProfile

        prof = cProfile.Profile()
        prof.enable()
        out["cold"] = timed("cold")
        prof.disable()
        prof.dump_stats(str(args.profile))
    else:
        out["cold"] = timed("cold")
    out["peak_rss_after_cold_mb"] = peak_rss_mb()
    if not args.cold_only:
        out["noop"] = timed("no-op")
        if args.change:
            records = make_records(args.records, args.gen_seed)
            changed = change_records(args.repo, records, args.change)
            out["changed_ids"] = changed
            out["changed"] = timed("changed")
    out["peak_rss_mb"] = peak_rss_mb()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
