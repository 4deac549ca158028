"""What the collection benchmarks (adr_collections.py, wild_collections.py) share: a fresh repo committed as
the bench user, each NAME=PATH collection seeded in one temporary store (never the user's), the rank of the
first expected id, and the JSON they print."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

import yaml

GIT_ENV = dict(
    os.environ,
    GIT_AUTHOR_NAME="bench",
    GIT_AUTHOR_EMAIL="b@example.com",
    GIT_COMMITTER_NAME="bench",
    GIT_COMMITTER_EMAIL="b@example.com",
)


def commit_all(dest: Path, message: str) -> None:
    """`git init` at `dest` and commit everything in it."""
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-qm", message]):
        subprocess.run(["git", "-C", str(dest), *cmd], check=True, env=GIT_ENV, capture_output=True)


def first_rank(ids: list[str], expect: list[str]) -> int | None:
    """The 1-based rank of the first expected id among `ids`, None when none was returned."""
    return next((i + 1 for i, rid in enumerate(ids) if rid in expect), None)


def run_collections(
    ap: argparse.ArgumentParser,
    questions: str,
    pairs: list[str],
    flag: str,
    run: Callable[[str, dict, Path, Path], dict],
) -> tuple[dict, list[dict]]:
    """(the questions file's collections, `run(name, spec, path, work)` of each NAME=PATH in `pairs`), all in
    one temporary folder whose store is the only one touched. A NAME the file lacks is a usage error."""
    spec = yaml.safe_load(Path(questions).read_text("utf-8"))["collections"]
    if not pairs or any(p.partition("=")[0] not in spec or "=" not in p for p in pairs):
        ap.error(f"{flag} NAME=PATH with NAME in {', '.join(spec)}")
    chosen = dict(p.split("=", 1) for p in pairs)
    with tempfile.TemporaryDirectory(prefix="jgm-collections-bench-") as tmp:
        os.environ["JGM_HOME"] = str(Path(tmp) / "home")  # never touch the user's store
        return spec, [run(n, spec[n], Path(p), Path(tmp)) for n, p in chosen.items()]


def emit(summary: dict, out: str | None) -> None:
    """Print the JSON summary, and write it to `out` too when given."""
    text = json.dumps(summary, indent=2, ensure_ascii=False)
    print(text)
    if out:
        Path(out).write_text(text + "\n", "utf-8")
