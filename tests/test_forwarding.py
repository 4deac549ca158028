"""Forwarding from retired records, the pure part (recall/forwarding.py): which replacements a retired record
leads to (chains, cycles, depth) and how they are scored. End to end, over a real repository: test_forwarding_recall.py."""

from __future__ import annotations

import pytest

from jupiter_git_memory.recall.forwarding import HOP_FACTOR, Route, forwards, routes, why_forwarded
from jupiter_git_memory.recall.ranking import Hit

pytestmark = pytest.mark.unit


def _succ(graph: dict[str, list[str]]):
    return lambda rid: graph.get(rid, [])


def test_a_chain_is_followed_to_the_record_nothing_retires():
    got = routes("A", _succ({"A": ["B"], "B": ["C"]}))
    assert [r.path for r in got] == [("A", "B", "C")]
    assert got[0].target == "C" and got[0].steps == 2


def test_nothing_retires_the_start_gives_no_route():
    assert routes("A", _succ({"B": ["C"]})) == []


def test_branches_give_every_end_each_by_its_shortest_path():
    graph = {"A": ["B", "C"], "B": ["D"], "C": ["D", "E"]}
    got = {r.target: r.path for r in routes("A", _succ(graph))}
    assert got == {"D": ("A", "B", "D"), "E": ("A", "C", "E")}


def test_a_cycle_stops_and_leads_nowhere():
    # A -> B -> C -> B: nothing on the loop is free of a retiring record, so there is no replacement
    assert routes("A", _succ({"A": ["B"], "B": ["C"], "C": ["B"]})) == []
    # a loop back to the start beside a real end still finds the end
    assert [r.target for r in routes("A", _succ({"A": ["B", "X"], "B": ["A"]}))] == ["X"]


def test_depth_is_bounded():
    graph = {f"r{i}": [f"r{i + 1}"] for i in range(10)}
    assert routes("r0", _succ(graph), max_depth=3) == []
    assert [r.target for r in routes("r0", _succ(graph), max_depth=10)] == ["r10"]


def _hit(rid: str, relevance: float, status: str = "superseded", cos: float = 0.5) -> Hit:
    h = Hit(rid, "decision", status, cos, f"{rid}#0")
    h.relevance = relevance
    return h


def test_score_is_the_retired_records_relevance_discounted_per_step():
    graph = {"old": ["mid"], "mid": ["new"], "other-old": ["new2"]}
    got = forwards(
        [_hit("old", 0.5), _hit("other-old", 0.2)],
        lambda rid: routes(rid, _succ(graph)),
        eligible=lambda rid: True,
        admitted=set(),
    )
    assert [(f.target, round(f.relevance, 6)) for f in got] == [("new", round(0.5 * HOP_FACTOR**2, 6)), ("new2", 0.16)]
    assert all(f.relevance < f.source.relevance for f in got)  # never above what the retired record earned


def test_replacements_not_eligible_or_admitted_by_themselves_are_not_forwarded():
    graph = {"a": ["x"], "b": ["y"], "c": ["z"]}
    got = forwards(
        [_hit("a", 0.4), _hit("b", 0.4), _hit("c", 0.4)],
        lambda rid: routes(rid, _succ(graph)),
        eligible=lambda rid: rid != "y",  # e.g. not in the view, retired itself, or not an asked kind
        admitted={"z"},  # passed the floor itself: it keeps its own score, unmarked
    )
    assert [f.target for f in got] == ["x"]


def test_a_replacement_reached_twice_keeps_the_best_source():
    graph = {"weak": ["new"], "strong": ["new"]}
    got = forwards(
        [_hit("weak", 0.1), _hit("strong", 0.6)], lambda rid: routes(rid, _succ(graph)), lambda r: True, set()
    )
    assert len(got) == 1 and got[0].source.record_id == "strong"
    why = why_forwarded(got[0], 0.21, 2.0)
    assert why["via"] == "strong, superseded" and why["via_path"] == ["strong", "new"]
    assert why["cos"] == 0.21 and why["relevance"] == round(0.6 * HOP_FACTOR, 4) and why["admitted"] == "forwarded"


def test_route_properties():
    r = Route(("a", "b"))
    assert r.target == "b" and r.steps == 1
