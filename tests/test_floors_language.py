"""Floors per question language (recall/floors.py): the language's measured floor, the strictest one for a
language no probe covered (and the answer says so), the model's shipped calibration for small knowledge
bases, and old single-floor entries read as English."""

from __future__ import annotations

import dataclasses

import pytest

from jupiter_git_memory.embedding.specs import E5_SMALL_Q4, MINILM_INT8
from jupiter_git_memory.recall.floors import STRICTEST, floor_for, save_floor

pytestmark = pytest.mark.unit

IDENT = {"model": "m", "dimension": 384}


def _save(tmp_path, languages=None, floor=0.31):
    details = {"source": "auto", "statistic": "median + 2·MAD"}
    if languages is not None:
        details["languages"] = languages
    save_floor("ws", IDENT, floor, details, tmp_path)


def test_each_language_gets_its_measured_floor(tmp_path):
    _save(tmp_path, {"en": {"floor": 0.31, "probe_count": 30}, "zh": {"floor": 0.48, "probe_count": 60}})
    en = floor_for("ws", IDENT, E5_SMALL_Q4, store=tmp_path, language="en")
    zh = floor_for("ws", IDENT, E5_SMALL_Q4, store=tmp_path, language="zh")
    assert (en.value, en.source, en.provenance["language"]) == (0.31, "calibrated", "en")
    assert (zh.value, zh.provenance["probe_count"], zh.warnings) == (0.48, 60, [])


def test_a_language_no_probe_covered_is_held_to_the_strictest_floor_and_says_so(tmp_path):
    _save(tmp_path, {"en": {"floor": 0.31}, "zh": {"floor": 0.48}})
    ja = floor_for("ws", IDENT, E5_SMALL_Q4, store=tmp_path, language="ja")
    assert ja.value == 0.48 and ja.provenance["language"] == STRICTEST
    assert ja.provenance["question_language"] == "ja" and "strictest" in ja.warnings[0]
    # a shipped floor stricter than any measured one for that language wins
    strict = dataclasses.replace(E5_SMALL_Q4, language_floors={"ja": 0.6})
    assert floor_for("ws", IDENT, strict, store=tmp_path, language="ja").value == 0.6


def test_an_entry_from_before_languages_stands_for_english(tmp_path):
    _save(tmp_path, None, floor=0.33)
    assert floor_for("ws", IDENT, MINILM_INT8, store=tmp_path, language="en").value == 0.33
    zh = floor_for("ws", IDENT, MINILM_INT8, store=tmp_path, language="zh")
    assert zh.value == 0.55 and zh.provenance["language"] == STRICTEST  # MiniLM's shipped zh is stricter


def test_without_a_floor_the_shipped_calibration_is_stated_plainly(tmp_path):
    en = floor_for("other", IDENT, MINILM_INT8, store=tmp_path, language="en")
    assert (en.value, en.source) == (0.30, "shipped-default")
    assert en.warnings[0].startswith("floor 0.3: minilm-l6-v2-int8's shipped calibration for en questions")
    assert "jgm calibrate" in en.warnings[0] and "no floor" not in en.warnings[0]
    ko = floor_for("other", IDENT, MINILM_INT8, store=tmp_path, language="ko")
    assert ko.value == 0.55 and ko.provenance["language"] == STRICTEST
    assert floor_for("other", IDENT, MINILM_INT8, override=0.2, store=tmp_path, language="zh").value == 0.2
