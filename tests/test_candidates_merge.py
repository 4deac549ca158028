"""Merges are bounded: a candidate that many agents confirm stays within one candidate's size limit."""

from __future__ import annotations

import pytest
from candidates_helpers import candidate_rows, fact, seed_repo, service

from jupiter_git_memory.candidates import merge

TITLE = "The nightly export job streams rows in batches of 5000"
BODY = " ".join(
    f"Step {i}: the nightly export in `jobs/export.py` reads batch {i} of 5000 rows from the replica, "
    f"writes it to the bucket and commits offset {i * 5000} before reading on."
    for i in range(12)
)


@pytest.fixture
def seeded(repo):
    seed_repo(repo)
    return repo


def test_agents_confirming_one_large_finding_keep_the_candidate_within_its_limit(seeded, monkeypatch):
    svc = service(seeded)
    first = svc.record(fact(TITLE, BODY, agent="agent-0", evidence=["logs/export-0.txt"]))
    assert first.decision == "created" and len(BODY) > 1500
    # room for three observations in full and then about two by reference: the real limit is MAX_BODY_BYTES
    # (248 KiB), the same arithmetic with bodies a hundred times larger
    limit = merge.stored_bytes(candidate_rows(seeded)[first.id].data) + 3 * (len(BODY) + 400) + len(BODY) // 2
    monkeypatch.setattr(merge, "MAX_CANDIDATE_BYTES", limit)
    answers = []
    for i in range(1, 16):
        a = svc.record(fact(TITLE, BODY, agent=f"agent-{i}", evidence=[f"logs/export-{i}.txt"], run_key=f"r{i}"))
        answers.append(a)
        assert merge.stored_bytes(candidate_rows(seeded)[first.id].data) <= limit, i
    kinds = [(a.decision, a.reason_code) for a in answers]
    merged = [a for a in answers if a.decision == "merged"]
    assert merged and all(a.id == first.id and a.written for a in merged)
    full = [a for a in answers if a.decision == "skipped"]
    assert full and kinds[len(merged) :] == [("skipped", merge.FULL)] * len(full), kinds  # full stays full
    assert all(not a.written and "size limit" in a.reason and first.id in a.reason for a in full)
    data = candidate_rows(seeded)[first.id].data
    entries = data["evidence"]
    assert [e["agent"] for e in entries] == [f"agent-{i}" for i in range(len(merged) + 1)]
    by_text = [e for e in entries[1:] if "body" in e]
    by_ref = [e for e in entries[1:] if "body" not in e]
    assert by_text and by_ref and entries[1:] == by_text + by_ref  # full text first, then by reference
    assert all(e["content_sha"] == first_sha(svc, first.id) and e["body_bytes"] == len(BODY) for e in by_ref)
    assert all(e["evidence"] for e in by_ref)  # what backs each observation is kept in full
    assert any("by reference" in w for a in merged[len(by_text) :] for w in a.warnings)
    assert svc.validate(fact(TITLE, BODY, agent="agent-x")).reason_code == merge.FULL  # the dry run agrees


def first_sha(svc, cid: str) -> str:
    return svc.row(cid).content_hash
