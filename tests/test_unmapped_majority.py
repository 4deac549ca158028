"""A collection whose status word no table knows answers beside its few mapped records, marked as fallback
results (knowledge/decisions/dec-unmapped-majority.md). The rule alone, then a real repo, model and Chroma."""

from __future__ import annotations

import pytest
from cli_helpers import jgm_in, jgm_json_in

from jupiter_git_memory.recall.fallback import FALLBACK, unmapped_majority
from jupiter_git_memory.recall.service import Recaller
from jupiter_git_memory.seed.seeder import Seeder

pytestmark = pytest.mark.unit


def test_a_word_most_records_of_a_root_carry_admits_its_proposed_records():
    rows = [(f"a{i}", "docs/adr", "proposed", "Ratified") for i in range(3)]
    rows += [("a-ok", "docs/adr", "accepted", None), ("a-old", "docs/adr", "superseded", "Ratified")]
    assert unmapped_majority(rows) == {"a0": "Ratified", "a1": "Ratified", "a2": "Ratified"}  # 4 of 5 say it


@pytest.mark.parametrize(
    ("rows", "admitted"),
    [
        # half is not most
        ([("a0", "r", "proposed", "Ratified"), ("a1", "r", "accepted", None)], {}),
        # two unmapped words, neither carried by most of the root
        ([("a0", "r", "proposed", "Ratified"), ("a1", "r", "proposed", "Blessed"), ("a2", "r", "accepted", None)], {}),
        # each root counts alone: most of `r` says it, a third of `s` does
        (
            [("a0", "r", "proposed", "Ratified"), ("b0", "s", "accepted", None), ("b1", "s", "accepted", None)]
            + [("b2", "s", "proposed", "Ratified")],
            {"a0": "Ratified"},
        ),
    ],
)
def test_only_the_word_most_of_a_root_carries_admits(rows, admitted):
    assert unmapped_majority(rows) == admitted


def test_retired_records_and_candidates_never_take_part():
    rows = [(f"a{i}", "r", "superseded", "Ratified") for i in range(3)] + [("a3", "r", "rejected", "Ratified")]
    rows += [("c1", None, "candidate", "Ratified"), ("c2", "r", "candidate", "Ratified")]
    assert unmapped_majority(rows) == {}  # the word is the majority, but no record carrying it is proposed


def _adr(repo, n: int, title: str, status: str, body: str) -> None:
    text = f"# {n}. {title}\n\nDate: 2024-03-0{n % 9 + 1}\n\n## Status\n\n{status}\n\n## Context\n\n{body}\n"
    repo.write(f"docs/adr/{n:04d}-{title.lower().replace(' ', '-')}.md", text + "\n## Decision\n\nWe do so.\n")


SESSIONS_Q = "Which store keeps the users' login sessions?"
MIGRATIONS_Q = "Which database tool changes the orders schema?"


@pytest.fixture
def adrs(repo):
    _adr(repo, 1, "Keep orders in PostgreSQL", "Accepted", "The orders service keeps its data in PostgreSQL 16.")
    _adr(repo, 2, "Deploy services on Kubernetes", "Accepted", "Every service runs on the Kubernetes cluster.")
    ratified = [
        ("Keep login sessions in Redis", "Users' login sessions live in a Redis store with a 30-minute expiry."),
        ("Write logs as JSON lines", "Every service writes one JSON object per log line with a level."),
        ("Call internal services over gRPC", "Services talk to each other with gRPC and protobuf schemas."),
        ("Store uploaded images in object storage", "Uploaded images go to an S3-compatible bucket."),
        ("Run schema migrations with Flyway", "Database schema changes are Flyway migrations in the repo."),
    ]
    for n, (title, body) in enumerate(ratified, start=3):
        _adr(repo, n, title, "Ratified", body)
    _adr(repo, 8, "Keep sessions in Memcached", "Superseded by [ADR-0003](0003-x.md)", "Sessions live in Memcached.")
    repo.commit()
    assert not Seeder(repo.path).seed().errors
    return repo


def test_a_mostly_unmapped_collection_answers_beside_its_accepted_records(adrs):
    rc = Recaller(adrs.path)
    res = rc.recall(MIGRATIONS_Q, k=3)  # the accepted PostgreSQL record passes the floor: no plain fallback
    got = {r["id"]: r for r in res.results}
    assert "ADR-0007" in got, list(got)  # the Flyway record, which only says "Ratified"
    flyway, postgres = got["ADR-0007"], got["ADR-0001"]
    assert flyway["status"] == "proposed" and flyway["why"]["fallback"] == FALLBACK
    assert postgres["status"] == "accepted" and "fallback" not in postgres["why"]
    assert postgres["score"] > flyway["score"]  # the weight of proposed, never promoted
    assert res.fallback == FALLBACK
    assert any("not in force" in w and "'ratified'" in w for w in res.warnings), res.warnings
    alone = rc.recall(SESSIONS_Q, k=3)  # nothing in force matches: the unmapped record answers alone, marked
    assert [r["id"] for r in alone.results] == ["ADR-0003"] and alone.results[0]["why"]["fallback"] == FALLBACK
    for q in (MIGRATIONS_Q, SESSIONS_Q):  # the superseded Memcached record never comes back
        assert "ADR-0008" not in [r["id"] for r in rc.recall(q, k=5).results]


def test_asked_statuses_and_the_setting_keep_the_unmapped_records_out(adrs):
    rc = Recaller(adrs.path)
    asked = rc.recall(MIGRATIONS_Q, k=3, statuses=["accepted"])
    assert [r["id"] for r in asked.results] == ["ADR-0001"] and asked.fallback is None
    proposed = rc.recall(MIGRATIONS_Q, k=3, statuses=["proposed"])  # asked for: plain results, not marked
    assert "ADR-0007" in [r["id"] for r in proposed.results] and proposed.fallback is None
    off = rc.recall(MIGRATIONS_Q, k=3, fallback=False)
    assert [r["id"] for r in off.results] == ["ADR-0001"] and off.fallback is None


@pytest.mark.e2e
def test_cli_marks_each_result_that_answered_beside(adrs):
    p = jgm_in("recall", MIGRATIONS_Q, cwd=adrs.path)
    assert p.returncode == 0, p.stderr
    assert "results marked (fallback) are proposed, not in force" in p.stdout
    assert "no in-force record matches" not in p.stdout  # one did
    lines = p.stdout.splitlines()
    assert any("ADR-0007" in line and "(fallback)" in line for line in lines), p.stdout
    assert any("ADR-0001" in line and "adr/accepted ·" in line for line in lines), p.stdout
    rc, data = jgm_json_in("recall", MIGRATIONS_Q, cwd=adrs.path)
    assert rc == 0 and data["fallback"] == "proposed"
    assert {r["id"]: r["why"].get("fallback") for r in data["results"]}["ADR-0007"] == "proposed"


def test_mapping_the_word_ends_it(adrs):
    adrs.write("jgm.toml", '[status_map]\n"ratified" = "accepted"\n')
    adrs.commit()
    assert not Seeder(adrs.path).seed().errors
    res = Recaller(adrs.path).recall(MIGRATIONS_Q, k=3)
    flyway = {r["id"]: r for r in res.results}["ADR-0007"]
    assert flyway["status"] == "accepted" and "fallback" not in flyway["why"] and res.fallback is None
