"""Helpers for the reliability tests (doctor, crash safety, bad input): run `jgm`, inspect the index."""

from __future__ import annotations

from pathlib import Path

from helpers import jgm, jgm_json  # noqa: F401 - shared by the reliability tests

from jupiter_git_memory.index.vectors import reset_clients
from jupiter_git_memory.maintenance import doctor
from jupiter_git_memory.seed.seeder import Seeder


def snapshot(repo_path: Path) -> dict:
    """Catalog records/chunks and Chroma ids + metadata as plain data."""
    reset_clients()
    idx = Seeder(repo_path).open()
    try:
        got = idx.vectors.col.get(include=["metadatas"])
        return {
            "records": idx.catalog.records(),
            "chunks": idx.catalog.chunks(),
            "vectors": dict(zip(got["ids"], got["metadatas"])),
        }
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
