"""A seed over a hostile knowledge base (issue 10): every red-team input in one repo, next to valid records.

    python bench/hostile.py                       # prints JSON
    python bench/hostile.py --records 500 --bomb-levels 9

What is measured: one cold `jgm seed --json` (a subprocess, as a user runs it) and one `jgm seed --json
--rev HEAD` over a temp repo holding `--records` valid records plus one file per hostile input: an invalid
date, frontmatter nested 5,000 deep, a lone surrogate escape in a title, a YAML alias bomb of
`--bomb-levels` levels (9 levels took 147 s and 10 GB before frontmatter was bounded), anchors and merge
keys, a 6,000-digit integer, a file name with byte 0xFF, an oversized file, a binary file, invalid UTF-8,
a symlink out of the repo, and a second knowledge root that is itself a symlink out of the repo.
Reported: wall time, peak RSS of the seeding process (getrusage of the child), how many valid records
were indexed and how many bad files were named, against the targets: all valid indexed, every bad file
named, peak RSS under 1 GB.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ENV = {
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "b@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "b@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}
FENCE = "---\nid: {id}\nkind: decision\nstatus: accepted\ntitle: {title}\n{extra}---\nBody of {id}: {body}\n"


def rec(rid: str, title: str | None = None, extra: str = "", body: str = "a valid record") -> str:
    return FENCE.format(id=rid, title=title or f"Record {rid}", extra=extra, body=body)


def alias_bomb(levels: int) -> str:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


def build(repo: Path, records: int, levels: int, outside: Path) -> tuple[set[str], set[str]]:
    """Write the repo; returns (valid ids, bad paths as jgm names them)."""
    k = repo / "knowledge"
    k.mkdir(parents=True)
    good = set()
    for i in range(records):
        (k / f"rec-{i:05d}.md").write_text(rec(f"rec-{i:05d}", body=f"decision {i} about service {i % 17}."), "utf-8")
        good.add(f"rec-{i:05d}")
    bad_text = {
        "bad-date.md": rec("h-date", extra="date: 2024-13-45\n"),
        "deep.md": rec("h-deep", extra="x: " + "[" * 5000 + "]" * 5000 + "\n"),
        "surrogate.md": rec("h-surr", title='"bad \\ud800 title"'),
        "bomb.md": rec("h-bomb", extra=alias_bomb(levels)),
        "anchors.md": rec("h-anchor", extra="base: &b {a: 1}\nother:\n  <<: *b\n"),
        "bigint.md": rec("h-int", extra="n: " + "9" * 6000 + "\n"),
        "huge.md": rec("h-huge", body="x" * (300 * 1024)),
    }
    for name, text in bad_text.items():
        (k / name).write_text(text, "utf-8")
    (k / "binary.md").write_bytes(b"---\nid: h-bin\x00\x01\n---\n")
    (k / "latin1.md").write_bytes(b"---\nid: h-latin\nkind: fact\nstatus: verified\ntitle: caf\xe9\n---\n")
    with open(os.fsencode(k) + b"/name-\xff.md", "w", encoding="utf-8") as f:
        f.write(rec("h-name"))
    outside.mkdir(parents=True, exist_ok=True)
    (outside / "leak.md").write_text(rec("h-leak", body="must never be indexed"), "utf-8")
    os.symlink(outside / "leak.md", k / "escape.md")
    os.symlink(outside, repo / "linked-root")
    (repo / "jgm.toml").write_text('roots = ["knowledge", "linked-root"]\n', "utf-8")
    bad = {f"knowledge/{n}" for n in [*bad_text, "binary.md", "latin1.md", "escape.md"]}
    bad |= {"knowledge/name-\\xff.md", "linked-root"}
    return good, bad


def seed(repo: Path, env: dict, *extra: str) -> dict:
    """One `jgm seed --json` child: its report, wall time and peak RSS (this child only)."""
    exe = shutil.which("jgm") or str(Path(sys.executable).parent / "jgm")
    code = (
        "import resource, subprocess, sys, time, json; t = time.perf_counter(); "
        "p = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
        "print(json.dumps({'rc': p.returncode, 'out': p.stdout, 'err': p.stderr[-2000:], "
        "'seconds': time.perf_counter() - t, "
        "'rss_kb': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))"
    )
    p = subprocess.run(
        [sys.executable, "-c", code, exe, "seed", "--json", "--repo", str(repo), *extra],
        capture_output=True,
        text=True,
        env=env,
        timeout=3600,
    )
    res = json.loads(p.stdout)
    report = json.loads(res["out"]) if res["out"].strip().startswith("{") else {"raw": res["out"], "stderr": res["err"]}
    return {
        "rc": res["rc"],
        "seconds": round(res["seconds"], 2),
        "peak_rss_mb": round(res["rss_kb"] / 1024, 1),
        "report": report,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=200)
    ap.add_argument("--bomb-levels", type=int, default=9)
    ap.add_argument("--workdir", type=Path, default=None)
    args = ap.parse_args()
    base = Path(args.workdir or tempfile.mkdtemp(prefix="jgm-hostile-"))
    if base.exists() and args.workdir:
        shutil.rmtree(base)
    repo = base / "repo"
    env = dict(os.environ, **ENV, JGM_HOME=str(base / "home"))
    good, bad = build(repo, args.records, args.bomb_levels, base / "outside")
    for cmd in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "hostile"]):
        subprocess.run(["git", "-C", str(repo), *cmd], check=True, capture_output=True, env=env)
    out = {
        "records": args.records,
        "bad_files": len(bad),
        "bomb_levels": args.bomb_levels,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
    }
    for name, extra in (("worktree", ()), ("rev", ("--rev", "HEAD"))):
        run = seed(repo, env, *extra)
        rep = run.pop("report")
        named = {e["path"] for e in rep.get("errors", [])}
        indexed = set(rep.get("added", [])) | (good if name == "rev" and rep.get("errors") is not None else set())
        if name == "rev":  # the second seed finds the records already indexed: count what the catalog holds
            indexed = good if rep.get("records") == len(good) else set()
        expected_bad = bad - {"linked-root"} if name == "rev" else bad  # a rev seed reads Git objects only
        run.update(
            valid_indexed=len(indexed & good),
            valid_missing=sorted(good - indexed)[:10],
            bad_named=len(named & expected_bad),
            bad_not_named=sorted(expected_bad - named),
            unexpected_errors=sorted(named - expected_bad)[:10],
        )
        run["pass"] = {
            "all_valid_indexed": not (good - indexed),
            "every_bad_file_named": not (expected_bad - named),
            "peak_rss_under_1gb": run["peak_rss_mb"] < 1024,
            "exit_1_for_errors": run["rc"] == 1,
        }
        out[name] = run
    if not args.workdir:
        shutil.rmtree(base, ignore_errors=True)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
