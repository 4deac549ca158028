"""Citation glob matching, worst case (issue 35 item 9): each pattern against 10,000 repository paths.

The target is under 100 ms per pattern over 10,000 paths, whatever the glob. Paths are seeded and realistic in
shape (folders 1-12 deep, word-like names, extensions), plus a long-path set (40 folders, names up to 60
characters) reported separately. Patterns are the worst we could write: many nested `**/`, many `*` and `?`
segments, a `*` before `**/`, classes, literals that almost match. Each pattern is compiled fresh (its lazy
state table starts empty) and matched once against every path; CPU and wall milliseconds are reported (wall
grows with the machine's load, CPU does not), and each answer is checked against the bare automaton.

    python bench/globs.py [--paths 10000] [--out FILE]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from collection_runs import emit  # noqa: E402  (bench/: print the JSON, write --out)

from jupiter_git_memory.records.globs import Glob, compile_glob  # noqa: E402

WORDS = "src lib core api storage parcel hub records index seed recall chunking tests fixtures util io net".split()
EXTS = [".py", ".md", ".ts", ".zzz", ".json", ".yaml", ".go", ""]

PATTERNS = {
    "16 nested **/ then *.zzz": "**/" * 16 + "*.zzz",
    "16 ** then .zzz": "**" * 16 + ".zzz",
    "*a x16 then b": "*a" * 16 + "b",
    "**/*a x16 then /b": "**/*a" * 16 + "/b",
    "?**/ x16 then z": "?**/" * 16 + "z",
    "*/ x12 (any 12 deep)": "*/" * 12 + "*",
    "**/*/ x8 then *.py": "**/*/" * 8 + "*.py",
    "*x**/ x8 then y": "*x**/" * 8 + "y",
    "**/*s*e*e*d*/**/*.p?": "**/*s*e*e*d*/**/*.p?",
    "[!/]*[!a]**/ x8 then [pz]": "[!/]*[!a]**/" * 8 + "[pz]",
    "?*?*?*?*/ x6 **": "?*?*?*?*/" * 6 + "**",
    "src/**/*.py (ordinary)": "src/**/*.py",
    "**/*.md (ordinary)": "**/*.md",
}


def paths(n: int, rng: random.Random, deep: bool = False) -> list[str]:
    out = []
    for _ in range(n):
        depth = 40 if deep else rng.randint(1, 12)
        parts = []
        for _ in range(depth):
            w = rng.choice(WORDS)
            if deep:
                w += "_" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(0, 50)))
            parts.append(w)
        parts.append(rng.choice(WORDS) + str(rng.randint(0, 99)) + rng.choice(EXTS))
        out.append("/".join(parts))
    return out


def measure(pattern: str, ps: list[str]) -> dict:
    compile_glob.cache_clear()
    w0, c0 = time.perf_counter(), time.process_time()
    g = compile_glob(pattern)
    hits = sum(g.match(p) for p in ps)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    engine = "regex" if g._rx is not None else "automaton"
    plain = Glob(pattern)  # the automaton alone, no prefilter: the answers must agree
    agrees = all(plain.run(p) == g.match(p) for p in ps[:2000])
    return {
        "engine": engine,
        "matches": hits,
        "agrees_with_automaton": agrees,
        "cpu_ms": round(cpu * 1000, 1),
        "wall_ms": round(wall * 1000, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--paths", type=int, default=10_000)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    rng = random.Random(9)
    sets = {"realistic": paths(args.paths, rng), "long (40 folders)": paths(args.paths, rng, deep=True)}
    result: dict = {
        "python": platform.python_version(),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "paths": args.paths,
        "target_ms": 100,
        "sets": {},
    }
    for name, ps in sets.items():
        chars = sum(map(len, ps))
        rows = {label: measure(pat, ps) for label, pat in PATTERNS.items()}
        worst = max(rows, key=lambda k: rows[k]["cpu_ms"])
        result["sets"][name] = {
            "mean_path_chars": round(chars / len(ps), 1),
            "patterns": rows,
            "worst": {"pattern": worst, **rows[worst]},
        }
    emit(result, args.out)


if __name__ == "__main__":
    main()
