"""The kind registry (records/kinds.py) is the one place kinds and statuses are said: the tables every
other module reads are derived from it and agree with each other."""

import pytest

from jupiter_git_memory.candidates import propose
from jupiter_git_memory.lifecycle.resolve import retires
from jupiter_git_memory.recall import ranking
from jupiter_git_memory.records import kinds, model
from jupiter_git_memory.records.formats.status import LIFECYCLE, STATUS_TABLE

pytestmark = pytest.mark.unit


def test_every_user_reads_the_registry_not_a_copy():
    assert model.STATUSES is kinds.STATUSES and model.KINDS is kinds.KINDS and model.IN_FORCE is kinds.IN_FORCE
    assert ranking.DEFAULT_WEIGHTS is kinds.DEFAULT_WEIGHTS and ranking.DEFAULT_STATUSES is kinds.DEFAULT_STATUSES
    assert propose.CHOSEN_STATUSES is kinds.CHOSEN_STATUSES


def test_the_registry_is_consistent():
    for k in kinds.REGISTRY.values():
        effective = set(k.statuses) | {kinds.SUPERSEDED} | ({kinds.INVALIDATED} if k.invalidated_by else set())
        assert set(k.weights) <= effective, k.name  # a weight for a status the kind cannot have is dead
        assert k.in_force <= set(k.statuses) and set(k.chosen.values()) <= set(k.statuses), k.name
        assert not k.chosen or set(k.chosen) == set(kinds.CHOSEN_STATUSES), k.name
        assert bool(k.chosen) == bool(k.folder and k.prefix), k.name  # requestable kinds can be written
    assert set(STATUS_TABLE.values()) <= set(kinds.ADR_STATUSES)
    assert {s for s, g in LIFECYCLE.items() if g == "in force"} == kinds.REGISTRY["adr"].in_force


def test_statuses_resolve_as_before():
    assert propose.record_status("fact", "accepted") == "verified"
    assert propose.record_status("finding", "proposed") == "unverified"
    assert propose.record_status("decision", "accepted") == "accepted"
    assert propose.record_status("history", "accepted") == "historical"
    assert kinds.effective_status("fact", "false", retired=True) == "invalidated"
    assert kinds.effective_status("decision", "false", retired=False) == "false"
    assert kinds.effective_status("adr", "accepted", retired=True) == "superseded"
    assert retires("accepted") and retires("verified") and not retires("proposed")


def test_default_weights_rank_as_the_contract_says():
    """What the weights promise, not their digits: within a kind, the in-force status outranks one not yet
    chosen (proposed, unverified: the neutral 1.0), which outranks every retired or refused one; an agent's
    candidate never outranks a project rule, whatever kind it asked for; ranking reads the registry's numbers."""
    w = ranking.merge_weights(None)
    retired = {kinds.SUPERSEDED, kinds.INVALIDATED, "rejected", "deprecated"}
    for k in kinds.REGISTRY.values():
        for status, value in k.weights.items():
            assert ranking.weight(w, k.name, status) == value, (k.name, status)
        assert ranking.weight(w, k.name, kinds.CANDIDATE) == kinds.CANDIDATE_WEIGHT, k.name  # any kind alike
        if not k.in_force:
            continue
        pending = [s for s in k.statuses if s in k.chosen.values() and s not in k.in_force]
        assert pending, k.name
        for s_in in k.in_force:
            for s_p in pending:
                assert ranking.weight(w, k.name, s_in) > ranking.weight(w, k.name, s_p) == 1.0, (k.name, s_in, s_p)
            assert ranking.weight(w, k.name, s_in) > kinds.CANDIDATE_WEIGHT, (k.name, s_in)
        for s_r in retired & set(k.weights):
            assert ranking.weight(w, k.name, s_r) < 1.0, (k.name, s_r)  # below a record no one weighed
    assert w["decision"]["accepted"] > w["fact"]["verified"]  # a rule the team chose over a fact it checked
    assert w["fact"][kinds.INVALIDATED] < w["fact"][kinds.SUPERSEDED]  # a false fact below an outdated one
    assert w["history"][kinds.SUPERSEDED] < w["history"]["historical"] < 1.0  # context, never a rule


def test_the_concepts_page_states_the_weights_recall_uses():
    """docs/concepts.md's weight table, row by row, is DEFAULT_WEIGHTS (and the candidate weight)."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "concepts.md").read_text("utf-8")
    table = text.split("| kind | weights |", 1)[1].split("\n\n", 1)[0]
    documented: dict[str, dict[str, float]] = {}
    for row in re.findall(r"^\s*\| ([^|]+) \| ([^|]+) \|$", table, re.M):
        names, pairs = row
        if names.strip() == "---":
            continue
        if names.startswith("any kind with status candidate"):
            assert float(pairs) == kinds.CANDIDATE_WEIGHT
            continue
        values = {s: float(v) for s, v in re.findall(r"([a-z]+) (\d+(?:\.\d+)?)", pairs)}
        for name in names.split(","):
            documented[name.strip()] = values
    assert documented == kinds.DEFAULT_WEIGHTS
