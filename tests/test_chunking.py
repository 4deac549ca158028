"""Chunking within the token budget, title on every chunk, headings respected."""

from jupiter_git_memory.chunking.chunker import chunk_record


def words(text: str) -> int:
    return len(text.split())


def test_short_record_is_one_chunk_with_title():
    (c,) = chunk_record("Title", "Short body.", 100, words)
    assert c.text == "Title\n\nShort body." and c.body == "Short body."


def test_long_record_split_by_heading_and_paragraph_within_budget():
    body = "## Context\n\n" + " ".join(["alpha"] * 40) + "\n\n" + " ".join(["beta"] * 40) + \
           "\n\n## Decision\n\n" + " ".join(["gamma"] * 30)
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
