"""The lexical gate below the floor (recall/lexical_gate.py): when nothing passes the floor, one record between
the probes' median and the floor may answer, in hybrid mode only, with more informative-word mass than any
probe reached there, and only where a calibration measured the gate (CJK question languages); everything
else keeps the floor's contract."""

from __future__ import annotations

import pytest

from jupiter_git_memory.embedding.specs import E5_SMALL_Q4
from jupiter_git_memory.recall.floors import STRICTEST, floor_for, save_floor
from jupiter_git_memory.recall.lexical_gate import gate_of
from jupiter_git_memory.recall.ranking import Hit, gate_pick, merge_weights, no_answer_reason, rank

pytestmark = pytest.mark.unit

W = merge_weights(None)
FLOOR, GATE = 0.48, (0.40, 1.52)


def hit(rid: str, cos: float, mass: float | None, lexical: float = 1.0) -> Hit:
    h = Hit(rid, "decision", "accepted", cos, f"{rid}#0", lexical)
    h.corroboration = mass
    return h


def test_when_nothing_passes_the_floor_the_one_record_with_most_mass_above_the_gate_answers():
    hits = [hit("STRONG", 0.45, 2.0), hit("STRONGER", 0.42, 3.0), hit("EQUAL", 0.45, 1.52), hit("LOW", 0.40, 9.0)]
    out = rank(hits, FLOOR, W, 5, "hybrid", corroborate_margin=0.10, gate=GATE)
    assert [h.record_id for h in out] == ["STRONGER"]  # one record, the most words; at the median, never
    assert out[0].why["admitted"] == "lexical-gate" and out[0].why["dense"] == 0.0
    assert {h.record_id: h.cut for h in hits} == {"STRONG": "floor", "STRONGER": None, "EQUAL": "floor", "LOW": "floor"}
    assert rank([hit("EQUAL", 0.45, 1.52)], FLOOR, W, 5, "hybrid", gate=GATE) == []  # equal mass is not more


def test_a_record_above_the_floor_leaves_the_gate_shut():
    above, strong = hit("ABOVE", 0.60, 0.0), hit("STRONG", 0.45, 5.0, lexical=40.0)
    out = rank([strong, above], FLOOR, W, 5, "hybrid", corroborate_margin=0.10, gate=GATE)
    assert [h.record_id for h in out] == ["ABOVE"] and strong.cut == "floor"


def test_without_a_gate_or_outside_hybrid_the_floor_holds():
    strong = hit("STRONG", 0.45, 5.0, lexical=40.0)
    assert rank([strong], FLOOR, W, 5, "hybrid", corroborate_margin=0.10) == []
    assert rank([strong], FLOOR, W, 5, "dense", gate=GATE) == []
    assert rank([hit("UNMEASURED", 0.45, None)], FLOOR, W, 5, "hybrid", gate=GATE) == []
    assert gate_pick([hit("UNRANKED", 0.45, 5.0)], GATE) is None  # only a hit `rank` cut at the floor


def test_each_language_reads_its_own_gate_and_the_strictest_floor_has_none(tmp_path):
    ident = {"model": "m", "dimension": 384}
    langs = {
        "en": {"floor": 0.31, "lexical_gate": {"from": 0.22, "mass": 1.8}},
        "zh": {"floor": 0.48, "lexical_gate": {"from": 0.40, "mass": 1.52}},
    }
    save_floor("ws", ident, 0.31, {"source": "auto", "languages": langs}, tmp_path)
    assert floor_for("ws", ident, E5_SMALL_Q4, store=tmp_path, language="zh").gate == (0.40, 1.52)
    assert floor_for("ws", ident, E5_SMALL_Q4, store=tmp_path, language="en").gate == (0.22, 1.8)
    ja = floor_for("ws", ident, E5_SMALL_Q4, store=tmp_path, language="ja")
    assert ja.provenance["language"] == STRICTEST and ja.gate is None
    assert gate_of({"floor": 0.3}) is None and gate_of({"lexical_gate": {"from": "x", "mass": 1}}) is None


def test_an_empty_answer_names_the_gate_it_did_not_pass():
    hits = [hit("WEAK", 0.45, 1.0)]
    assert rank(hits, FLOOR, W, 5, "hybrid", corroborate_margin=0.10, gate=GATE) == []
    why = no_answer_reason(hits, FLOOR, "hybrid", 0.10, GATE)
    assert why["lexical_gate"] == {"from": 0.40, "mass": 1.52} and "lexical gate" in why["reason"]
    assert "lexical_gate" not in no_answer_reason(hits, FLOOR, "hybrid", 0.10)  # no gate measured: not named
