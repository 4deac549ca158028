"""Chunking within the token budget, title on every chunk, headings respected."""

import pytest

from jupiter_git_memory.chunking.chunker import Chunk, chunk_record

pytestmark = pytest.mark.unit


def words(text: str) -> int:
    return len(text.split())


def test_short_record_is_one_chunk_with_title():
    (c,) = chunk_record("Title", "Short body.", 100, words)
    assert c.text == "Title\n\nShort body." and c.body == "Short body."


def test_long_record_split_by_heading_and_paragraph_within_budget():
    body = (
        "## Context\n\n"
        + " ".join(["alpha"] * 40)
        + "\n\n"
        + " ".join(["beta"] * 40)
        + "\n\n## Decision\n\n"
        + " ".join(["gamma"] * 30)
    )
    chunks = chunk_record("My title", body, 60, words)
    assert len(chunks) >= 3
    assert all(words(c.text) <= 60 for c in chunks)
    assert all(c.text.startswith("My title") for c in chunks)
    assert any("Decision" in c.text.splitlines()[1] and "gamma" in c.body for c in chunks)
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))


def test_oversized_paragraph_split_by_sentences():
    body = " ".join(f"Sentence number {i} is here." for i in range(60))
    chunks = chunk_record("T", body, 40, words)
    assert len(chunks) > 1 and all(words(c.text) <= 40 for c in chunks)
    assert "Sentence number 0 is here." in chunks[0].body


def test_code_fence_kept_whole():
    body = "Intro " * 30 + "\n\n```\n# not a heading\ncode line\n```\n\n" + "Outro " * 30
    chunks = chunk_record("T", body, 40, words)
    assert any("# not a heading\ncode line" in c.body for c in chunks)


def test_hash_depends_on_text():
    a = chunk_record("T", "same", 50, words)[0]
    b = chunk_record("T", "same", 50, words)[0]
    c = chunk_record("T2", "same", 50, words)[0]
    assert a.hash == b.hash != c.hash


# --- rules the mutation bench showed no test stated (issue 17) ---


def test_a_record_that_fits_exactly_is_one_chunk():
    body = " ".join(["w"] * 29)
    (c,) = chunk_record("Title", body, 30, words)  # title + 29 words = exactly the budget
    assert c.ordinal == 0 and c.body == body
    assert len(chunk_record("Title", body + " w", 30, words)) > 1


def test_sentences_fill_each_chunk_up_to_the_budget_and_lose_nothing():
    body = " ".join(f"Sentence number {i} is here." for i in range(12))  # 5 words each
    chunks = chunk_record("T", body, 23, words)  # budget 23 - 1 (title) - 2 = 20 words = 4 sentences
    assert [words(c.body) for c in chunks] == [20, 20, 20]
    assert " ".join(c.body for c in chunks) == body and all(c.text == f"T\n\n{c.body}" for c in chunks)


def test_a_paragraph_without_sentences_is_split_by_words():
    body = " ".join(f"w{i}" for i in range(50))
    chunks = chunk_record("T", body, 23, words)
    assert [words(c.body) for c in chunks] == [20, 20, 10]
    assert " ".join(c.body for c in chunks) == body


def test_paragraphs_are_packed_until_the_next_would_overflow():
    paras = [" ".join([f"p{i}"] * 10) for i in range(4)]  # 10 words each; two fill the 20-word budget exactly
    chunks = chunk_record("T", "\n\n".join(paras), 23, words)
    assert [c.body for c in chunks] == ["\n\n".join(paras[0:2]), "\n\n".join(paras[2:4])]


def test_the_budget_counts_the_separators_between_paragraphs():
    paras = ["a" * 40, "b" * 40, "c" * 40]  # with len() as the counter: 40 + 2 + 40 = 82 = the budget
    chunks = chunk_record("T", "\n\n".join(paras), 87, len)  # budget 87 - 1 (title) - 2 - 2 = 82
    assert [c.body for c in chunks] == ["\n\n".join(paras[:2]), paras[2]]


def test_a_paragraph_that_fits_is_kept_verbatim():
    para = " ".join(["a"] * 10) + "\n" + " ".join(["b"] * 10)  # exactly the 20-word budget, two lines
    chunks = chunk_record("T", para + "\n\n" + " ".join(["c"] * 10), 23, words)
    assert chunks[0].body == para


def test_headings_prefix_their_chunks_but_the_title_is_not_repeated():
    body = "# T\n\n" + " ".join(["a"] * 15) + "\n\n## Why\n\n" + " ".join(["b"] * 15) + "\n\n## Empty\n"
    chunks = chunk_record("T", body, 30, words)
    assert [c.text.split("\n\n")[0] for c in chunks] == ["T", "T\nWhy", "T\nEmpty"]
    assert chunks[-1].body == "Empty"  # a heading alone is still findable


def test_the_budget_never_drops_below_sixteen_words():
    body = " ".join(f"w{i}" for i in range(40))
    chunks = chunk_record("A long title of many words", body, 10, words)
    assert [words(c.body) for c in chunks] == [16, 16, 8]


def test_an_empty_body_is_the_title_alone():
    assert chunk_record("  Title  ", "", 0, words) == [Chunk(0, "Title", "")]
