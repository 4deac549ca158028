"""The candidate secret scan (issue 35 items 12-13): how much it catches, how often it cries wolf, how long it takes.

Detection: the corpus of tests/fixtures/secret_corpus.py (realistic secrets per provider family, innocent
look-alikes per family), caught and flagged rates overall and per family; then the same shapes redrawn with
other seeds (other random tokens), because several rules judge randomness. Speed: bodies at the size limit
(MAX_BODY_BYTES) built to be each rule's costliest input (WORST in the corpus module), plus one that opens every
provider rule's gate, the look-alikes repeated, and distinct random tokens between many code spans; each is
scanned `--runs` times, CPU and wall seconds reported (the machine's load average too: wall grows with load,
CPU does not). The target is under 1 s per body.

    python bench/secret_scan.py [--seeds 20] [--runs 3] [--out FILE]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import string
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from collection_runs import emit  # noqa: E402  (bench/: print the JSON, write --out)

sys.path.insert(0, str(ROOT / "tests" / "fixtures"))

from secret_corpus import LOOKALIKES, SECRETS, WORST, build, rates, worst_body  # noqa: E402

from jupiter_git_memory.candidates.secrets import scan_text  # noqa: E402
from jupiter_git_memory.candidates.validate import MAX_BODY_BYTES  # noqa: E402


def random_tokens(size: int) -> str:
    """Distinct random 20-character tokens outside short code spans: each token is judged (no cache helps)."""
    rng = random.Random(13)
    out, n = [], 0
    alphabet = string.ascii_letters + string.digits
    while n < size:
        piece = "`x` " + "".join(rng.choice(alphabet) for _ in range(20)) + " "
        out.append(piece)
        n += len(piece)
    return "".join(out)[:size]


def speed(runs: int) -> dict:
    bodies = {name: worst_body(name, MAX_BODY_BYTES) for name in [*WORST, "gates", "lookalikes"]}
    bodies["random-tokens"] = random_tokens(MAX_BODY_BYTES)
    scan_text("warm up: import detect-secrets' plugins")
    out = {}
    for name, body in bodies.items():
        cpu, wall = [], []
        for _ in range(runs):
            w0, c0 = time.perf_counter(), time.process_time()
            scan_text(body)
            wall.append(time.perf_counter() - w0)
            cpu.append(time.process_time() - c0)
        out[name] = {
            "cpu_s": round(statistics.median(cpu), 3),
            "wall_s": round(statistics.median(wall), 3),
            "wall_max_s": round(max(wall), 3),
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20, help="redraws of the corpus with other random tokens")
    ap.add_argument("--runs", type=int, default=3, help="scans per size-limit body")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    corpus = rates(scan_text, SECRETS, LOOKALIKES)
    redraws = []
    for seed in range(1, args.seeds + 1):
        r = rates(scan_text, *build(seed))
        redraws.append(
            {
                "seed": seed,
                "caught": r["caught"],
                "flagged": r["flagged"],
                "missed": r["missed"],
                "false_alarms": r["false_alarms"],
            }
        )
    times = speed(args.runs)
    worst = max(times, key=lambda k: times[k]["cpu_s"])
    result = {
        "python": platform.python_version(),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "corpus": corpus,
        "redraws": {
            "seeds": args.seeds,
            "caught_min": min((r["caught"] for r in redraws), default=None),
            "flagged_max": max((r["flagged"] for r in redraws), default=None),
            "runs": [r for r in redraws if r["missed"] or r["false_alarms"]],
        },
        "size_limit_bytes": MAX_BODY_BYTES,
        "target_s": 1.0,
        "scan_at_size_limit": times,
        "worst_body": {"name": worst, **times[worst]},
    }
    emit(result, args.out)


if __name__ == "__main__":
    main()
