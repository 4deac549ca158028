"""Floors per language pair (dec-floor-per-language-pair): a record written in the other language than the
question is held to the floor the same probes measured over such records alone, with the same band and
corroboration above it; every other record keeps the question's floor. Pure: ranking, the statistic and the
marking take data (a catalog stand-in that reads record texts) and return data."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from jupiter_git_memory.embedding.specs import E5_SMALL_Q4
from jupiter_git_memory.recall import cross_language
from jupiter_git_memory.recall.calibrate import _pair_floor, robust_floor
from jupiter_git_memory.recall.floors import floor_for, save_floor
from jupiter_git_memory.recall.ranking import Hit, cut_reason, merge_weights, no_answer_reason, rank
from jupiter_git_memory.recall.retrieval import Ask, _admit_above, _join_across, corroborate

pytestmark = pytest.mark.unit

W = merge_weights(None)


def hit(rid: str, cos: float, floor: float | None = None, corroboration: float | None = None) -> Hit:
    h = Hit(rid, "decision", "accepted", cos, f"{rid}#0", lexical=1.0, corroboration=corroboration)
    h.floor = floor
    return h


def test_a_record_in_the_other_language_is_admitted_above_its_pair_floor_and_not_above_the_question_floor():
    across, same = hit("EN", 0.36, floor=0.24), hit("ZH", 0.36)
    ranked = rank([across, same], 0.48, W, 3, "dense")
    assert [h.record_id for h in ranked] == ["EN"] and same.cut == "floor" and across.cut is None
    assert across.why["pair_floor"] == 0.24
    # its relevance is measured above its own floor, as a same-language record's is above the question's
    assert across.relevance == pytest.approx((0.36 - 0.24) / (1 - 0.24))


def test_the_band_above_a_pair_floor_needs_corroboration_as_the_question_floor_band_does():
    weak, strong = hit("EN1", 0.30, floor=0.24, corroboration=0.6), hit("EN2", 0.30, floor=0.24, corroboration=1.7)
    ranked = rank([weak, strong], 0.48, W, 3, "hybrid", corroborate_margin=0.1)
    assert [h.record_id for h in ranked] == ["EN2"] and weak.cut == "corroboration"
    assert "(its language pair's)" in (cut_reason(weak, 0.48, 0.1) or "") and "0.240" in (
        cut_reason(weak, 0.48, 0.1) or ""
    )
    assert strong.why["admitted"] == "corroborated"
    below = hit("EN3", 0.24, floor=0.24, corroboration=3.0)  # at its floor: cut whatever its words
    assert rank([below], 0.48, W, 3, "hybrid", corroborate_margin=0.1) == [] and below.cut == "floor"


def test_a_stricter_pair_floor_cuts_what_the_question_floor_would_admit():
    across = hit("ZH", 0.40, floor=0.45)
    assert rank([across], 0.31, W, 3, "dense") == [] and across.cut == "floor"


def test_an_empty_answer_names_the_pair_floor_of_its_best_record():
    why = no_answer_reason([hit("EN", 0.20, floor=0.24)], 0.48, "dense", 0.1)
    assert why["floor"] == 0.48 and why["pair_floor"] == 0.24
    assert "its language pair's floor 0.24" in why["reason"]
    plain = no_answer_reason([hit("ZH", 0.40)], 0.48, "dense", 0.1)
    assert "pair_floor" not in plain and "at or below the floor 0.48" in plain["reason"]


def test_corroboration_weighs_the_band_above_each_hits_own_floor():
    class Catalog:  # holders of the question's words: the English record holds "pgbouncer"
        def term_holders(self, terms, only, held=None):
            return {t: 1 for t in terms}, {t: ({"EN"} & only) if t == "pgbouncer" else set() for t in terms}

        def record_count(self):
            return 40

    class Index:
        catalog = Catalog()

    across, above = hit("EN", 0.30, floor=0.24), hit("ZH", 0.30)  # ZH is below the question floor: no band
    corroborate(Index(), "為什麼要用 pgbouncer？", [across, above], 0.48, 0.1)
    assert across.corroboration is not None and across.corroboration > 0 and above.corroboration is None


def test_the_dense_search_widens_down_to_the_lowest_floor_any_record_is_held_to():
    ask = Ask("q", ["accepted"], None, 3, "hybrid", 0.48, (0.40, 1.5), None, 0.24)
    assert _admit_above(ask) == 0.24
    assert _admit_above(Ask("q", ["accepted"], None, 3, "hybrid", 0.48, (0.40, 1.5))) == 0.40
    assert _admit_above(Ask("q", ["accepted"], None, 3, "lexical", 0.48, None, None, 0.24)) is None


class Texts:
    """The catalog reads `written_in` makes: each record's title and chunk bodies."""

    def __init__(self, texts: dict[str, str]):
        self.texts = texts

    def records_by_ids(self, rids):
        return {r: SimpleNamespace(title="") for r in rids if r in self.texts}

    def chunks(self, rids):
        return {f"{r}#0": SimpleNamespace(record_id=r, body=self.texts[r]) for r in rids if r in self.texts}


def test_only_hits_written_in_the_other_language_get_the_pair_floor():
    cat = Texts({"EN": "Backups are kept fourteen days.", "ZH": "備份保留十四天，每季演練一次還原。"})
    en, zh, low = hit("EN", 0.30), hit("ZH", 0.30), hit("EN", 0.10)
    cross_language.mark_pair_floors(cat, "資料庫備份保留幾天？", [en, zh, low], 0.48, 0.24)
    assert (en.floor, zh.floor, low.floor) == (0.24, None, None)  # at or below both floors: nothing to decide
    en2 = hit("EN", 0.30)
    cross_language.mark_pair_floors(cat, "資料庫備份保留幾天？", [en2], 0.48, None)  # none measured
    ja = hit("EN", 0.30)
    cross_language.mark_pair_floors(cat, "バックアップは何日保存しますか？", [ja], 0.48, 0.24)  # no pair for ja
    assert en2.floor is None and ja.floor is None
    zh_for_en = hit("ZH", 0.30)
    cross_language.mark_pair_floors(cat, "How long are backups kept?", [zh_for_en], 0.31, 0.25)
    assert zh_for_en.floor == 0.25


def test_the_pair_floor_is_the_robust_statistic_of_each_probes_best_among_the_other_languages_records():
    written = {"E1": "en", "E2": "en", "Z1": "zh", "Z2": "zh"}
    per_probe = [
        {"E1": 0.10, "E2": 0.22, "Z1": 0.50},
        {"E1": 0.18, "Z1": 0.45, "Z2": 0.47},
        {"E2": 0.30, "Z2": 0.52},
        {"Z1": 0.40},  # saw no English record: not counted
    ]
    got = _pair_floor(per_probe, written, "en")
    assert got is not None and got["records"] == 2
    assert got["floor"] == robust_floor([0.22, 0.18, 0.30])[0]
    assert _pair_floor(per_probe, {"Z1": "zh"}, "en") is None


def test_a_stored_pair_floor_reaches_recall_and_an_entry_without_one_gives_none(tmp_path):
    ident = {"model": "m", "dimension": 384}
    langs = {
        "zh": {"floor": 0.48, "cross_gate": None, "cross_floor": {"floor": 0.24, "records": 5}},
        "en": {"floor": 0.31, "cross_gate": None, "cross_floor": None},
    }
    save_floor("ws", ident, 0.31, {"source": "auto", "languages": langs}, tmp_path)
    zh = floor_for("ws", ident, E5_SMALL_Q4, store=tmp_path, language="zh")
    assert (zh.value, zh.cross_floor) == (0.48, 0.24)
    assert floor_for("ws", ident, E5_SMALL_Q4, store=tmp_path, language="en").cross_floor is None


def test_records_in_the_other_language_beyond_the_dense_pool_join_it_when_above_their_pair_floor():
    cat = Texts(
        {
            "EN-NEAR": "Each region runs three clusters.",
            "EN-LOW": "Spot instances for dev only.",
            "ZH-FAR": "台灣站跑在東京區域的叢集上。",
            "EN-POOLED": "Backups run nightly.",
        }
    )
    allowed = {f"{r}#{i}": (r, "decision", "accepted") for r in cat.texts for i in (0, 1)}
    allowed["EN-HIDDEN#0"] = ("EN-HIDDEN", "decision", "superseded")
    cat.texts["EN-HIDDEN"] = "Retired English record."
    best = {"EN-POOLED": hit("EN-POOLED", 0.50)}
    fetched = [
        ("EN-POOLED#1", 0.80),  # the pooled record's other chunk: the pool already has it
        ("ZH-FAR#0", 0.79),  # the question's language: stays out, the pool already took its best
        ("EN-NEAR#0", 0.78),
        ("EN-NEAR#1", 0.77),
        ("EN-HIDDEN#0", 0.90),  # not in the asked statuses
        ("EN-LOW#0", 0.70),  # at or below the pair floor
    ]

    class Index:
        catalog = cat

    def keep(cid: str) -> bool:
        return allowed[cid][2] == "accepted"

    _join_across(Index(), "台灣站部署在哪個區域？", fetched, keep, allowed, best, 0.75, lambda r: r)
    assert sorted(best) == ["EN-NEAR", "EN-POOLED"]
    assert (best["EN-NEAR"].cos, best["EN-NEAR"].cos2) == (0.78, pytest.approx(0.775))
    assert best["EN-NEAR"].floor == 0.75 and best["EN-POOLED"].floor is None  # held to the pair floor it passed
    assert best["EN-POOLED"].cos == 0.50  # untouched
    english = {"EN-POOLED": hit("EN-POOLED", 0.5)}  # an English question: the Chinese record joins instead
    _join_across(Index(), "Which region?", fetched, keep, allowed, english, 0.75, lambda r: r)
    assert sorted(english) == ["EN-POOLED", "ZH-FAR"]
