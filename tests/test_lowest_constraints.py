"""The lowest-versions CI path (.ci/run-lowest) installs what .ci/lowest-constraints.txt pins: those pins
must be exactly pyproject's lower bounds, or that run would test versions no user is promised."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[1]


def lower_bound(req: Requirement) -> Version | None:
    floors = [Version(s.version) for s in req.specifier if s.operator in (">=", "==", "~=")]
    return max(floors) if floors else None


def pins() -> dict[str, Version]:
    out = {}
    for line in (ROOT / ".ci" / "lowest-constraints.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            req = Requirement(line)
            (spec,) = req.specifier
            assert spec.operator == "==", f".ci/lowest-constraints.txt: {line!r} must pin with =="
            out[canonicalize_name(req.name)] = Version(spec.version)
    return out


def test_every_dependency_has_a_lower_bound_and_its_pin_equals_it():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    bounds = {}
    for d in deps:
        req = Requirement(d)
        low = lower_bound(req)
        assert low is not None, f"pyproject.toml: dependency {d!r} has no lower bound (add >=VERSION)"
        bounds[canonicalize_name(req.name)] = low
    pinned = pins()
    assert pinned.keys() == bounds.keys(), (
        f".ci/lowest-constraints.txt must pin every runtime dependency and nothing else: "
        f"missing {sorted(bounds.keys() - pinned.keys())}, extra {sorted(pinned.keys() - bounds.keys())}"
    )
    wrong = {n: (str(pinned[n]), str(bounds[n])) for n in bounds if pinned[n] != bounds[n]}
    assert not wrong, f"pin != pyproject lower bound (pin, bound): {wrong}"
