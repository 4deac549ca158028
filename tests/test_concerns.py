"""The concern splitter on goals written freely (recall/concerns.py, issue 34 part 7). Pure: no model.
Measured on the task eval's `free` tasks: bench/README.md (task recall)."""

from __future__ import annotations

import pytest

from jupiter_git_memory.recall.concerns import MAX_CONCERNS, content_words, split_concerns

pytestmark = pytest.mark.unit


def test_additive_words_and_discourse_fillers():
    assert split_concerns("fix how we round tax and also make sure invoice numbers never skip") == [
        "fix how we round tax",
        "invoice numbers never skip",
    ]
    assert split_concerns("clean up the webhook sender and while you are at it check the signature header") == [
        "clean up the webhook sender",
        "check the signature header",
    ]
    # "plus" announces another item: one content word is enough for it to stand
    assert split_concerns("add a created_at column to shipments plus the migration for it") == [
        "add a created_at column to shipments",
        "the migration for it",
    ]
    assert split_concerns("switch the labels to pdf btw the customs form gets rejected") == [
        "switch the labels to pdf",
        "the customs form gets rejected",
    ]


def test_inline_lists_brackets_dashes_and_slashes():
    assert split_concerns(
        "todo for the api: 1) keys hashed 2) cursor paging on /shipments 3) no personal data in logs"
    ) == [
        "todo for the api",
        "keys hashed",
        "cursor paging on /shipments",
        "no personal data in logs",
    ]
    assert split_concerns("update the DHL adapter (the sandbox keeps throttling us) - does DHL cap piece weight?") == [
        "update the DHL adapter",
        "the sandbox keeps throttling us",
        "does DHL cap piece weight",
    ]
    assert split_concerns("deadlocks under load / sql built by string formatting") == [
        "deadlocks under load",
        "sql built by string formatting",
    ]
    assert split_concerns("- fix the cache\n- 2. round VAT\n3) sign webhooks") == [
        "fix the cache",
        "round VAT",
        "sign webhooks",
    ]


def test_a_question_implying_a_second_concern_is_its_own_concern():
    # one content word is enough for a sentence ("customs"); a clause needs two
    assert split_concerns("can you get label printing working for Canada? what do they need for customs") == [
        "can you get label printing working for Canada",
        "what do they need for customs",
    ]


def test_small_pieces_go_back_with_the_words_that_separated_them():
    # never "flip the flag rebuilding it": that would ask the opposite
    assert split_concerns("make the image smaller and let me flip the beta flag without rebuilding it") == [
        "make the image smaller",
        "let me flip the beta flag without rebuilding it",
    ]
    assert split_concerns("keep record(s) in git") == []  # a bracket inside a word splits nothing
    assert split_concerns("Thanks! Fix the flaky test") == []  # a sentence with no content word joins the next


def test_content_words_and_the_bound():
    assert content_words("HTTP 429 in 2 s and also 12 x") == ["http", "429"]
    assert len(split_concerns(", also ".join(f"topic number {i}" for i in range(9)))) == MAX_CONCERNS
