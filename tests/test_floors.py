"""No-match floors are bound to the workspace and vector identity they were measured for (pure rules, files in tmp dirs)."""

import json

from jupiter_git_memory.embedding.specs import ModelSpec, identity_hash
from jupiter_git_memory.recall.floors import floor_for, floors_path, get_floor, list_floors, round_up, save_floor

SPEC = ModelSpec("toy-model", "org/toy", "r1", 8, "mean", True, 64, default_floor=0.42)
IDENT = SPEC.identity()
WS = "ws-1"


def fl(ident, spec, override=None, root=None):
    info = floor_for(WS, ident, spec, override, root)
    return info.value, info.source, info.warnings


def test_a_configured_floor_wins_over_everything(tmp_path):
    save_floor(WS, IDENT, 0.31, {}, root=tmp_path)
    assert fl(IDENT, SPEC, override=0.2, root=tmp_path) == (0.2, "config", [])
    assert fl(IDENT, SPEC, root=tmp_path)[:2] == (0.31, "calibrated")
    assert fl(IDENT, SPEC, override=0.0, root=tmp_path)[:2] == (0.0, "config")  # 0 is a value, not "unset"


def test_a_calibrated_floor_applies_only_to_its_own_identity(tmp_path):
    entry = save_floor(WS, IDENT, 0.31, {"probes": 12}, root=tmp_path)
    assert entry["floor"] == 0.31 and entry["identity"] == IDENT and entry["probes"] == 12 and entry["measured_at"] > 0
    assert fl(IDENT, SPEC, root=tmp_path) == (0.31, "calibrated", [])
    other = dict(IDENT, revision="r2")
    floor, source, (warn,) = fl(other, SPEC, root=tmp_path)
    assert (floor, source) == (0.42, "shipped-default")
    assert identity_hash(other) in warn and "toy-model" in warn and "0.42" in warn and "jgm calibrate" in warn
    assert floor_for("ws-2", IDENT, SPEC, root=tmp_path).source == "shipped-default"  # nor another workspace


def test_a_hash_collision_with_another_identity_is_not_trusted(tmp_path):
    p = floors_path(tmp_path)
    key = f"{WS}/{identity_hash(IDENT)}"
    p.write_text(json.dumps({"version": 2, "floors": {key: {"floor": 0.1, "identity": {"model": "someone else"}}}}), "utf-8")
    assert fl(IDENT, SPEC, root=tmp_path)[:2] == (0.42, "shipped-default")


def test_floors_file_round_trips_and_keeps_other_identities(tmp_path):
    other = dict(IDENT, revision="r2")
    save_floor(WS, IDENT, 0.31, {}, root=tmp_path)
    save_floor(WS, other, 0.55, {}, root=tmp_path)
    floors = list_floors(tmp_path)
    assert sorted((v["identity_hash"], v["floor"]) for v in floors) == sorted(
        [(identity_hash(IDENT), 0.31), (identity_hash(other), 0.55)])
    assert not list(tmp_path.glob("*.tmp"))  # written atomically: no temp file left behind


def test_missing_or_corrupt_floors_file_means_no_calibration(tmp_path):
    assert list_floors(tmp_path) == []
    floors_path(tmp_path).write_text("{not json", "utf-8")
    assert list_floors(tmp_path) == [] and get_floor(WS, IDENT, tmp_path) is None
    assert fl(IDENT, SPEC, root=tmp_path)[1] == "shipped-default"


def test_floors_live_in_the_store_by_default(jgm_home):
    assert floors_path() == jgm_home / "floors.json"
    save_floor(WS, IDENT, 0.33, {})
    assert fl(IDENT, SPEC)[:2] == (0.33, "calibrated")


def test_round_up_is_robust_to_float_noise():
    assert round_up(0.1 + 0.2) == 0.3 and round_up(0.301) == 0.31 and round_up(0.0) == 0.0
