"""Helpers for the reliability tests (doctor, crash safety, bad input): run `jgm`, inspect the index."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from jupiter_git_memory.maintenance import doctor
from jupiter_git_memory.index.vectors import reset_clients
from jupiter_git_memory.seed.seeder import Seeder


def jgm(*args: str, cwd: Path | None = None, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    exe = shutil.which("jgm") or str(Path(sys.executable).parent / "jgm")
    return subprocess.run([exe, *args], cwd=cwd, capture_output=True, text=True, env=env or os.environ.copy(),
                          timeout=timeout)


def jgm_json(*args: str, cwd: Path | None = None) -> tuple[int, dict]:
    p = jgm(*args, "--json", cwd=cwd)
    try:
        return p.returncode, json.loads(p.stdout)
    except json.JSONDecodeError:
        raise AssertionError(f"jgm {' '.join(args)} printed no JSON (rc {p.returncode}): {p.stdout}\n{p.stderr}") from None


def snapshot(repo_path: Path) -> dict:
    """Catalog records/chunks and Chroma ids + metadata as plain data."""
    reset_clients()
    idx = Seeder(repo_path).open()
    try:
        got = idx.vectors.col.get(include=["metadatas"])
        return {"records": idx.catalog.records(), "chunks": idx.catalog.chunks(),
                "vectors": dict(zip(got["ids"], got["metadatas"]))}
    finally:
        idx.close()
        reset_clients()


def problems_by_check(repo_path: Path) -> dict[str, list]:
    d = doctor.diagnose(repo_path)
    return {p.check: p for p in d.problems}


def assert_consistent(repo_path: Path, expected_ids: set[str] | None = None) -> dict:
    """The doctor finds nothing, and (when given) the catalog holds exactly `expected_ids`."""
    d = doctor.diagnose(repo_path)
    assert d.ok, "\n".join(p.render() for p in d.problems)
    snap = snapshot(repo_path)
    assert set(snap["vectors"]) == set(snap["chunks"])
    if expected_ids is not None:
        assert set(snap["records"]) == expected_ids
    return snap
