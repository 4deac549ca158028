"""The contract's ranking as pure functions (cosines given), including the weak-decision case."""

import pytest

from jupiter_git_memory.recall.floors import round_up
from jupiter_git_memory.recall.ranking import (
    DEFAULT_WEIGHTS,
    Hit,
    check_mode,
    fts_match,
    fts_terms,
    merge_weights,
    rank,
    relevance,
)

pytestmark = pytest.mark.unit

W = merge_weights(None)


def hit(rid, kind, status, cos, lexical=0.0):
    return Hit(rid, kind, status, cos, f"{rid}#0", lexical)


def test_relevance_formula_and_floor_cut():
    assert relevance(0.3, 0.3) == 0.0 and relevance(0.2, 0.3) == 0.0
    assert abs(relevance(0.65, 0.3) - 0.5) < 1e-9 and relevance(1.0, 0.3) == 1.0
    out = rank([hit("A", "fact", "verified", 0.30), hit("B", "fact", "verified", 0.31)], 0.30, W, 5, "dense")
    assert [h.record_id for h in out] == ["B"]


def test_default_weights_follow_contract():
    assert DEFAULT_WEIGHTS["decision"]["accepted"] == 2.0 and DEFAULT_WEIGHTS["adr"]["accepted"] == 2.0
    assert DEFAULT_WEIGHTS["fact"]["verified"] == 1.7 and DEFAULT_WEIGHTS["finding"]["verified"] == 1.7
    assert rank([hit("C", "decision", "candidate", 0.9)], 0.3, W, 1, "dense")[0].weight == 0.8


def test_weak_decision_does_not_push_out_close_fact():
    floor = 0.3
    weak_decision = hit("DEC", "decision", "accepted", 0.36)  # barely above the floor
    close_fact = hit("FACT", "fact", "verified", 0.70)
    out = rank([weak_decision, close_fact], floor, W, 1, "dense")
    assert [h.record_id for h in out] == ["FACT"]


def test_equally_close_decision_outranks_fact():
    out = rank([hit("DEC", "decision", "accepted", 0.7), hit("FACT", "fact", "verified", 0.7)], 0.3, W, 2, "dense")
    assert [h.record_id for h in out] == ["DEC", "FACT"]


def test_hybrid_never_admits_below_floor_even_with_lexical():
    hits = [hit("LEX", "decision", "accepted", 0.25, lexical=50.0)]
    assert rank(hits, 0.3, W, 5, "hybrid") == []
    assert [h.record_id for h in rank(hits, 0.3, W, 5, "lexical")] == ["LEX"]  # lexical-only has no floor


def test_hybrid_lexical_reorders_above_floor():
    a = hit("A", "fact", "verified", 0.62, lexical=0.0)
    b = hit("B", "fact", "verified", 0.60, lexical=8.0)
    assert [h.record_id for h in rank([a, b], 0.3, W, 2, "dense")] == ["A", "B"]
    assert [h.record_id for h in rank([a, b], 0.3, W, 2, "hybrid")] == ["B", "A"]


def test_corroboration_margin_drops_uncorroborated_near_floor():
    near = hit("NEAR", "fact", "verified", 0.32)
    near_lex = hit("NEARLEX", "fact", "verified", 0.32, lexical=1.0)
    out = rank([near, near_lex], 0.3, W, 5, "hybrid", corroborate_margin=0.05)
    assert [h.record_id for h in out] == ["NEARLEX"]


def test_weight_overrides_merge():
    w = merge_weights({"history": {"historical": 1.5}})
    assert w["history"]["historical"] == 1.5 and w["decision"]["accepted"] == 2.0


def test_fts_query_quotes_words_and_drops_stopwords():
    q = fts_match(fts_terms('What is "the" floor? DROP TABLE; x OR y'))
    assert q == '"floor" OR "drop" OR "table"'


def test_round_up_two_decimals():
    assert round_up(0.2775) == 0.28 and round_up(0.28) == 0.28 and round_up(0.2801) == 0.29


def test_discriminating_drops_terms_in_most_chunks():
    from jupiter_git_memory.recall.ranking import discriminating, fts_terms

    terms = fts_terms("How does the service retry failed payments?")
    assert terms == ["service", "retry", "failed", "payments"]
    counts = {"service": 900, "retry": 251, "failed": 250, "payments": 3}
    assert discriminating(terms, counts, 1000) == ["failed", "payments"]


# --- rules the mutation bench showed no test stated (issue 17) ---


def test_cos_exactly_at_the_floor_is_not_returned_in_any_floored_mode():
    at = hit("AT", "fact", "verified", 0.375, lexical=5.0)
    for mode in ("dense", "hybrid"):
        assert rank([at], 0.375, W, 5, mode) == [], mode


def test_a_floor_of_one_admits_nothing_and_never_divides_by_zero():
    assert relevance(1.0, 1.0) == 0.0
    assert rank([hit("A", "fact", "verified", 1.0)], 1.0, W, 5, "dense") == []


def test_relevance_is_clamped_to_one_and_linear_above_the_floor():
    assert relevance(0.75, 0.5) == 0.5 and relevance(1.5, 0.5) == 1.0


def test_corroboration_boundary_is_strictly_above_floor_plus_margin():
    floor, margin = 0.25, 0.125
    at_edge = hit("EDGE", "fact", "verified", 0.375)  # exactly floor + margin, no lexical match
    above = hit("ABOVE", "fact", "verified", 0.5)
    out = rank([at_edge, above], floor, W, 5, "hybrid", corroborate_margin=margin)
    assert [h.record_id for h in out] == ["ABOVE"]


def test_margin_zero_means_no_corroboration_needed():
    near = hit("NEAR", "fact", "verified", 0.26)
    assert [h.record_id for h in rank([near], 0.25, W, 5, "hybrid", corroborate_margin=0.0)] == ["NEAR"]


def test_corroboration_margin_is_a_hybrid_only_guard():
    near = hit("NEAR", "fact", "verified", 0.26)
    assert [h.record_id for h in rank([near], 0.25, W, 5, "dense", corroborate_margin=0.125)] == ["NEAR"]


def test_any_lexical_match_corroborates_a_near_floor_record():
    weak_lex = hit("WEAK", "fact", "verified", 0.26, lexical=0.5)
    assert [h.record_id for h in rank([weak_lex], 0.25, W, 5, "hybrid", corroborate_margin=0.125)] == ["WEAK"]


def test_every_kind_and_status_weight_is_read_from_config():
    table = {
        kind: {status: 3.0 + i / 100 for i, status in enumerate(statuses)} for kind, statuses in DEFAULT_WEIGHTS.items()
    }
    table["candidate"] = {"candidate": 0.25}
    w = merge_weights(table)
    for kind, statuses in table.items():
        for status, expected in statuses.items():
            (h,) = rank([hit("R", kind, status, 0.9)], 0.3, w, 1, "dense")
            assert h.weight == expected and h.score == h.relevance * expected, (kind, status)


def test_candidate_weight_applies_to_any_kind_while_a_candidate():
    for kind in ("fact", "decision", "history"):
        assert rank([hit("C", kind, "candidate", 0.9)], 0.3, W, 1, "dense")[0].weight == 0.8
        w = merge_weights({"candidate": {"candidate": 0.5}})
        assert rank([hit("C", kind, "candidate", 0.9)], 0.3, w, 1, "dense")[0].weight == 0.5


def test_unknown_kind_or_status_weighs_one_unless_configured():
    assert rank([hit("M", "memo", "draft", 0.9)], 0.3, W, 1, "dense")[0].weight == 1.0
    assert rank([hit("M", "fact", "draft", 0.9)], 0.3, W, 1, "dense")[0].weight == 1.0
    w = merge_weights({"memo": {"draft": 2.5}, "fact": {"draft": 1.25}})
    assert rank([hit("M", "memo", "draft", 0.9)], 0.3, w, 1, "dense")[0].weight == 2.5
    assert rank([hit("M", "fact", "draft", 0.9)], 0.3, w, 1, "dense")[0].weight == 1.25


def test_overrides_never_change_the_defaults():
    merge_weights({"fact": {"verified": 9.0}})
    assert DEFAULT_WEIGHTS["fact"]["verified"] == 1.7 and merge_weights(None)["fact"]["verified"] == 1.7


def test_lexical_mode_never_returns_a_record_without_a_lexical_match():
    hits = [hit("NOLEX", "fact", "verified", 0.99, lexical=0.0), hit("LEX", "fact", "verified", 0.1, lexical=2.0)]
    assert [h.record_id for h in rank(hits, 0.3, W, 5, "lexical")] == ["LEX"]
    assert rank([hit("NOLEX", "fact", "verified", 0.99)], 0.3, W, 5, "lexical") == []


def test_lexical_relevance_is_normalised_by_the_top_score():
    hits = [hit("TOP", "fact", "verified", 0.1, lexical=8.0), hit("HALF", "fact", "verified", 0.1, lexical=4.0)]
    out = {h.record_id: h.relevance for h in rank(hits, 0.3, W, 5, "lexical")}
    assert out == {"TOP": 1.0, "HALF": 0.5}


def test_hybrid_relevance_blends_dense_and_normalised_lexical():
    a = hit("A", "fact", "unverified", 0.65, lexical=4.0)  # dense 0.5, lexical 4/8
    b = hit("B", "fact", "unverified", 0.65, lexical=8.0)  # dense 0.5, lexical 1
    out = {h.record_id: h for h in rank([a, b], 0.3, W, 5, "hybrid", lexical_weight=0.25)}
    assert abs(out["A"].relevance - (0.75 * 0.5 + 0.25 * 0.5)) < 1e-9
    assert abs(out["B"].relevance - (0.75 * 0.5 + 0.25 * 1.0)) < 1e-9
    assert out["B"].why == {
        "cos": 0.65,
        "dense": 0.5,
        "lexical": 1.0,
        "relevance": 0.625,
        "weight": 1.0,
        "admitted": "dense",
    }


def test_dense_mode_ignores_lexical_evidence():
    (h,) = rank([hit("A", "fact", "unverified", 0.65, lexical=9.0)], 0.3, W, 5, "dense")
    assert abs(h.relevance - 0.5) < 1e-9 and h.why["lexical"] == 0.0


def test_hybrid_without_any_lexical_match_is_dense():
    (h,) = rank([hit("A", "fact", "unverified", 0.65)], 0.3, W, 5, "hybrid", lexical_weight=0.25)
    assert abs(h.relevance - 0.75 * 0.5) < 1e-9


def test_ties_break_by_cosine_then_id_and_k_limits():
    same_score = [
        hit("B", "fact", "unverified", 0.65),
        hit("A", "fact", "unverified", 0.65),
        hit("C", "fact", "unverified", 0.9, lexical=0.0),
    ]
    out = rank(same_score, 0.3, W, 3, "dense")
    assert [h.record_id for h in out] == ["C", "A", "B"]
    w = merge_weights({"fact": {"unverified": 1.0, "verified": 2.0}})
    lo_cos = hit("LO", "fact", "verified", 0.625)  # relevance 0.25 x 2.0 = 0.5
    hi_cos = hit("HI", "fact", "unverified", 0.75)  # relevance 0.5 x 1.0 = 0.5
    out = rank([lo_cos, hi_cos], 0.5, w, 2, "dense")
    assert out[0].score == out[1].score and [h.record_id for h in out] == ["HI", "LO"]
    assert [h.record_id for h in rank(same_score, 0.3, W, 2, "dense")] == ["C", "A"]


def test_fts_terms_keep_three_letter_words_once_and_at_most_32():
    assert fts_terms("api api db key keys") == ["api", "key", "keys"]
    many = " ".join(f"word{i}" for i in range(40))
    assert fts_terms(many) == [f"word{i}" for i in range(32)]


def test_discriminating_default_share_is_a_quarter():
    from jupiter_git_memory.recall.ranking import discriminating

    assert discriminating(["a", "b", "c"], {"a": 25, "b": 26}, 100) == ["a", "c"]
    assert discriminating(["new"], {}, 2) == ["new"]  # a term in no chunk is never dropped


def test_default_mode_is_hybrid_with_a_lexical_weight_of_0_3():
    a = hit("A", "fact", "unverified", 0.65, lexical=2.0)  # dense 0.5, lexical 1
    (h,) = rank([a], 0.3, W, 5)
    assert abs(h.relevance - (0.7 * 0.5 + 0.3 * 1.0)) < 1e-9


def test_fractional_lexical_scores_count():
    lo = hit("LO", "fact", "unverified", 0.65, lexical=0.25)
    hi = hit("HI", "fact", "unverified", 0.65, lexical=0.5)
    assert {h.record_id: h.relevance for h in rank([lo, hi], 0.3, W, 5, "lexical")} == {"HI": 1.0, "LO": 0.5}
    out = {h.record_id: h.why["lexical"] for h in rank([lo, hi], 0.3, W, 5, "hybrid")}
    assert out == {"HI": 1.0, "LO": 0.5}


def test_why_rounds_every_figure_to_four_decimals():
    a = hit("A", "fact", "unverified", 0.123456 + 0.3, lexical=1.0)
    b = hit("B", "fact", "unverified", 0.5, lexical=3.0)
    (h,) = [x for x in rank([a, b], 0.3, W, 5, "hybrid") if x.record_id == "A"]
    assert h.why["cos"] == 0.4235 and h.why["dense"] == round(0.123456 / 0.7, 4) and h.why["lexical"] == 0.3333
    assert h.why["relevance"] == round(h.relevance, 4) != h.relevance


def test_band_above_floor_needs_informative_corroboration():
    from jupiter_git_memory.recall.ranking import idf_mass, no_answer_reason

    n = 200
    # "python" is in 150 of 200 records (common), "operator" in 10, "walrus" in one (rare)
    terms = {"python": {f"r{i}" for i in range(150)}, "operator": {f"r{i}" for i in range(1, 11)}, "walrus": {"r1"}}
    mass = idf_mass(["python", "operator", "walrus"], terms, n)
    assert mass["r20"] < 0.2 and mass["r1"] >= 1.0
    common = hit("r20", "adr", "accepted", 0.35, lexical=3.0)
    common.corroboration = mass["r20"]  # one shared common word is no longer enough
    assert rank([common], 0.30, W, 3, "hybrid", corroborate_margin=0.10) == []
    why = no_answer_reason([common], 0.30, "hybrid", 0.10)
    assert why["decision"] == "no-answer" and "within 0.10 of the floor" in why["reason"]
    rare = hit("r1", "adr", "accepted", 0.35, lexical=3.0)
    rare.corroboration = mass["r1"]
    out = rank([rare], 0.30, W, 3, "hybrid", corroborate_margin=0.10)
    assert [h.record_id for h in out] == ["r1"] and out[0].why["admitted"] == "corroborated"
    clear = hit("r3", "adr", "accepted", 0.45)  # clear of the band: dense alone admits it
    assert rank([clear], 0.30, W, 3, "hybrid", corroborate_margin=0.10)[0].why["admitted"] == "dense"
    low = hit("r4", "adr", "accepted", 0.25, lexical=9.0)
    low.corroboration = 5.0  # lexical evidence never admits what the dense floor rejected
    assert rank([low], 0.30, W, 3, "hybrid", corroborate_margin=0.10) == []
    assert "at or below the floor" in no_answer_reason([low], 0.30, "hybrid", 0.10)["reason"]


def test_second_chunk_breaks_near_ties():
    one_lucky = hit("A", "adr", "accepted", 0.60)
    one_lucky.cos2 = 0.40
    two_good = hit("B", "adr", "accepted", 0.59)
    two_good.cos2 = 0.58
    assert [h.record_id for h in rank([one_lucky, two_good], 0.3, W, 2, "dense")] == ["B", "A"]


def test_an_unknown_mode_is_refused_not_ranked_as_dense():
    """Issue 14: `rank` used to treat any mode but lexical and hybrid as dense."""
    for mode in ("dense", "lexical", "hybrid"):
        assert check_mode(mode) == mode
        rank([hit("A", "fact", "verified", 0.9, 1.0)], 0.3, W, 5, mode)
    with pytest.raises(ValueError) as e:
        rank([hit("A", "fact", "verified", 0.9)], 0.3, W, 5, "semantic")
    assert str(e.value) == "unknown recall mode 'semantic'; use one of hybrid, dense, lexical"


def test_idf_mass_is_the_informativeness_of_the_shared_words_in_units_of_ln_n_plus_1():
    import math

    from jupiter_git_memory.recall.ranking import idf_mass

    n = 3
    terms = {"rare": {"r1"}, "common": {"r1", "r2", "r3"}}
    mass = idf_mass(["rare", "common", "absent"], terms, n)
    rare, common = math.log(4 / 1.5) / math.log(4), math.log(4 / 3.5) / math.log(4)
    assert mass == {"r1": rare + common, "r2": common, "r3": common}
    assert idf_mass(["rare"], {"rare": {"r1", "r2", "r3", "r4", "r5"}}, n) == {f"r{i}": 0.0 for i in range(1, 6)}
    assert idf_mass(["rare"], {"rare": {"r1"}}, 1) == {"r1": math.log(2 / 1.5) / math.log(2)}  # one record counts
    assert idf_mass(["rare"], terms, 0) == {}  # an empty index corroborates nothing (and never divides by 0)


def test_corroboration_exactly_at_the_minimum_admits():
    from jupiter_git_memory.recall.ranking import CORROBORATION_MIN, corroborated

    h = hit("A", "fact", "verified", 0.32)
    h.corroboration = CORROBORATION_MIN
    assert corroborated(h, 0.3, 0.1)
    h.corroboration = CORROBORATION_MIN - 0.01
    assert not corroborated(h, 0.3, 0.1)


def test_an_empty_answer_names_the_closest_record_and_why():
    from jupiter_git_memory.recall.ranking import no_answer_reason

    far, near = hit("FAR", "fact", "verified", 0.12345), hit("NEAR", "fact", "verified", 0.28765)
    why = no_answer_reason([far, near, hit("MID", "fact", "verified", 0.2)], 0.3, "hybrid", 0.1)
    assert why == {
        "decision": "no-answer",
        "best_record": "NEAR",
        "best_cos": 0.2877,
        "floor": 0.3,
        "reason": why["reason"],
    }
    assert "0.288" in why["reason"] and "0.30" in why["reason"] and "at or below the floor" in why["reason"]
    at = no_answer_reason([hit("AT", "fact", "verified", 0.3)], 0.3, "dense", 0.0)
    assert at["best_record"] == "AT" and "at or below the floor" in at["reason"]
    band = hit("BAND", "fact", "verified", 0.35)
    why = no_answer_reason([band], 0.3, "hybrid", 0.1)
    assert why["best_record"] == "BAND" and why["corroboration"] is None and "within 0.10" in why["reason"]
    band.corroboration = 0.12345
    assert no_answer_reason([band], 0.3, "hybrid", 0.1)["corroboration"] == 0.123


def test_an_empty_answer_without_a_floor_decision_says_which_rule_left_it_empty():
    from jupiter_git_memory.recall.ranking import no_answer_reason

    assert set(no_answer_reason([], 0.3, "hybrid", 0.1)) == {"decision", "reason"}
    assert no_answer_reason([], 0.3, "hybrid", 0.1)["decision"] == "no-answer"
    assert "filters" in no_answer_reason([], 0.3, "hybrid", 0.1)["reason"]
    lexical = no_answer_reason([hit("A", "fact", "verified", 0.9)], 0.3, "lexical", 0.0)
    assert set(lexical) == {"decision", "reason"} and "content words" in lexical["reason"]
    assert lexical["decision"] == "no-answer"


def test_order_blends_the_best_chunk_with_the_second_at_seven_to_three():
    two = hit("A", "fact", "verified", 0.6)
    two.cos2 = 0.4
    (out,) = rank([two], 0.3, W, 1, "dense")
    assert abs(out.relevance - relevance(0.7 * 0.6 + 0.3 * 0.4, 0.3)) < 1e-9


def test_a_cosine_exactly_at_the_top_of_the_band_is_admitted_by_corroboration_not_dense():
    edge = hit("EDGE", "fact", "verified", 0.5, lexical=1.0)
    edge.corroboration = 1.23456
    (out,) = rank([edge], 0.25, W, 1, "hybrid", corroborate_margin=0.25)
    assert out.why["admitted"] == "corroborated" and out.why["corroboration"] == 1.235


def test_rank_records_on_every_hit_the_rule_that_cut_it():
    from jupiter_git_memory.recall.ranking import cut_reason

    below, band, clear = (
        hit("B", "adr", "accepted", 0.29),
        hit("N", "adr", "accepted", 0.33, 2.0),
        hit("C", "adr", "accepted", 0.5),
    )
    band.corroboration = 0.4
    out = rank([below, band, clear], 0.30, W, 5, "hybrid", corroborate_margin=0.10)
    assert [h.record_id for h in out] == ["C"] and (below.cut, band.cut, clear.cut) == ("floor", "corroboration", None)
    assert cut_reason(band, 0.30, 0.10).endswith("informative-word mass 0.40") and cut_reason(clear, 0.3, 0.1) is None
    assert cut_reason(below, 0.30, 0.10) == "floor: cosine 0.290 ≤ floor 0.300"
    none = hit("L", "adr", "accepted", 0.9)
    assert rank([none], 0.3, W, 5, "lexical") == [] and none.cut == "no-lexical"


def test_sources_scored_against_another_pools_best_lexical_match():
    """Forwarding ranks the retired records it starts from by themselves: their words are weighed against
    the in-force pool's best lexical match (`lexical_top`), so a lone source does not get lexical 1.0."""
    w = {"decision": {"superseded": 1.0}}
    alone = rank([hit("old", "decision", "superseded", 0.6, lexical=2.0)], 0.3, w, 3, "hybrid", 0.3)
    scaled = rank([hit("old", "decision", "superseded", 0.6, lexical=2.0)], 0.3, w, 3, "hybrid", 0.3, lexical_top=8.0)
    assert alone[0].why["lexical"] == 1.0 and scaled[0].why["lexical"] == 0.25
    assert scaled[0].relevance < alone[0].relevance
    lower = rank([hit("old", "decision", "superseded", 0.6, lexical=2.0)], 0.3, w, 3, "hybrid", 0.3, lexical_top=1.0)
    assert lower[0].why["lexical"] == 1.0  # a pool whose best is weaker never scales a source above 1
