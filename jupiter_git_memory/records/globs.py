"""Citation globs (`parcelhub/**/*.py`) matched against repository paths in linear time. Pure.

A backtracking regex takes exponential time on a glob with many `**/` (sixteen of them, then `*.zzz`, against
a deep path that does not match): one such citation stalled every seed, `governs` and the prompt hook. Here a
glob is a small automaton whose set of live states advances one path character at a time, so a match costs
at most (path length x glob length) whatever the glob; the state steps are remembered per glob (a lazy DFA),
so the usual globs cost a dictionary look-up per character.

The language is the one citations always had: `*` and `?` stay within one folder, `**/` is any number of whole
folders (`a/**/b.py` matches `a/b.py`), any other `**` is any text (`/` too), `[abc]` and `[!abc]` are sets of
the characters written (no ranges), anything else is literal; the glob covers the whole path.
"""

from __future__ import annotations

import functools
import re
from typing import cast

_LIT, _SEG, _CLS, _STAR, _ANY, _SEGS, _SEGIN = range(7)  # node kinds (see _nodes)
_CACHE = 1 << 14  # remembered steps per glob: bounded, a long-lived server sees many paths


def _nodes(pattern: str) -> list[tuple[int, object]]:
    """The glob as automaton nodes, read exactly as citations always read it (left to right, `**/` first).

    A node is where the automaton waits for the next character: _LIT one character, _SEG one that is not `/`,
    _CLS one of (or none of) a set, _STAR and _ANY any run of non-`/` (resp. non-newline) characters, and a
    `**/` two nodes: _SEGS at a folder boundary (may be skipped) and _SEGIN inside a folder name."""
    out: list[tuple[int, object]] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if pattern.startswith("**/", i):
            if not (out and out[-1][0] == _SEGIN):  # `**/**/` means `**/`: one pair of nodes
                out += [(_SEGS, None), (_SEGIN, None)]
            i += 3
        elif pattern.startswith("**", i):
            if not (out and out[-1][0] == _ANY):
                out.append((_ANY, None))
            i += 2
        elif c == "*":
            if not (out and out[-1][0] == _STAR):
                out.append((_STAR, None))
            i += 1
        elif c == "?":
            out.append((_SEG, None))
            i += 1
        elif c == "[" and "]" in pattern[i + 2 :]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1 : end]
            neg = body.startswith("!") and len(body) > 1  # `[!]` is the character `!`
            out.append((_CLS, (frozenset(body[1:] if neg else body), neg)))
            i = end + 1
        else:
            out.append((_LIT, c))
            i += 1
    return out


class Glob:
    """One compiled citation glob; `match(path)` says whether it covers the whole of `path`."""

    def __init__(self, pattern: str):
        self.pattern = pattern
        self._nodes = _nodes(pattern)
        bits = {k: 0 for k in range(7)}
        for j, (kind, _) in enumerate(self._nodes):
            bits[kind] |= 1 << j
        self._shift = bits[_LIT] | bits[_SEG] | bits[_CLS] | bits[_SEGS]  # consume, go to the next node
        self._loop = bits[_STAR] | bits[_ANY] | bits[_SEGIN]  # consume, stay
        self._segin = bits[_SEGIN]  # `/` ends the folder name: back to its boundary node
        self._eps1 = bits[_STAR] | bits[_ANY]  # may match nothing: the next node is live too
        self._eps2 = bits[_SEGS]  # no more folders: the node after its _SEGIN is live too
        self._accept = 1 << len(self._nodes)
        self._start = self._close(1)
        self._masks: dict[str, int] = {}
        self._steps: dict[tuple[int, str], int] = {}
        self._rx = _safe_regex(self._nodes)
        # the rest of any path matches once the last node, a trailing `**`, is live (newlines aside)
        self._tail = 1 << (len(self._nodes) - 1) if self._nodes and self._nodes[-1][0] == _ANY else 0
        self._runs, self._slashes = _literals(self._nodes)
        self._inner = [run for run in self._runs[1:-1] if run]
        last = self._nodes[-1] if self._nodes else (_ANY, None)
        self._ends = cast("tuple[frozenset[str], bool]", last[1]) if last[0] == _CLS else None  # `…[pz]`

    def match(self, path: str) -> bool:
        return bool(self._rx.match(path)) if self._rx is not None else self._possible(path) and self.run(path)

    def _possible(self, path: str) -> bool:
        """Necessary conditions checked in C before the automaton runs: the glob's literal runs occur in the
        path in order (the first as its start, the last as its end when the glob starts or ends with one), a
        glob ending in a class ends in one of its characters, and a glob without `**` or a class that takes `/`
        names exactly as many folders as the path. Most paths a costly glob does not match stop here."""
        first, last, pos = self._runs[0], self._runs[-1], 0
        if first and not path.startswith(first) or last and not path.endswith(last):
            return False
        if self._ends is not None and (not path or (path[-1] in self._ends[0]) == self._ends[1]):
            return False
        for run in self._inner:
            pos = path.find(run, pos)
            if pos < 0:
                return False
            pos += len(run)
        return self._slashes < 0 or path.count("/") == self._slashes

    def _close(self, s: int) -> int:
        while True:
            t = s | ((s & self._eps1) << 1) | ((s & self._eps2) << 2)
            if t == s:
                return s
            s = t

    def _mask(self, ch: str) -> int:
        """The nodes that accept `ch`."""
        m = self._masks.get(ch)
        if m is None:
            m = 0
            for j, (kind, arg) in enumerate(self._nodes):
                if kind == _LIT:
                    ok = ch == arg
                elif kind == _CLS:
                    chars, neg = cast("tuple[frozenset[str], bool]", arg)
                    ok = (ch in chars) != neg
                elif kind == _ANY:
                    ok = ch != "\n"
                else:
                    ok = ch != "/"
                m |= ok << j
            if len(self._masks) < _CACHE:
                self._masks[ch] = m
        return m

    def _step(self, s: int, ch: str) -> int:
        m = s & self._mask(ch)
        t = ((m & self._shift) << 1) | (m & self._loop)
        if ch == "/":
            t |= (s & self._segin) >> 1
        return self._close(t)

    def run(self, path: str) -> bool:
        """The automaton's answer (linear whatever the glob)."""
        s, steps, tail = self._start, self._steps, self._tail
        if tail and "\n" not in path:  # once a trailing `**` is live, the rest matches
            tail_live = True
        else:
            tail, tail_live = 0, False
        for ch in path:
            nxt = steps.get((s, ch))
            if nxt is None:
                nxt = self._step(s, ch)
                if len(steps) >= _CACHE:
                    steps.clear()
                steps[(s, ch)] = nxt
            s = nxt
            if not s:
                return False
            if tail_live and s & tail:
                return True
        return bool(s & self._accept)


def _literals(nodes: list[tuple[int, object]]) -> tuple[list[str], int]:
    """The glob's runs of literal characters between wildcards (the first and last empty unless the glob starts
    or ends with a literal), and how many `/` a matching path holds (-1: any number, the glob has `**` or a
    class that may take `/`)."""
    runs, cur = [], ""
    for kind, arg in nodes:
        if kind == _LIT:
            cur += cast(str, arg)
        else:
            runs.append(cur)
            cur = ""
    runs.append(cur)
    if len(runs) == 1:  # no wildcard at all: the path is the literal
        runs = [runs[0], "", runs[0]] if runs[0] else ["", ""]
    free = any(k in (_ANY, _SEGS, _SEGIN) for k, _ in nodes) or any(
        k == _CLS and (("/" in cast("tuple[frozenset[str], bool]", a)[0]) != cast("tuple[frozenset[str], bool]", a)[1])
        for k, a in nodes
    )
    return runs, -1 if free else sum(1 for k, a in nodes if k == _LIT and a == "/")


_REGEX = {_LIT: "", _SEG: "[^/]", _STAR: "[^/]*", _ANY: ".*", _SEGS: "(?:[^/]+/)*", _SEGIN: ""}


def _safe_regex(nodes: list[tuple[int, object]]) -> re.Pattern[str] | None:
    """The same glob as a regex when that cannot backtrack beyond (path x glob): one `**/`, `**` or `*`, or a
    `**/` then a `*` (the usual `src/**/*.py`; C is faster than stepping in Python). A `*` before a `**/`
    could retry every folder count at every split of its folder name: quadratic, so the automaton."""
    kinds = [k for k, _ in nodes if k in (_STAR, _ANY, _SEGS)]
    if len(kinds) > 2 or (len(kinds) == 2 and kinds != [_SEGS, _STAR]):
        return None
    out = []
    for kind, arg in nodes:
        if kind == _LIT:
            out.append(re.escape(cast(str, arg)))
        elif kind == _CLS:
            chars, neg = cast("tuple[frozenset[str], bool]", arg)
            out.append("[" + ("^" if neg else "") + "".join(re.escape(c) for c in sorted(chars)) + "]")
        else:
            out.append(_REGEX[kind])
    return re.compile("".join(out) + r"\Z")


@functools.lru_cache(maxsize=4096)
def compile_glob(pattern: str) -> Glob:
    """`pattern` compiled once (every seed asks every cited glob of every path under its literal prefix)."""
    return Glob(pattern)


def glob_match(pattern: str, path: str) -> bool:
    """Whether citation glob `pattern` covers the whole of repository path `path`."""
    return compile_glob(pattern).match(path)
