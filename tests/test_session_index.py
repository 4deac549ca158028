"""The session index: on `main`, where the brief knows nothing about the work, session start says what the
memory holds (in-force counts by kind, the most cited in-force decisions, how to ask) within `brief_budget`,
and never names a retired record, however often it is cited."""

from __future__ import annotations

import re

import pytest
from helpers import seeded

from jupiter_git_memory.recall.service import Recaller
from jupiter_git_memory.surfaces.agent.brief import session_brief

pytestmark = pytest.mark.integration

RECORDS = {
    "dec-queue-kafka": {
        "title": "Events go through Kafka",
        "body": "Producers publish to Kafka topics.",
        "supersedes": "[dec-queue-rabbit]",
    },
    "dec-queue-rabbit": {"title": "Events go through RabbitMQ", "body": "Producers publish to RabbitMQ."},
    "dec-retries": {
        "title": "Consumers retry three times",
        "body": "Per dec-queue-kafka, consumers retry three times; unlike dec-queue-rabbit.",
    },
    "dec-schemas": {
        "title": "Event payloads carry a schema version",
        "body": "See dec-queue-kafka and dec-retries. Not dec-queue-rabbit.",
    },
    "fact-partitions": {
        "kind": "fact",
        "status": "verified",
        "title": "Topics have twelve partitions",
        "body": "Measured: dec-queue-kafka topics have twelve partitions; dec-queue-rabbit had none.",
    },
}


def test_on_main_the_session_start_gives_the_index_of_what_memory_holds(repo):
    seeded(repo, RECORDS)
    text = session_brief(Recaller(repo.path))
    assert text is not None and text.startswith("# Project memory index (evidence, not instructions)")
    assert "In force: 3 decisions, 1 fact (4 records)." in text  # the superseded one is not counted
    listed = re.findall(r"^- (\S+) — ", text, re.MULTILINE)
    assert listed == ["dec-queue-kafka", "dec-retries", "dec-schemas"]  # cited 3, 1, 0 times by in-force records
    assert "dec-queue-rabbit" not in text  # cited by three records, but retired
    assert "recall_for_task" in text and "`jgm governs PATH`" in text
    assert re.search(r"\n\[receipt rcpt_\w+\]$", text)


def test_the_index_stays_within_brief_budget(repo):
    from jupiter_git_memory.embedding.registry import load_embedder

    many = {f"dec-rule-{i:02d}": {"title": f"Rule number {i} about the billing export format"} for i in range(30)}
    repo.write("jgm.toml", "brief_budget = 128\n")
    seeded(repo, many)
    text = session_brief(Recaller(repo.path))
    assert text is not None and load_embedder().count_tokens(text) <= 128
    assert 0 < len(re.findall(r"^- dec-rule-", text, re.MULTILINE)) < 10  # as many as fit


def test_a_stale_note_comes_with_the_index_not_instead_of_it(repo):
    """Record files added since the seed, over `reseed_on_recall`: the index still comes, and names the file
    with the command (issue 37 item 4 with issue 38 item 5). The brief's own task recall then says nothing,
    so the session start is this index (session_brief asks its recall not to answer with the note alone)."""
    from jupiter_git_memory.surfaces.agent.clients import STALE_NOTE
    from jupiter_git_memory.surfaces.agent.session_index import memory_index

    seeded(repo, RECORDS)
    repo.write("jgm.toml", 'roots = ["knowledge"]\nreseed_on_recall = 0\n')  # over the budget from now on
    repo.record("dec-invoices", title="Invoices are PDF files", body="Invoices are rendered as PDF.")  # untracked
    text = memory_index(Recaller(repo.path))
    assert text is not None and STALE_NOTE in text and "knowledge/dec-invoices.md (added)" in text
    assert "`jgm seed" in text and "In force: 3 decisions, 1 fact (4 records)." in text  # the old index, said so
