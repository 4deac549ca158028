"""The contract's ranking as pure functions (cosines given), including the weak-decision case."""

from jupiter_git_memory.recall.floors import round_up
from jupiter_git_memory.recall.ranking import DEFAULT_WEIGHTS, Hit, fts_match, fts_terms, merge_weights, rank, relevance

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
