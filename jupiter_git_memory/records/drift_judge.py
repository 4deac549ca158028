"""Whether each citation of a record drifted, at the granularity it was written (docs/drift.md). Pure: the
texts come from a `Texts` reader handed in (git/drift.GitTexts reads them, batched and cached).

Per repository citation (records/citations.parse), given the cited files changed since the record's
baseline (commits, and uncommitted edits in a worktree view):
- a file, folder or glob drifts when the significant lines its changed files lost or gained reach the size
  rule (records/regions.file_drifted), summed over the files it covers;
- a line, range or symbol drifts only when its own text changed: it is located at the baseline and
  followed to now (a range through the diff, a symbol by name); when it left its file, it is searched for
  in the view (`Texts.search`) and, found with the same text, it `moved` (not drifted; `at` says where);
- it is `missing` when what it names existed at the baseline and is gone (a file, folder or glob matching
  nothing, a symbol found nowhere);
- a path that names nothing now and nothing at the baseline is no drift: `external` when it is not a
  repository path (records/citations.external_path), else `unresolved`, which `jgm check` reports.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from . import regions
from .citations import REGION_KINDS, Citation, external_path, parse
from .pathset import PathSet


class Texts(Protocol):
    """What judging reads: a file's text at a commit (`rev`) or in the view (`rev` None), the paths of a
    commit, whether the repository ever had a top-level entry, and the view's files holding a text."""

    def prefetch(self, specs: Iterable[tuple[str | None, str]]) -> None: ...

    def text(self, rev: str | None, path: str) -> str | None: ...

    def paths_at(self, rev: str) -> list[str]: ...

    def ever_had(self, top: str) -> bool: ...

    def search(self, needle: str, symbol: bool) -> list[str]: ...


@dataclass
class Verdict:
    ref: str
    kind: str
    state: str  # fresh | drifted | moved | missing | external | unresolved
    at: str | None = None  # where the region is now, when it moved or shifted
    lines: int | None = None  # significant lines changed (whole files)

    def public(self) -> dict[str, Any]:
        d: dict[str, Any] = {"ref": self.ref, "kind": self.kind, "state": self.state}
        if self.at:
            d["at"] = self.at
        if self.lines is not None:
            d["lines"] = self.lines
        return d


def needs(
    cites: list[Citation], covered: dict[str, list[str]], changed: set[str], base: str | None
) -> set[tuple[str | None, str]]:
    """The (rev, path) texts judging these citations reads, to fetch in one batch."""
    out: set[tuple[str | None, str]] = set()
    if base is None:
        return out
    for c in cites:
        for f in covered.get(c.ref, []):
            if f in changed:
                out.update({(base, f), (None, f)})
    return out


def judge(
    cites: list[Citation],
    covered: dict[str, list[str]],
    changed: set[str],
    gone: set[str],
    base: str | None,
    texts: Texts,
) -> list[Verdict]:
    """The verdict of each repository citation. `covered`: ref -> the view's files it names; `changed`: the
    cited files changed since the baseline (committed or not); `gone`: those among them deleted since;
    `base`: the baseline commit (None: the record is being edited or was never committed, so now is its
    baseline and nothing drifted)."""
    out = []
    for c in cites:
        names = covered.get(c.ref, [])
        if not names and not (c.kind in REGION_KINDS and base is not None and c.path in gone):
            out.append(_absent(c, base, texts))
        elif c.kind in REGION_KINDS:
            out.append(
                _region(c, base, texts) if base is not None and c.path in changed else Verdict(c.ref, c.kind, "fresh")
            )
        else:
            out.append(_whole(c, [f for f in names if f in changed] + _gone_under(c, gone), base, texts))
    return out


def _gone_under(c: Citation, gone: set[str]) -> list[str]:
    """Files the citation covered at the baseline that are deleted now (a folder losing a file)."""
    return PathSet(gone).covered(c.path or "") if c.kind != "file" else []


def _whole(c: Citation, touched: list[str], base: str | None, texts: Texts) -> Verdict:
    if base is None or not touched:
        return Verdict(c.ref, c.kind, "fresh")
    size = total = 0
    for f in sorted(set(touched)):
        n, b = regions.change_size(texts.text(base, f), texts.text(None, f), f)
        size, total = size + n, total + b
    return Verdict(c.ref, c.kind, "drifted" if regions.file_drifted(size, total) else "fresh", lines=size)


def _absent(c: Citation, base: str | None, texts: Texts) -> Verdict:
    """A citation naming nothing in the view: missing when it named something at the baseline."""
    assert c.path is not None
    if base is not None and PathSet(texts.paths_at(base)).names_any(c.path):
        return Verdict(c.ref, c.kind, "missing")
    top = c.path.split("/", 1)[0] if "/" in c.path.rstrip("/") else ""
    if external_path(c.path, top == "" or texts.ever_had(top)):
        return Verdict(c.ref, "external", "external")
    return Verdict(c.ref, c.kind, "unresolved")


def _region(c: Citation, base: str, texts: Texts) -> Verdict:
    """A line, range or symbol of a file changed since the baseline: did its own text change?"""
    assert c.path is not None
    old, new = texts.text(base, c.path), texts.text(None, c.path)
    if old is None:  # the file came after the baseline: nothing to compare with
        return Verdict(c.ref, c.kind, "fresh")
    if c.symbol is not None:
        span = regions.symbol_span(old, c.path, c.symbol)
        if span is None:
            return Verdict(c.ref, c.kind, "unresolved")
        block = regions.region(old, *span)
        now = regions.symbol_span(new, c.path, c.symbol) if new is not None else None
        if now is not None:
            same = regions.region(new or "", *now) == block
            return Verdict(c.ref, c.kind, "fresh" if same else "drifted", at=_at(c, c.path, now, span))
        return _moved(c, block, texts, symbol=c.symbol)
    assert c.start is not None and c.end is not None
    block = regions.region(old, c.start, c.end)
    if new is not None:
        changed, a, b = regions.follow_range(old, new, c.start, c.end)
        if not changed:
            return Verdict(c.ref, c.kind, "fresh", at=_at(c, c.path, (a, b), (c.start, c.end)))
        if (here := regions.find_block(new, block)) is not None:
            return Verdict(c.ref, c.kind, "moved", at=f"{c.path}:{here[0]}-{here[1]}")
    moved = _moved(c, block, texts, symbol=None)
    return moved if moved.state == "moved" else Verdict(c.ref, c.kind, "drifted" if new is not None else "missing")


def _moved(c: Citation, block: tuple[str, ...], texts: Texts, symbol: str | None) -> Verdict:
    """Where a region that left its file went: the view's files declaring the symbol (or holding the
    block's first line), checked for the same text. Found changed: drifted; found nowhere: missing."""
    needle = symbol.rsplit(".", 1)[-1] if symbol else (block[0] if block else "")
    found_changed = None
    for p in texts.search(needle, symbol is not None) if needle else []:
        if p == c.path:
            continue
        text = texts.text(None, p)
        if text is None:
            continue
        if symbol is not None:
            span = regions.symbol_span(text, p, symbol) or regions.symbol_span(text, p, needle)
            if span is None:
                continue
            if regions.region(text, *span) == block:
                return Verdict(c.ref, c.kind, "moved", at=f"{p}::{symbol}")
            found_changed = found_changed or f"{p}::{symbol}"
        elif (here := regions.find_block(text, block)) is not None:
            return Verdict(c.ref, c.kind, "moved", at=f"{p}:{here[0]}-{here[1]}")
    if found_changed:
        return Verdict(c.ref, c.kind, "drifted", at=found_changed)
    return Verdict(c.ref, c.kind, "missing")


def _at(c: Citation, path: str, now: tuple[int, int], was: tuple[int, int]) -> str | None:
    """`path:a-b` when the region sits elsewhere than at the baseline (a shift), else None."""
    return None if now == was else f"{path}:{now[0]}-{now[1]}"


def parsed(refs: Iterable[str]) -> tuple[list[Citation], list[str]]:
    """(repository citations, external evidence as written) of a record's citations."""
    repo: list[Citation] = []
    external: list[str] = []
    for r in refs:
        c = parse(r)
        if c.external:
            external.append(c.ref)
        elif c.path and not any(x.path == c.path and x.ref == c.ref for x in repo):
            repo.append(c)
    return repo, external
