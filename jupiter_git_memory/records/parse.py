"""Parse one record file from bytes. Pure: no file system access, so any source (tree or Git object)
feeds it the same way and tests are fast."""

from __future__ import annotations

import datetime as _dt
import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

import frontmatter
import yaml

from .citations import as_citations, dedupe
from .model import ID_PATTERN, KINDS, KNOWN_KEYS, MAX_RECORD_BYTES, REQUIRED, STATUSES, Issue, Record
from .safe_yaml import SafeYamlError, load_frontmatter

_ID_RE = re.compile(ID_PATTERN)
_KEY_LINE_RE = re.compile(r"^([A-Za-z_][\w-]*)\s*:")
_MADR_SUPERSEDED_RE = re.compile(r"^superseded\s+by\s+(.+)$", re.IGNORECASE)
_FENCE_RE = re.compile(r"\A(?:\ufeff)?---[ \t]*\r?\n")


@dataclass
class ParseOutcome:
    """Exactly one of: a record, a skip reason (no frontmatter), or at least one error issue."""

    record: Record | None = None
    skipped: str | None = None
    issues: list[Issue] = field(default_factory=list)


def _key_lines(text: str) -> dict[str, int]:
    """Map top-level frontmatter keys to 1-based file lines (line 1 is the opening fence)."""
    lines: dict[str, int] = {}
    for n, line in enumerate(text.splitlines()[1:], start=2):
        if line.strip() == "---":
            break
        m = _KEY_LINE_RE.match(line)
        if m and m.group(1) not in lines:
            lines[m.group(1)] = n
    return lines


def _id_list(value: Any, key: str, path: str, line: int | None) -> tuple[tuple[str, ...], list[Issue]]:
    if value is None:
        return (), []
    items = [value] if isinstance(value, (str, int)) else value
    if not isinstance(items, list) or not all(isinstance(i, (str, int)) for i in items):
        return (), [
            Issue(
                path,
                f"`{key}` must be an id or a list of ids",
                f"write `{key}: OTHER-ID` or `{key}: [A, B]`",
                line=line,
            )
        ]
    return tuple(str(i).strip() for i in items if str(i).strip()), []


def _scalar(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, (_dt.date, _dt.datetime)):
        return value.isoformat()
    return str(value)


def parse_record(path: str, raw: bytes) -> ParseOutcome:
    """Parse `raw` (the file's bytes) found at repo-relative `path`."""
    if len(raw) > MAX_RECORD_BYTES:
        return ParseOutcome(
            issues=[
                Issue(
                    path,
                    f"file is {len(raw)} bytes, over the {MAX_RECORD_BYTES}-byte record limit",
                    "split it into smaller records or move bulk content out of the knowledge root",
                )
            ]
        )
    if b"\x00" in raw:
        return ParseOutcome(
            issues=[
                Issue(
                    path,
                    "binary file (contains NUL bytes) under a knowledge root",
                    "remove it or add it to `ignore` in jgm.toml",
                )
            ]
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line: int | None = raw[: e.start].count(b"\n") + 1
        return ParseOutcome(
            issues=[Issue(path, f"not valid UTF-8 (byte {e.start})", "re-save the file as UTF-8", line=line)]
        )
    if not _FENCE_RE.match(text):
        return ParseOutcome(skipped="no frontmatter")
    text = text.lstrip("\ufeff")
    try:
        fm_text, content = frontmatter.YAMLHandler().split(text)  # type: ignore[attr-defined]
    except ValueError:
        return ParseOutcome(
            issues=[Issue(path, "frontmatter is not closed", "end the YAML block with a `---` line", line=1)]
        )
    # mark lines count from fm_text's start, which sits on the opening fence's line (it keeps that newline)
    first = text[: text.find(fm_text, 3)].count("\n") + 1 if fm_text else 1
    notes: list[tuple[int, str, str]] = []
    try:
        meta = load_frontmatter(fm_text, notes) if fm_text.strip() else {}
    except SafeYamlError as e:
        return ParseOutcome(
            issues=[Issue(path, f"frontmatter {e.problem}", e.fix, line=first + e.line if e.line is not None else 1)]
        )
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        if mark is not None and mark.index >= len(fm_text.rstrip()):  # "got <stream end>": where it began
            mark = getattr(e, "context_mark", None) or mark
        line = first + mark.line if mark is not None else None
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        return ParseOutcome(
            issues=[
                Issue(
                    path,
                    f"frontmatter is not valid YAML: {problem}",
                    "fix the YAML syntax between the `---` fences",
                    line=line,
                )
            ]
        )
    if not isinstance(meta, dict):
        return ParseOutcome(
            issues=[
                Issue(
                    path,
                    "frontmatter must be a YAML mapping of keys to values",
                    "write `key: value` lines between the `---` fences",
                    line=2,
                )
            ]
        )
    lines = _key_lines(text)
    issues: list[Issue] = []
    for key in REQUIRED:
        if meta.get(key) in (None, ""):
            issues.append(Issue(path, f"missing required key `{key}`", f"add `{key}: ...` to the frontmatter", line=2))
    if issues:
        return ParseOutcome(issues=issues)

    rid = _scalar(meta["id"]).strip()  # type: ignore[union-attr]  # required: checked above
    if not _ID_RE.match(rid):
        issues.append(
            Issue(
                path,
                f"invalid id {rid[:80]!r}",
                "use letters, digits and . _ : - (no slashes or spaces, at most 128 chars)",
                line=lines.get("id"),
            )
        )
    kind = str(meta["kind"]).strip().lower()
    status_raw = str(meta["status"]).strip()
    status = status_raw.lower()
    superseded_by, errs = _id_list(meta.get("superseded_by"), "superseded_by", path, lines.get("superseded_by"))
    issues += errs
    supersedes, errs = _id_list(meta.get("supersedes"), "supersedes", path, lines.get("supersedes"))
    issues += errs
    madr = _MADR_SUPERSEDED_RE.match(status_raw)
    if madr:  # MADR writes `status: "superseded by ADR-0123"`
        status = "superseded"
        link = madr.group(1).strip().strip("[]()")
        if link and link not in superseded_by:
            superseded_by = superseded_by + (link,)
    if kind not in STATUSES:
        issues.append(Issue(path, f"unknown kind {kind!r}", f"use one of: {', '.join(KINDS)}", line=lines.get("kind")))
    elif status not in STATUSES[kind]:
        issues.append(
            Issue(
                path,
                f"status {status_raw!r} is not valid for kind {kind!r}",
                f"use one of: {', '.join(STATUSES[kind])}",
                line=lines.get("status"),
            )
        )
    tags_v = meta.get("tags")
    if tags_v is None:
        tags: tuple[str, ...] = ()
    elif isinstance(tags_v, str):
        tags = tuple(t.strip() for t in tags_v.split(",") if t.strip())
    elif isinstance(tags_v, list) and all(isinstance(t, (str, int, float)) for t in tags_v):
        tags = tuple(str(t) for t in tags_v)
    else:
        issues.append(Issue(path, "`tags` must be a list of words", "write `tags: [a, b]`", line=lines.get("tags")))
        tags = ()
    cited: list[str] = []
    for key in ("source", "evidence"):
        got, problem = as_citations(meta.get(key))
        if problem:
            issues.append(
                Issue(path, f"`{key}` {problem}", f"write `{key}: path/or/url` or `{key}: [a, b]`", line=lines.get(key))
            )
        cited += got
    if not isinstance(meta["title"], (str, int, float)):
        issues.append(
            Issue(path, "`title` must be text", "write `title: One line that says what it is`", line=lines.get("title"))
        )
    if issues:
        return ParseOutcome(issues=issues)

    extra = {k: v for k, v in meta.items() if k not in KNOWN_KEYS}
    warnings = date_warnings(path, text, first, notes)
    record = Record(
        id=rid,
        kind=kind,
        status=status,
        title=str(meta["title"]).strip(),
        body=content.strip(),
        path=path,
        content_hash=hashlib.sha256(raw).hexdigest(),
        supersedes=supersedes,
        superseded_by=superseded_by,
        tags=tags,
        date=_scalar(meta.get("date")),
        source=", ".join(as_citations(meta.get("source"))[0]) or None,
        scope=_scalar(meta.get("scope")),
        metadata=_jsonable(extra),
        lines=lines,
        citations=tuple(dedupe(cited)),
    )
    return ParseOutcome(record=record, issues=warnings)


def date_warnings(path: str, text: str, first: int, notes: list[tuple[int, str, str]]) -> list[Issue]:
    """One warning per impossible date the front matter holds (kept as its text; the record is indexed).
    `first` is the file line the YAML text starts on."""
    out = []
    lines = text.splitlines()
    for line, value, problem in notes:
        n = first + line
        key = lines[n - 1].split(":", 1)[0].strip() if 0 < n <= len(lines) else "a date"
        out.append(
            Issue(
                path,
                f"`{key}: {value}` is not a real date ({problem}); kept as the text written",
                "correct it to a real date (YYYY-MM-DD) or quote it",
                severity="warning",
                line=n,
            )
        )
    return out


def _jsonable(value: Any) -> Any:
    """Frontmatter may hold dates or other YAML types; keep metadata JSON-safe."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)
