"""How many OpenMP threads embed one question fastest on this machine, learnt from the questions asked. Pure.

Why: the e5 engine gives the same vector on one thread or several, so the count only decides the time, and no
fixed count suits every machine. On the first machine measured (two shared cores, busy neighbours) one thread
won, 15.3 against 16.9 ms per question: each of a question's ~100 tiny parallel regions waited on a sleeping
second thread. On the next (two quiet cores) two threads won, 12 against 21 ms. So the options are tried in
turn on the first questions, the faster one (median milliseconds per token over its recent questions) is
used after that, and the other is tried again now and then, in case the machine's load changed.
"""

from __future__ import annotations

import statistics
import threading
from collections import deque
from collections.abc import Sequence


class ThreadChoice:
    """The thread count for the next question (`pick`), and what each question took (`record`).

    `trials`: questions per option before choosing; `recheck_every`: every so many questions, one goes to an
    option that is not the best, so a change of load is noticed; `window`: recent questions kept per option."""

    def __init__(self, options: Sequence[int], trials: int = 3, recheck_every: int = 50, window: int = 8):
        if not options:
            raise ValueError("ThreadChoice needs at least one thread count")
        self.options = tuple(dict.fromkeys(options))  # order kept: the first wins a tie
        self.trials, self.recheck_every = trials, recheck_every
        self._took: dict[int, deque[float]] = {o: deque(maxlen=window) for o in self.options}
        self._tried = {o: 0 for o in self.options}  # picks handed out, recorded or not yet
        self._asked = 0
        self._lock = threading.Lock()

    def pick(self) -> int:
        with self._lock:
            if len(self.options) == 1:
                return self.options[0]
            untried = [o for o in self.options if self._tried[o] < self.trials]
            if untried:
                use = min(untried, key=lambda o: self._tried[o])
            else:
                self._asked += 1
                best = self._best()
                others = [o for o in self.options if o != best]
                if self._asked % self.recheck_every == 0:
                    use = others[(self._asked // self.recheck_every - 1) % len(others)]
                else:
                    use = best
            self._tried[use] += 1
            return use

    def record(self, option: int, ms: float, tokens: int) -> None:
        """What one question of `tokens` tokens took on `option` threads (per token, so questions compare)."""
        with self._lock:
            if option in self._took:
                self._took[option].append(ms / max(tokens, 1))

    def best(self) -> int:
        with self._lock:
            return self._best()

    def _best(self) -> int:
        timed = [o for o in self.options if self._took[o]]
        if not timed:
            return self.options[0]
        return min(timed, key=lambda o: statistics.median(self._took[o]))

    def summary(self) -> dict[int, float | None]:
        """Median milliseconds per token of each option's recent questions (None: not timed yet)."""
        with self._lock:
            return {o: (round(statistics.median(t), 4) if t else None) for o, t in self._took.items()}
