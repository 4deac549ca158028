"""The files of a view as a sorted list that answers which of them a citation covers. Pure."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator

from .citations import classify
from .globs import compile_glob


class PathSet:
    """A sorted path list answering "which paths does this citation cover" (a glob only scans the paths
    under its literal prefix: every seed asks it of every cited glob, over every file of the view)."""

    def __init__(self, paths: Iterable[str]):
        self.sorted = sorted(set(paths))
        self._set = set(self.sorted)

    def _under(self, prefix: str) -> Iterator[str]:
        i = bisect.bisect_left(self.sorted, prefix)
        while i < len(self.sorted) and self.sorted[i].startswith(prefix):
            yield self.sorted[i]
            i += 1

    def _iter(self, ref: str) -> Iterator[str]:
        if classify(ref) == "glob":
            glob = compile_glob(ref)
            yield from (p for p in self._under(_LITERAL.split(ref, 1)[0]) if glob.match(p))
            return
        base = ref.rstrip("/")
        if base in self._set and not ref.endswith("/"):
            yield base
        yield from self._under(base + "/")

    def has(self, path: str) -> bool:
        return path in self._set

    def covered(self, ref: str) -> list[str]:
        return list(self._iter(ref))

    def names_any(self, ref: str) -> bool:
        """Whether the citation covers any path (a missing one covers none)."""
        return next(self._iter(ref), None) is not None


_LITERAL = re.compile(r"[*?\[]")  # a glob's first wildcard: what comes before it is every match's prefix
