"""Citations: what a record cites as its evidence (`source:` and `evidence:`), as data. Pure.

A citation is text as written: a repository path (a file, or a folder written with a trailing `/`), a glob
(`parcelhub/**/*.py`), a URL, a commit (`commit 4f2a9c1`, or a bare hex sha) or free text. Task recall
matches the files an agent is about to touch against the path-like ones, so a record that names the file
(or a folder above it, or a glob that covers it) governs that file whatever its words say.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from .globs import glob_match

CITATION_KEYS = ("source", "evidence")
CITATION_TYPES = ("url", "commit", "glob", "folder", "file", "text")
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://\S+$", re.IGNORECASE)
_COMMIT = re.compile(r"^(?:commit\s+)?([0-9a-f]{7,40})$", re.IGNORECASE)
_GLOB_CHARS = frozenset("*?[")
# a path in prose: at least one `/` or a file extension, made of path characters
_BODY_PATH = re.compile(r"(?<![\w/.:-])((?:\.?[\w.-]+/)+[\w.*-]*|[\w-]+(?:/[\w.-]+)*\.[A-Za-z][\w]{0,7})(?![\w/])")
_EXT_ONLY = re.compile(r"^[\w-]+\.[A-Za-z]\w{0,7}$")


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
    ref = ref.strip()
    if _URL.match(ref):
        return "url"
    if _COMMIT.match(ref) and not ref.isdigit():
        return "commit"
    if " " in ref or not ref:
        return "text"
    if _GLOB_CHARS & set(ref):
        return "glob"
    if ref.endswith("/"):
        return "folder"
    if "/" in ref or _EXT_ONLY.match(ref):
        return "file"
    return "text"


def normalize_path(path: str) -> str:
    """A repository-relative POSIX path: `./a//b` and `a\\b` are `a/b`; a trailing `/` is kept."""
    p = path.strip().replace("\\", "/")
    trail = p.endswith("/")
    parts = [s for s in p.split("/") if s not in ("", ".")]
    out = "/".join(parts)
    return out + "/" if trail and out else out


def governs(ref: str, file: str) -> str | None:
    """How citation `ref` covers repository file `file` (`exact`, `folder` or `glob`), or None."""
    kind = classify(ref)
    ref, file = normalize_path(ref), normalize_path(file)
    if not file or not ref or kind in ("url", "commit") or " " in ref:
        return None
    if kind == "glob":
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
    those are read the same way, so an index seeded by an older jgm answers alike until it is reseeded."""
    stored = data.get("citations")
    if isinstance(stored, list) and stored:
        return [str(c) for c in stored]
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
    return dedupe(got)
