"""Record text is data, never presentation (issue 22): rich markup in a title or kind is printed as written by
the real CLI, hidden characters are shown escaped, and the context pack cannot be forged by a body."""

from __future__ import annotations

import json
import os

from helpers import jgm

MARKUP_TITLE = "Use Redis [link=https://evil.example/x]for caching[/link] [/bold] sessions"


def test_rich_markup_in_a_title_or_kind_is_printed_as_written(repo):
    repo.record("dec-redis", title=MARKUP_TITLE, body="We cache user sessions in Redis because it is fast.")
    repo.record("bad-kind", kind='"[/bold]"', title="A record whose kind is markup", body="Some body text here.")
    repo.commit()
    seed = jgm("seed", "--repo", str(repo.path))
    assert seed.returncode == 1, seed.stderr  # the bad kind is an error for its file, not a crash
    assert "Traceback" not in seed.stderr and "MarkupError" not in seed.stderr, seed.stderr
    assert "knowledge/bad-kind.md" in seed.stderr and "unknown kind '[/bold]'" in seed.stderr, seed.stderr
    assert "seeded" in seed.stdout and "1 errors" in seed.stdout
    for env in (dict(os.environ), dict(os.environ, FORCE_COLOR="1", TERM="xterm-256color")):  # piped, then a tty
        p = jgm("recall", "where do we cache user sessions?", "--repo", str(repo.path), env=env)
        assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
        assert MARKUP_TITLE in p.stdout.replace("\x1b[0m", "").replace("\x1b[1m", ""), p.stdout
        assert "\x1b]8;" not in p.stdout, repr(p.stdout)  # no terminal hyperlink


def test_hidden_characters_in_a_record_are_flagged_and_shown_escaped(repo):
    """A bidi override can make a title display as something the file does not say, and a zero-width space
    splits a word where no one sees it: the record is indexed, each field is named with its line, and the
    CLI shows the characters as escapes."""
    repo.record(
        "dec-cache",
        title="Cache sessions in Redis \u202edetpecca\u202c",
        body="Sessions live in Redis.\nWe chose it because the pass\u200bword reset flow needs fast expiry.",
    )
    repo.commit()
    for run in ("first", "again"):  # the second seed reuses the stored parse: the warnings stay
        seed = jgm("seed", "--repo", str(repo.path), "--json")
        assert seed.returncode == 0, seed.stderr
        warned = {(w["path"], w["line"], w["message"].split("`")[1]) for w in json.loads(seed.stdout)["warnings"]}
        assert warned == {("knowledge/dec-cache.md", 5, "title"), ("knowledge/dec-cache.md", 8, "body")}, run
    messages = " ".join(w["message"] for w in json.loads(seed.stdout)["warnings"])
    assert "U+202E (RIGHT-TO-LEFT OVERRIDE)" in messages and "U+200B (ZERO WIDTH SPACE)" in messages
    r = jgm("recall", "where do sessions live, redis?", "--repo", str(repo.path))
    assert r.returncode == 0 and "Cache sessions in Redis \\u202edetpecca\\u202c" in r.stdout, r.stdout
    assert not any(c in r.stdout + r.stderr for c in "\u202e\u202c\u200b"), repr(r.stdout)
