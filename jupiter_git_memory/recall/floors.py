"""No-match floors, bound to the vector identity they were measured for.

A floor measured for one model/instruction means nothing for another, so a calibrated floor is used only
when its identity hash matches the index's; otherwise the spec's shipped default applies, with a warning.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

from ..embedding.specs import ModelSpec, identity_hash
from ..index.store import store_root


def floors_path(root: Path | None = None) -> Path:
    return (root or store_root()) / "floors.json"


def load_floors(root: Path | None = None) -> dict:
    p = floors_path(root)
    if not p.is_file():
        return {}
    try:
        return json.loads(p.read_text("utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}


def save_floor(identity: dict, floor: float, details: dict, root: Path | None = None) -> dict:
    floors = load_floors(root)
    entry = {"floor": floor, "identity": identity, "measured_at": time.time(), **details}
    floors[identity_hash(identity)] = entry
    p = floors_path(root)
    tmp = p.with_suffix(".tmp")
    tmp.write_text(json.dumps(floors, indent=2, sort_keys=True), "utf-8")
    tmp.replace(p)
    return entry


def round_up(x: float) -> float:
    """Round up to two decimals (the calibration rule), robust to float noise."""
    return math.ceil(round(x * 100, 6)) / 100


def floor_for(identity: dict, spec: ModelSpec, override: float | None = None,
              root: Path | None = None) -> tuple[float, str, list[str]]:
    """(floor, where it came from, warnings)."""
    if override is not None:
        return override, "config", []
    entry = load_floors(root).get(identity_hash(identity))
    if entry and entry.get("identity") == identity:
        return float(entry["floor"]), "calibrated", []
    warn = (f"no floor calibrated for this model identity ({identity_hash(identity)}); using {spec.name}'s shipped "
            f"default {spec.default_floor}. Run `jgm calibrate PROBES` to measure one.")
    return spec.default_floor, "shipped-default", [warn]
