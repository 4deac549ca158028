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
    w = ranking.merge_weights(None)
    assert ranking.weight(w, "fact", "invalidated") == 0.3 and ranking.weight(w, "adr", "candidate") == 0.8
