"""The pure parts of the review page: the word diff of a candidate against a near-duplicate, its warnings
grouped and capped, and how a warning names a candidate."""

from __future__ import annotations

import pytest

from jupiter_git_memory.candidates.dedup import Match, classify, describe
from jupiter_git_memory.candidates.warngroups import grouped
from jupiter_git_memory.candidates.worddiff import ADDED, REMOVED, SAME, word_diff
from jupiter_git_memory.records.row import RecordRow

pytestmark = pytest.mark.unit


def _changed(pieces, change):
    return [p.text for p in pieces if p.change == change]


def test_word_diff_marks_the_differing_numbers_and_keeps_the_rest_equal():
    d = word_diff(
        "The export handled 1,860 requests per minute on 41 workers.",
        "the export handled 2,470 requests per minute on 63 workers.",
    )
    assert _changed(d.left, REMOVED) == ["1,860", "41"]
    assert _changed(d.right, ADDED) == ["2,470", "63"]
    assert all(p.number and p.marked for p in d.left if p.change != SAME)
    assert d.changed_numbers == (["1,860", "41"], ["2,470", "63"])
    assert "".join(p.space + p.text for p in d.left) == "The export handled 1,860 requests per minute on 41 workers."


def test_word_diff_marks_a_negation_and_not_an_ordinary_changed_word():
    d = word_diff("We do not cache sessions in Redis.", "We cache user sessions in Redis.")
    assert _changed(d.left, REMOVED) == ["do", "not"]
    assert [p.text for p in d.left if p.marked] == ["not"]  # "do" changed too, but it decides nothing
    assert _changed(d.right, ADDED) == ["user"] and not any(p.marked for p in d.right)
    assert d.changed_negations == (["not"], [])


def test_word_diff_of_equal_texts_changes_nothing_and_ignores_case_and_spacing():
    d = word_diff("Tokens expire after 24 hours.", "tokens   expire after 24\nhours.")
    assert all(p.change == SAME for p in d.left + d.right)


def test_word_diff_keeps_markup_as_words_for_the_template_to_escape():
    d = word_diff("a <script>x</script> b", "a b")
    assert "".join(p.text for p in d.left if p.change == REMOVED) == "<script>x</script>"


def test_word_diff_of_long_texts_compares_the_first_words_and_says_so():
    a, b = "word " * 50 + "41", "word " * 50 + "63"
    short = word_diff(a, b, max_words=10)
    assert short.truncated and len(short.left) == 10 and all(p.change == SAME for p in short.left)
    full = word_diff(a, b)
    assert not full.truncated and full.changed_numbers == (["41"], ["63"])


def test_warnings_are_grouped_strongest_first_and_capped():
    ws = [
        "similar to accepted decision dec-a (Title, cos 0.71)",
        "similar to accepted decision dec-b (Title, cos 0.93) but the numbers differ: check it",
        "the body is short",
        "similar to accepted decision dec-c (Title, cos 0.70)",
        "similar to accepted decision dec-d (Title, cos 0.74)",
        "similar to accepted decision dec-e (Title, cos 0.72)",
        "near-duplicate of deprecated decision dec-f (Title, cos 0.88)",
    ]
    groups = grouped(ws)
    assert [g.title for g in groups] == ["checks", "similar records", "near-duplicates"]  # 0.93 beats 0.88
    sim = groups[1]
    assert [w.split()[4] for w in sim.shown] == ["dec-b", "dec-d", "dec-e"] and sim.more == 2
    assert groups[0].shown == ["the body is short"] and groups[2].more == 0
    assert grouped([]) == []


def _row(rid, origin, effective, **data):
    return RecordRow(rid, None, "decision", "candidate", effective, "Use Redis", "h", None, False, origin, data)


def test_a_promoted_candidate_is_named_promoted_in_warnings_not_superseded():
    row = _row("cand-1", "candidate", "superseded", state="promoted", promoted_to="dec-redis", body="Use Redis.")
    assert describe(row) == "promoted candidate decision cand-1 (now dec-redis)"
    out = classify([Match("cand-1", 0.75, row)], "Use Redis\n\nUse Redis for caching.")
    assert out.warnings and "promoted candidate decision cand-1" in out.warnings[0]
    assert "superseded" not in out.warnings[0]
    assert describe(_row("dec-x", "file", "accepted")) == "accepted decision dec-x"
