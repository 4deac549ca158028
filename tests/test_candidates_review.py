"""The reviewer's conclusions through the candidate service (what the UI, and any API/MCP route, calls):
duplicate of, merge into, supersedes, and their refusals, which change nothing."""

from __future__ import annotations

import pytest
import yaml
from candidates_helpers import RETRY_RECORD, TOKENS_RECORD, candidate_rows, fact, seed_repo, service

from jupiter_git_memory.base.errors import JgmError
from jupiter_git_memory.candidates import merge, review
from jupiter_git_memory.candidates.propose import propose

A = ("Export peaks at 1,860 requests per minute", "The nightly export job peaks at 1,860 requests per minute.")
B = ("Export peaks at 2,470 requests per minute", "The nightly export job peaks at 2,470 requests per minute.")


@pytest.fixture
def seeded(repo):
    seed_repo(repo)
    return repo


def _two(svc):
    a = svc.record(fact(*A, agent="agent-a", evidence=["logs/a.txt"]))
    b = svc.record(fact(*B, agent="agent-b", evidence=["logs/b.txt"]))
    assert (a.decision, b.decision) == ("created", "created")  # the numbers differ: not merged
    return a.id, b.id


def _duplicates(svc, rid: str) -> list[dict]:
    with svc.open_index(exclusive=False) as index:
        return review.duplicates_of(index.catalog, rid)


def _code(fn, *args) -> str:
    with pytest.raises(JgmError) as e:
        fn(*args)
    return e.value.code


def test_duplicate_of_a_candidate_moves_the_evidence_and_closes_it(seeded):
    svc = service(seeded)
    a, b = _two(svc)
    out = review.duplicate_of(svc, b, a, "reviewer:me")
    assert (out["state"], out["duplicate_of"]) == ("rejected", a) and a in out["reason"]
    rows = candidate_rows(seeded)
    moved = [e for e in rows[a].data["evidence"] if e.get("moved_from") == b]
    assert [(e["agent"], e["evidence"]) for e in moved] == [("agent-b", ["logs/b.txt"])]
    assert rows[b].data["closed_by"] == "reviewer:me"
    assert [d["id"] for d in _duplicates(svc, a)] == [b]
    assert _code(review.duplicate_of, svc, b, a, "reviewer:me") == "memory/invalid-state"  # closed already


def test_merge_into_keeps_the_text_as_an_observation(seeded):
    svc = service(seeded)
    a, b = _two(svc)
    out = review.merge_into(svc, b, a, "reviewer:me")
    assert out["merged_into"] == a
    entry = [e for e in candidate_rows(seeded)[a].data["evidence"] if e.get("moved_from") == b]
    assert len(entry) == 1 and entry[0]["title"] == B[0] and entry[0]["body"] == B[1]
    assert entry[0]["evidence"] == ["logs/b.txt"] and entry[0]["agent"] == "agent-b"


def test_refusals_name_the_problem_and_change_nothing(seeded, monkeypatch):
    svc = service(seeded)
    a, b = _two(svc)
    before = {k: v.data for k, v in candidate_rows(seeded).items()}
    assert _code(review.duplicate_of, svc, a, a, "r") == "request/bad-target"
    assert _code(review.merge_into, svc, a, RETRY_RECORD[0], "r") == "request/bad-target"
    assert _code(review.duplicate_of, svc, a, "dec-no-such", "r") == "memory/not-found"
    assert _code(review.supersedes, svc, a, b, "r") == "candidate/supersede-target"  # a candidate retires nothing
    monkeypatch.setattr(merge, "MAX_CANDIDATE_BYTES", merge.stored_bytes(before[a]) + 10)
    assert _code(review.duplicate_of, svc, b, a, "r") == "memory/candidate-full"
    assert {k: v.data for k, v in candidate_rows(seeded).items()} == before


def test_a_duplicate_of_a_record_stays_listed_on_that_record(seeded):
    svc = service(seeded)
    a, _ = _two(svc)
    review.duplicate_of(svc, a, TOKENS_RECORD[0], "reviewer:me")
    listed = _duplicates(svc, TOKENS_RECORD[0])
    assert [d["id"] for d in listed] == [a] and listed[0]["evidence"][0]["evidence"] == ["logs/a.txt"]


def test_supersedes_is_written_by_the_proposal_on_its_branch(seeded):
    svc = service(seeded)
    c = svc.record(
        fact("API tokens expire after 12 hours", "Access tokens issued by the auth service expire after 12 hours.")
    )
    assert c.decision == "created"
    out = review.supersedes(svc, c.id, TOKENS_RECORD[0], "reviewer:me")
    assert out["supersedes"] == [TOKENS_RECORD[0]] and out["revisions"][-1]["fields"] == ["supersedes"]
    result = propose(svc, c.id, "accepted")
    text = seeded.git("show", f"{result['branch']}:{result['path']}").stdout
    front = yaml.safe_load(text.split("---\n")[1])
    assert front["supersedes"] == [TOKENS_RECORD[0]] and front["status"] == "verified"
