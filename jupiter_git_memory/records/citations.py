"""Citations: what a record cites as its evidence (`source:` and `evidence:`), as data. Pure.

The grammar (docs/drift.md#what-a-citation-can-name), each read by `parse`:
- a repository path: a file (`src/a.py`), a folder (`src/billing/`), a glob (`src/**/*.py`);
- a region of a file: a line `src/a.py:22` (or `:22:5`), a range `src/a.py:10-40` or `src/a.py#L10-L40`
  (`#L22` a line), a symbol `src/a.py::total`, `src/a.py::Invoice.total`, or a pytest id
  `tests/test_a.py::TestX::test_y[param]` (the symbol `TestX.test_y`; the parameters are dropped);
- evidence that is no repository path, `external`: a URL, a commit (`commit 4f2a9c1` or a bare sha), a
  ticket (`#123`, `PAY-42`, `owner/repo#7`), prose (anything with a space), and a path outside the
  repository (absolute, `~/…`, `../…`, `C:\\…`). A relative path whose first folder the repository has
  never had (`reports/load-test.html`) is external too, but only git knows that (git/drift.py).
Task recall matches the files an agent is about to touch against the path-like ones, so a record that names
the file (or a region of it, a folder above it, or a glob that covers it) governs that file.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .globs import glob_match

CITATION_KEYS = ("source", "evidence")
CITATION_TYPES = ("url", "commit", "ticket", "text", "external", "glob", "folder", "file", "line", "range", "symbol")
PATH_KINDS = ("file", "folder", "glob")  # whole paths
REGION_KINDS = ("line", "range", "symbol")  # a region of one file
EXTERNAL_KINDS = ("url", "commit", "ticket", "text", "external")  # evidence no repository path names
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://\S+$", re.IGNORECASE)
_COMMIT = re.compile(r"^(?:commit\s+)?([0-9a-f]{7,40})$", re.IGNORECASE)
_TICKET = re.compile(r"^(?:[\w.-]+/[\w.-]+)?#\d+$|^[A-Z][A-Z0-9]+-\d+$")
_OUTSIDE = re.compile(r"^(?:/|~|\.\./|[A-Za-z]:[\\/]|\\\\|file:)")
_RANGE = re.compile(r"^(?P<path>.+?)(?::(?P<a>\d+)(?:-(?P<b>\d+)|:\d+)?|#L(?P<c>\d+)(?:-L?(?P<d>\d+))?)$")
_SYMBOL = re.compile(r"^(?P<path>[^:]+?)::(?P<name>.+)$")
_NAME = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$")
# a glob: `*`, `?`, or a `[…]` set closed inside one folder name; a `[` whose `]` comes after a `/` is part of a
# file name (`notes[draft/2].md`, a name holding a bracketed line), so that citation names one file
_GLOB = re.compile(r"[*?]|\[[^/][^/]*?\]")
# a path in prose: at least one `/` or a file extension, made of path characters
_BODY_PATH = re.compile(r"(?<![\w/.:-])((?:\.?[\w.-]+/)+[\w.*-]*|[\w-]+(?:/[\w.-]+)*\.[A-Za-z][\w]{0,7})(?![\w/])")
_EXT_ONLY = re.compile(r"^[\w-]+\.[A-Za-z]\w{0,7}$")


@dataclass(frozen=True)
class Citation:
    """One citation read by the grammar: its kind (CITATION_TYPES), the repository path it names (None for
    external evidence), and the region: lines `start`-`end` (1-based, inclusive) or a dotted `symbol`."""

    ref: str
    kind: str
    path: str | None = None
    start: int | None = None
    end: int | None = None
    symbol: str | None = None

    @property
    def external(self) -> bool:
        return self.kind in EXTERNAL_KINDS


@functools.lru_cache(maxsize=1 << 16)
def parse(ref: str) -> Citation:
    """What citation `ref` names (pure; every seed asks it of every citation, so it is cached)."""
    ref = ref.strip().strip("`")
    if _URL.match(ref):
        return Citation(ref, "url")
    if _COMMIT.match(ref) and not ref.isdigit():
        return Citation(ref, "commit")
    if _TICKET.match(ref):
        return Citation(ref, "ticket")
    if " " in ref or not ref or ref.lower().startswith("www."):
        return Citation(ref, "text")
    if _OUTSIDE.match(ref) or normalize_path(ref).startswith("../"):
        return Citation(ref, "external")
    if (m := _SYMBOL.match(ref)) and _path_like(m["path"]):
        name = ".".join(p for p in re.sub(r"\[.*\]$", "", m["name"]).split("::") if p)
        if _NAME.match(name):
            return Citation(ref, "symbol", normalize_path(m["path"]), symbol=name)
    if (m := _RANGE.match(ref)) and _path_like(m["path"]) and not _GLOB.search(m["path"]):
        a, b = int(m["a"] or m["c"]), int(m["b"] or m["d"] or m["a"] or m["c"])
        if 0 < a <= b:
            return Citation(ref, "line" if a == b else "range", normalize_path(m["path"]), a, b)
    if _GLOB.search(ref):
        return Citation(ref, "glob", normalize_path(ref))
    if ref.endswith("/"):
        return Citation(ref, "folder", normalize_path(ref))
    if _path_like(ref):
        return Citation(ref, "file", normalize_path(ref))
    return Citation(ref, "text")


def external_path(path: str, top_known: bool) -> bool:
    """Whether a relative path that names nothing, now or at the record's baseline, is evidence outside the
    repository (a report, an artifact) rather than a repository path that never existed: it is when its
    first folder is one the repository has never had (`top_known` false: not in the view, not in its
    history). A path in a folder the repository has (`src/shop/payments.py` beside `src/`), or a bare file
    name at its root, is a citation `jgm check` reports."""
    return bool(path) and not top_known


def _path_like(p: str) -> bool:
    return ("/" in p or bool(_EXT_ONLY.match(p))) and ":" not in p


def as_citations(value: Any) -> tuple[list[str], str | None]:
    """A `source:` or `evidence:` value as a list of citations, or the problem with it.

    A string is one citation; a list holds strings (numbers are kept as text). A mapping, or a list holding
    one, is refused: nothing could say which part is the citation."""
    if value is None:
        return [], None
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        text = str(value).strip()
        return ([text] if text else []), None
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in value):
        return [str(v).strip() for v in value if str(v).strip()], None
    return [], "must be a citation or a list of them (paths, folders, globs, URLs, commits)"


def classify(ref: str) -> str:
    """Which kind of citation `ref` is (one of CITATION_TYPES)."""
    return parse(ref).kind


def normalize_path(path: str) -> str:
    """A repository-relative POSIX path: `./a//b` and `a\\b` are `a/b`; a trailing `/` is kept."""
    p = path.strip().replace("\\", "/")
    trail = p.endswith("/")
    parts = [s for s in p.split("/") if s not in ("", ".")]
    out = "/".join(parts)
    return out + "/" if trail and out else out


def governs(ref: str, file: str) -> str | None:
    """How citation `ref` covers repository file `file` (`exact`, `folder` or `glob`), or None."""
    c = parse(ref)
    file = normalize_path(file)
    if c.kind == "text" and ref.strip() and " " not in ref.strip():  # a bare name: `Dockerfile`, `Makefile`
        return "exact" if normalize_path(ref) == file else None
    if not file or c.path is None:
        return None
    ref = c.path
    if c.kind == "glob":
        return "glob" if glob_match(ref, file) else None
    if ref.rstrip("/") == file:
        return "exact"
    return "folder" if file.startswith(ref.rstrip("/") + "/") else None


def body_paths(body: str) -> list[str]:
    """Repository paths a record's body names in prose (`parcelhub/api/routes.py`, `` `src/` ``), in order."""
    out: list[str] = []
    for m in _BODY_PATH.finditer(body):
        p = m.group(1).rstrip(".")
        if ("/" in p or _EXT_ONLY.match(p)) and not p.lower().startswith(("http", "www.")) and p not in out:
            out.append(p)
    return out


def dedupe(refs: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(r for r in refs if r))


def _legacy_list(text: str) -> list[str] | None:
    """A `source:` list that an older parse stored as its Python text (`"['a', 'b']"`)."""
    import ast

    if not (text.startswith("[") and text.endswith("]")):
        return None
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None
    got, problem = as_citations(value) if isinstance(value, list) else ([], "not a list")
    return None if problem else got


def citations_of(data: dict[str, Any]) -> list[str]:
    """A stored record version's citations (its parsed data, as the catalog keeps it per content hash).

    Versions parsed before citations were data carry only `source` (and `evidence` among the other keys):
    those are read the same way, so an index seeded by an older jgm answers alike until it is reseeded. A
    record never cites its own file: an ADR adapter keeps the file as the record's `source`, which is where
    the record is written, not evidence for it."""
    stored = data.get("citations")
    if isinstance(stored, list) and stored:
        return _not_own(data, [str(c) for c in stored])
    source = data.get("source")
    got: list[str] = []
    if isinstance(source, str):
        got = _legacy_list(source.strip()) or as_citations(source)[0]
    elif source is not None:
        got = as_citations(source)[0]
    meta = data.get("metadata")
    more, problem = as_citations(meta.get("evidence") if isinstance(meta, dict) else None)
    got += [] if problem else more
    for entry in data.get("evidence") or [] if isinstance(data.get("evidence"), list) else []:
        if isinstance(entry, dict):  # a candidate's observations: each with its source and evidence
            for value in (entry.get("source"), entry.get("evidence")):
                more, problem = as_citations(value)
                got += [] if problem else more
    return _not_own(data, dedupe(got))


def _not_own(data: dict[str, Any], refs: list[str]) -> list[str]:
    own = data.get("path")
    return [c for c in refs if not (own and parse(c).kind == "file" and parse(c).path == own)]
