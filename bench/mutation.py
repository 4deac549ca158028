"""Mutation score of the pure contract core (issue 17): killed / survived / timeout per module, as JSON.

Why: a recall contract is only as strong as the tests that notice it breaking. mutmut removes or bends one
rule at a time (`<=` → `<`, a key, a default) and reruns the fast unit tests selected in `[tool.mutmut]`
(pyproject.toml); a mutant no test notices is a rule nobody pins down. Survivors that cannot change any
observable behaviour are listed with a one-line reason in `mutmut-equivalents.toml` and leave the score's
denominator; every other survivor is printed so it can be killed with a test that states the rule.

Run: python bench/mutation.py [--max-children 1] [--min-score 0.9] [--fresh] [--results-only]
Exits 1 when the score is under --min-score or a survivor is neither killed nor listed (the weekly gate).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
import tomllib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EQUIVALENTS = ROOT / "mutmut-equivalents.toml"
# mutant names look like `pkg.mod.x_func__mutmut_3` or `pkg.mod.xǁClassǁmethod__mutmut_3`
_MODULE_RE = re.compile(r"^(.*?)\.x[_ǁ]")
_LINE_RE = re.compile(r"^\s+(\S+): (.+)$")


def in_scope() -> list[str]:
    """Modules selected by `only_mutate`, as dotted names."""
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["mutmut"]
    files = [f for pattern in cfg["only_mutate"] for f in sorted(ROOT.glob(pattern)) if f.suffix == ".py"]
    return [f.relative_to(ROOT).with_suffix("").as_posix().replace("/", ".").removesuffix(".__init__") for f in files]


def equivalents() -> dict[str, str]:
    if not EQUIVALENTS.is_file():
        return {}
    return tomllib.loads(EQUIVALENTS.read_text("utf-8")).get("equivalent", {})


def results() -> dict[str, str]:
    """mutant name -> status, from mutmut's stored results."""
    out = subprocess.run(
        [sys.executable, "-m", "mutmut", "results", "--all", "true"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    ).stdout
    return {m.group(1): m.group(2).strip() for m in map(_LINE_RE.match, out.splitlines()) if m}


def summarise(statuses: dict[str, str], equiv: dict[str, str], modules: list[str], min_score: float) -> dict:
    per: dict[str, Counter] = {m: Counter() for m in modules}
    unlisted: list[str] = []
    for name, status in sorted(statuses.items()):
        m = _MODULE_RE.match(name)
        module = m.group(1) if m else "?"
        c = per.setdefault(module, Counter())
        c["total"] += 1
        if status in ("killed", "caught by type check"):
            c["killed"] += 1
        elif status == "timeout":
            c["timeout"] += 1
        elif name in equiv:
            c["equivalent"] += 1
        else:
            c["survived" if status == "survived" else status.replace(" ", "_")] += 1
            unlisted.append(f"{name}: {status}")
    rows = {}
    for module, c in per.items():
        effective = c["total"] - c["equivalent"]
        rows[module] = {
            **{k: c[k] for k in ("total", "killed", "timeout", "survived", "equivalent")},
            **{k: v for k, v in c.items() if k not in ("total", "killed", "timeout", "survived", "equivalent")},
            "score": round((c["killed"] + c["timeout"]) / effective, 4) if effective else None,
        }
    tot = sum(per.values(), Counter())
    effective = tot["total"] - tot["equivalent"]
    score = (tot["killed"] + tot["timeout"]) / effective if effective else 0.0
    stale = sorted(n for n in equiv if statuses.get(n) not in ("survived", "no tests"))
    return {
        "modules": rows,
        "total": dict(tot),
        "score": round(score, 4),
        "raw_killed_share": round((tot["killed"] + tot["timeout"]) / tot["total"], 4) if tot["total"] else 0.0,
        "min_score": min_score,
        "unlisted_survivors": unlisted,
        "stale_equivalents": stale,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-children", type=int, default=1, help="mutmut workers (1 on a shared machine)")
    ap.add_argument("--min-score", type=float, default=0.9)
    ap.add_argument("--fresh", action="store_true", help="delete mutmut's cache (mutants/) first")
    ap.add_argument("--results-only", action="store_true", help="summarise the last run without running")
    args = ap.parse_args()
    seconds = None
    if not args.results_only:
        if args.fresh:
            shutil.rmtree(ROOT / "mutants", ignore_errors=True)
        t0 = time.monotonic()
        subprocess.run(
            [sys.executable, "-m", "mutmut", "run", "--max-children", str(args.max_children)],
            cwd=ROOT,
            check=False,
            timeout=6 * 3600,
            stdout=subprocess.DEVNULL,
        )
        seconds = round(time.monotonic() - t0, 1)
    report = summarise(results(), equivalents(), in_scope(), args.min_score)
    report["seconds"] = seconds
    print(json.dumps(report, indent=2))
    return 0 if report["score"] >= args.min_score and not report["unlisted_survivors"] else 1


if __name__ == "__main__":
    sys.exit(main())
