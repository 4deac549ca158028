"""The thread count for one question (embedding/thread_choice.py): pure, no engine."""

from __future__ import annotations

import pytest

from jupiter_git_memory.embedding.thread_choice import ThreadChoice

pytestmark = pytest.mark.unit


def _run(choice: ThreadChoice, ms_per_token: dict[int, float], n: int, tokens: int = 10) -> list[int]:
    picked = []
    for _ in range(n):
        use = choice.pick()
        choice.record(use, ms_per_token[use] * tokens, tokens)
        picked.append(use)
    return picked


def test_each_option_is_tried_before_one_is_kept():
    choice = ThreadChoice((1, 2), trials=3, recheck_every=1000)
    picked = _run(choice, {1: 2.0, 2: 1.0}, 6)
    assert sorted(picked) == [1, 1, 1, 2, 2, 2] and picked[:2] == [1, 2]  # in turn, the first option first


@pytest.mark.parametrize(("cost", "faster"), [({1: 2.0, 2: 1.0}, 2), ({1: 1.0, 2: 1.6}, 1)])
def test_the_faster_option_is_kept_whichever_it_is(cost, faster):
    choice = ThreadChoice((1, 2), trials=3, recheck_every=1000)
    picked = _run(choice, cost, 30)
    assert picked[6:] == [faster] * 24 and choice.best() == faster


def test_times_compare_per_token_so_long_questions_do_not_count_against_an_option():
    choice = ThreadChoice((1, 2), trials=2, recheck_every=1000)
    for use, ms, tokens in ((1, 40.0, 40), (2, 12.0, 8), (1, 42.0, 40), (2, 13.0, 8)):
        assert choice.pick() == use
        choice.record(use, ms, tokens)
    assert choice.best() == 1  # 1.0-1.05 ms per token against 1.5-1.6, though its questions took longer


def test_the_other_option_is_tried_again_and_a_change_of_load_is_followed():
    choice = ThreadChoice((1, 2), trials=2, recheck_every=5, window=4)
    picked = _run(choice, {1: 1.0, 2: 2.0}, 24)
    assert picked[4:] == [1, 1, 1, 1, 2] * 4  # every fifth question after the trials goes to the other
    picked = _run(choice, {1: 3.0, 2: 2.0}, 40)  # one thread became the slower (a busy neighbour left, say)
    assert picked[:3] == [1, 1, 1] and picked.index(2) == 3  # until its recent median passes the other's
    assert picked[-10:] == [2, 2, 2, 2, 1] * 2 and choice.best() == 2  # now one thread is the one rechecked


def test_one_option_is_always_that_one_and_a_tie_keeps_the_first():
    assert _run(ThreadChoice((4,)), {4: 1.0}, 5) == [4] * 5
    assert _run(ThreadChoice((1, 2), trials=1, recheck_every=1000), {1: 1.0, 2: 1.0}, 6)[2:] == [1] * 4
    assert ThreadChoice((2, 1, 2)).options == (2, 1)
    with pytest.raises(ValueError, match="at least one"):
        ThreadChoice(())


def test_an_untimed_pick_still_counts_as_tried_and_unknown_options_are_ignored():
    choice = ThreadChoice((1, 2), trials=1, recheck_every=1000)
    assert choice.pick() == 1 and choice.pick() == 2  # the first was never recorded (its question failed)
    choice.record(7, 1.0, 1)
    choice.record(2, 5.0, 5)
    assert choice.summary() == {1: None, 2: 1.0} and choice.best() == 2
