"""No-match floors are bound to the workspace and vector identity they were measured for (pure rules, files in tmp dirs)."""

import json

import pytest

from jupiter_git_memory.embedding.specs import ModelSpec, identity_hash
from jupiter_git_memory.recall.floors import (
    SKETCH_SIZE,
    corpus_change,
    corpus_sketch,
    floor_for,
    floors_path,
    get_floor,
    language_lines,
    list_floors,
    round_up,
    save_floor,
)

pytestmark = pytest.mark.unit

SPEC = ModelSpec("toy-model", "org/toy", "r1", 8, "mean", True, 64, default_floor=0.42)
IDENT = SPEC.identity()
WS = "ws-1"


def fl(ident, spec, override=None, store=None):
    info = floor_for(WS, ident, spec, override, store)
    return info.value, info.source, info.warnings


def test_a_configured_floor_wins_over_everything(tmp_path):
    save_floor(WS, IDENT, 0.31, {}, store=tmp_path)
    assert fl(IDENT, SPEC, override=0.2, store=tmp_path) == (0.2, "config", [])
    assert fl(IDENT, SPEC, store=tmp_path)[:2] == (0.31, "calibrated")
    assert fl(IDENT, SPEC, override=0.0, store=tmp_path)[:2] == (0.0, "config")  # 0 is a value, not "unset"


def test_a_calibrated_floor_applies_only_to_its_own_identity(tmp_path):
    entry = save_floor(WS, IDENT, 0.31, {"probes": 12}, store=tmp_path)
    assert entry["floor"] == 0.31 and entry["identity"] == IDENT and entry["probes"] == 12 and entry["measured_at"] > 0
    assert fl(IDENT, SPEC, store=tmp_path) == (0.31, "calibrated", [])
    other = dict(IDENT, revision="r2")
    floor, source, (warn,) = fl(other, SPEC, store=tmp_path)
    assert (floor, source) == (0.42, "shipped-default")
    assert identity_hash(other) in warn and "toy-model" in warn and "0.42" in warn and "jgm calibrate" in warn
    assert floor_for("ws-2", IDENT, SPEC, store=tmp_path).source == "shipped-default"  # nor another workspace


def test_a_hash_collision_with_another_identity_is_not_trusted(tmp_path):
    p = floors_path(tmp_path)
    key = f"{WS}/{identity_hash(IDENT)}"
    p.write_text(
        json.dumps({"version": 2, "floors": {key: {"floor": 0.1, "identity": {"model": "someone else"}}}}), "utf-8"
    )
    assert fl(IDENT, SPEC, store=tmp_path)[:2] == (0.42, "shipped-default")


def test_floors_file_round_trips_and_keeps_other_identities(tmp_path):
    other = dict(IDENT, revision="r2")
    save_floor(WS, IDENT, 0.31, {}, store=tmp_path)
    save_floor(WS, other, 0.55, {}, store=tmp_path)
    floors = list_floors(tmp_path)
    assert sorted((v["identity_hash"], v["floor"]) for v in floors) == sorted(
        [(identity_hash(IDENT), 0.31), (identity_hash(other), 0.55)]
    )
    assert not list(tmp_path.glob("*.tmp"))  # written atomically: no temp file left behind


def test_missing_or_corrupt_floors_file_means_no_calibration(tmp_path):
    assert list_floors(tmp_path) == []
    floors_path(tmp_path).write_text("{not json", "utf-8")
    assert list_floors(tmp_path) == [] and get_floor(WS, IDENT, tmp_path) is None
    assert fl(IDENT, SPEC, store=tmp_path)[1] == "shipped-default"


@pytest.mark.integration
def test_floors_live_in_the_store_by_default(jgm_home):
    assert floors_path() == jgm_home / "floors.json"
    save_floor(WS, IDENT, 0.33, {})
    assert fl(IDENT, SPEC)[:2] == (0.33, "calibrated")


def test_round_up_is_robust_to_float_noise():
    assert round_up(0.1 + 0.2) == 0.3 and round_up(0.301) == 0.31 and round_up(0.0) == 0.0


def test_a_corpus_sketch_keeps_the_lowest_ids_and_the_count():
    ids = {f"c{i:04d}" for i in range(SKETCH_SIZE + 44)}
    assert corpus_sketch(ids) == {"chunks": SKETCH_SIZE + 44, "sketch": sorted(ids)[:SKETCH_SIZE]}


def test_corpus_change_is_the_share_of_chunks_that_differ():
    old = corpus_sketch({"a", "b", "c", "d"})
    assert corpus_change(old, {"a", "b", "c", "d"}) == 0.0
    assert corpus_change(old, {"a", "b", "c", "e"}) == 0.4  # 3 of the 5 ids seen on either side are shared
    assert corpus_change(old, {"a", "b", "c"}) == 0.25
    assert corpus_change(corpus_sketch(set()), set()) == 0.0  # nothing before, nothing now


def test_a_corpus_that_shrank_behind_the_sketch_still_counts_as_changed():
    ids = {f"c{i:04d}" for i in range(300)}
    kept = set(sorted(ids)[:SKETCH_SIZE])  # the sketch's ids all survive; 44 others are gone
    assert corpus_change(corpus_sketch(ids), kept) == 44 / 300


def test_without_a_stored_sketch_the_corpus_counts_as_all_new():
    for old in (None, {}, {"chunks": 3}):
        assert corpus_change(old, {"a", "b", "c"}) == 1.0
    assert corpus_change({"sketch": ["a", "b", "c"]}, {"a", "b", "c"}) == 1.0  # no count stored: size unknown


def test_a_calibrated_floor_reports_its_provenance_without_the_sketch(tmp_path):
    corpus = {"records": 9, **corpus_sketch({"a", "b"})}
    measured = {
        "source": "auto",
        "statistic": "median+2mad",
        "probes_file": "p.txt",
        "probes_sha256": "abc",
        "probe_count": 12,
        "median_cos": 0.2,
        "mad_cos": 0.01,
        "max_cos": 0.3,
    }
    save_floor(WS, IDENT, 0.37, {**measured, "corpus": corpus}, tmp_path)
    info = floor_for(WS, IDENT, SPEC, store=tmp_path)
    assert (info.value, info.source, info.warnings) == (0.37, "calibrated", [])
    prov = info.provenance
    assert {k: prov[k] for k in measured} == measured
    assert prov["corpus"] == {"records": 9, "chunks": 2} and prov["measured_at"] > 0
    config = floor_for(WS, IDENT, SPEC, override=0.5, store=tmp_path)
    assert config.provenance["source"] == "config" and "`floor`" in config.provenance["note"] and config.warnings == []
    default = floor_for("ws-9", IDENT, SPEC, store=tmp_path)
    assert {k: default.provenance[k] for k in ("source", "model")} == {
        "source": "shipped-default",
        "model": "toy-model",
    }
    assert default.provenance["in_force"].startswith("floor 0.42 in force: toy-model's shipped default, because")
    assert "ws-9" in default.warnings[0] and "jgm seed" in default.warnings[0]


def test_floors_are_listed_by_workspace_then_time_of_measurement(tmp_path):
    save_floor("beta", IDENT, 0.3, {}, tmp_path)
    save_floor("Alpha", IDENT, 0.4, {}, tmp_path)
    save_floor("Alpha", dict(IDENT, revision="r2"), 0.5, {}, tmp_path)
    data = json.loads(floors_path(tmp_path).read_text("utf-8"))
    data["floors"]["legacy"] = {"floor": 0.6}  # hand-edited: no workspace, no time
    data["floors"]["undated"] = {"floor": 0.7, "workspace": "Alpha"}
    floors_path(tmp_path).write_text(json.dumps(data), "utf-8")
    assert [e["floor"] for e in list_floors(tmp_path)] == [0.6, 0.7, 0.4, 0.5, 0.3]


def test_the_first_save_creates_the_store_directory(tmp_path):
    root = tmp_path / "not" / "yet"
    save_floor(WS, IDENT, 0.3, {}, root)
    assert get_floor(WS, IDENT, root)["floor"] == 0.3


def test_jgm_floors_says_what_each_question_language_is_held_to():
    entry = {
        "floor": 0.31,
        "languages": {
            "zh": {
                "floor": 0.48,
                "lexical_gate": {"from": 0.3993, "mass": 1.52},
                "cross_gate": {"mass": 1.8},
                "cross_floor": {"floor": 0.24, "records": 5},
            },
            "en": {"floor": 0.31, "cross_gate": None, "cross_floor": None},
        },
    }
    assert language_lines(entry) == [
        "en questions: floor 0.31",
        "zh questions: floor 0.48; lexical gate above cosine 0.3993 at IDF mass > 1.52; over the 5 records in the "
        "other language floor 0.24; cross-language gate at mass > 1.8",
    ]
    assert language_lines({"floor": 0.3}) == ["en questions: floor 0.3"]  # from before languages: English
