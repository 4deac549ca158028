"""The tier plugin (tests/tiers.py) resolves each test to exactly one tier and catches a wrong one while it runs.

Each case runs a small test file through pytest in this process (pytester) with the plugin loaded. This file is
e2e itself: the inner tests start processes and open stores on purpose, which the check would pin on the outer
test if it were watched."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.e2e

INNER = """
import os, sqlite3, subprocess
from pathlib import Path
import pytest

@pytest.fixture
def repo():  # the name alone settles the tier: integration
    return None

def test_pure():
    assert sorted([2, 1]) == [1, 2]

@pytest.mark.unit
def test_declared_unit_opens_sqlite(tmp_path):
    sqlite3.connect(tmp_path / "x.sqlite").close()

@pytest.mark.unit
def test_declared_unit_starts_a_process():
    subprocess.run(["true"], check=True, timeout=60)

@pytest.mark.unit
def test_declared_unit_writes_its_store():
    (Path(os.environ["JGM_HOME"]) / "catalog.sqlite").write_text("x")

@pytest.mark.unit
def test_declared_unit_but_uses_repo(repo):
    pass

@pytest.mark.integration
def test_integration_runs_git():
    subprocess.run(["git", "--version"], check=True, capture_output=True, timeout=60)

@pytest.mark.integration
def test_integration_starts_another_process():
    subprocess.run(["true"], check=True, timeout=60)

@pytest.mark.e2e
def test_e2e_may_do_anything():
    subprocess.run(["true"], check=True, timeout=60)
"""

MODULE_UNIT = """
import pytest
pytestmark = pytest.mark.unit

@pytest.fixture
def repo():
    return None

def test_module_unit():
    pass

def test_module_unit_with_repo(repo):
    pass

@pytest.mark.e2e
def test_nearest_declaration_wins():
    pass
"""


def _run(pytester, source: str, *args: str):
    pytester.makepyfile(test_inner=source)
    return pytester.runpytest_inprocess("-p", "tiers", "-p", "no:cacheprovider", "-rA", *args)


def _tier_of(pytester, source: str) -> dict[str, str]:
    """test name -> the tier `-m` selects it under."""
    found = {}
    for tier in ("unit", "integration", "e2e"):
        res = _run(pytester, source, "--collect-only", "-q", "-m", tier)
        for name in re.findall(r"::(test_\w+)", res.stdout.str()):
            assert name not in found, f"{name} selected by -m {found[name]} and -m {tier}"
            found[name] = tier
    return found


def test_every_test_resolves_to_exactly_one_tier_from_markers_and_fixtures(pytester):
    assert _tier_of(pytester, INNER) == {
        "test_pure": "e2e",  # nothing declared, no fixture that says: the conservative default
        "test_declared_unit_opens_sqlite": "unit",
        "test_declared_unit_starts_a_process": "unit",
        "test_declared_unit_writes_its_store": "unit",
        "test_declared_unit_but_uses_repo": "integration",  # a fixture raises the declared tier
        "test_integration_runs_git": "integration",
        "test_integration_starts_another_process": "integration",
        "test_e2e_may_do_anything": "e2e",
    }


def test_a_module_declaration_is_overridden_by_a_nearer_one_and_raised_by_fixtures(pytester):
    assert _tier_of(pytester, MODULE_UNIT) == {
        "test_module_unit": "unit",
        "test_module_unit_with_repo": "integration",
        "test_nearest_declaration_wins": "e2e",
    }


def test_a_test_that_does_more_than_its_tier_allows_fails_and_says_what_it_did(pytester):
    res = _run(pytester, INNER)
    res.assert_outcomes(passed=4, failed=4)
    out = res.stdout.str()
    for name, did in (
        ("test_declared_unit_opens_sqlite", "opened an SQLite file"),
        ("test_declared_unit_starts_a_process", "started a subprocess `true`"),
        ("test_declared_unit_writes_its_store", "wrote into its store (catalog.sqlite)"),
        ("test_integration_starts_another_process", "started a subprocess `true`"),
    ):
        assert re.search(rf"{name} is in the \w+ tier but it {re.escape(did)}", out), (name, out)
    for name in (
        "test_pure",
        "test_declared_unit_but_uses_repo",
        "test_integration_runs_git",
        "test_e2e_may_do_anything",
    ):
        assert f"PASSED test_inner.py::{name}" in out, out
