"""MADR ADRs (pure). MADR 2: `* Status: accepted` bullets under the title (the value may be
`superseded by [ADR-0005](0005-x.md)`). MADR 3/4: YAML front matter with `status`, `date`,
`decision-makers` (MADR 3: `deciders`), the title from the first `#` heading."""

from __future__ import annotations

import re
from typing import Any

import frontmatter
import yaml

from ..model import Issue
from ..parse import ParseOutcome, _jsonable, _scalar, date_warnings
from ..safe_yaml import load_frontmatter
from .common import AdapterOptions, build, clean_title, first_heading
from .status import StatusReading, lifecycle_key, read_lifecycle_keys, read_status

NAME2, NAME3 = "madr2", "madr3"
_BULLET_RE = re.compile(r"^\s*[*-]\s+\**([A-Za-z\u4e00-\u9fff][A-Za-z\u4e00-\u9fff -]*?)\**\s*[:：]\s*\**\s*(.*?)\s*$")
# Header bullets written in Chinese, by the English key they stand for.
ZH_KEYS = {"狀態": "status", "状态": "status", "日期": "date", "決策者": "deciders", "决策者": "deciders"}
ZH_KEYS |= {"標籤": "tags", "标签": "tags"}
_SECTION_RE = re.compile(r"^##\s")
_FM_KEYS = ("status", "date", "decision-makers", "deciders", "consulted", "informed")
# Front-matter keys that hold the status, first found wins (Ember's `stage`, other projects' `state`).
STATUS_KEYS = ("status", "狀態", "状态", "state", "stage")


def load_yaml(text: str, notes: list[tuple[int, str, str]] | None = None) -> Any:
    """The front matter's YAML (one place to swap in a stricter loader); `notes` gets impossible dates."""
    return load_frontmatter(text, notes) if text.strip() else {}  # bounded: no aliases, capped depth and size


def bullets(lines: list[str], start: int = 0) -> dict[str, tuple[int, str]]:
    """`* Key: value` bullets of the header (before the first `##` section): lower key -> (line, value)."""
    out: dict[str, tuple[int, str]] = {}
    for i in range(start, len(lines)):
        if _SECTION_RE.match(lines[i]):
            break
        m = _BULLET_RE.match(lines[i])
        key = m.group(1).strip().lower() if m else ""
        key = ZH_KEYS.get(key, key)
        if m and key not in out:
            out[key] = (i + 1, re.sub(r"<!--.*?-->", "", m.group(2)).strip())
    return out


def has_status_bullet(lines: list[str]) -> bool:
    return "status" in bullets(lines)


def _split_list(value: str) -> list[str] | str:
    parts = [p.strip() for p in value.split(",") if p.strip()]
    return parts if len(parts) > 1 else value


def read_bullets(
    path: str, raw: bytes, text: str, options: AdapterOptions, fmt: str = NAME2, from_top: bool = False
) -> ParseOutcome:
    """MADR 2 (and log4brains, which shares the bullets). `from_top`: header bullets may stand above the
    first heading (RFCs: `- Start Date: …` then `# Summary`)."""
    lines = text.splitlines()
    h, heading = first_heading(lines)
    b = bullets(lines, h + 1 if h is not None and not from_top else 0)
    if "status" not in b:  # the bullets stand above the title (`* Status: Approved` then `# Title`)
        b = {**bullets(lines), **b}
    status = read_status([b["status"]], path, options.status_map) if "status" in b else StatusReading()
    status.source = "a `Status:` bullet" if "status" in b else ""
    read_lifecycle_keys(status, [(n, k, v) for k, (n, v) in b.items()], path)
    deciders = b.get("deciders") or b.get("decision-makers") or b.get("decision makers")
    tags = tuple(t.strip() for t in b["tags"][1].split(",") if t.strip()) if "tags" in b else ()
    dated = next((b[k] for k in ("date", "start date", "created") if k in b), None)
    date = dated[1] if dated else None
    meta = {"technical-story": b["technical story"][1]} if "technical story" in b else {}
    if "reviewed" in b:  # `* Reviewed: <sha> on <date>` (records/formats/reviewed.py)
        meta["reviewed"] = b["reviewed"][1]
    body = "\n".join(lines[h + 1 :]) if h is not None else text
    return build(
        path,
        raw,
        fmt,
        clean_title(heading) if heading else None,
        body,
        status,
        options,
        date=date or None,
        deciders=_split_list(deciders[1]) if deciders else None,
        tags=tags,
        metadata=meta,
        title_line=h + 1 if h is not None else None,
    )


def read_frontmatter(path: str, raw: bytes, text: str, options: AdapterOptions) -> ParseOutcome:
    """MADR 3/4: front matter without our `id`/`kind`."""
    text = text.lstrip("\ufeff")
    notes: list[tuple[int, str, str]] = []
    try:
        fm_text, content = frontmatter.YAMLHandler().split(text)  # type: ignore[attr-defined]
        meta = load_yaml(fm_text, notes)
    except (ValueError, yaml.YAMLError) as e:
        return ParseOutcome(
            issues=[
                Issue(
                    path,
                    f"front matter cannot be read: {str(e).splitlines()[0]}",
                    "fix the YAML between the `---` fences",
                    line=1,
                )
            ]
        )
    meta = meta if isinstance(meta, dict) else {}
    fm_lines = fm_text.count("\n") + 2  # the fences
    key_line: dict[str, int] = {}
    for n, line in enumerate(text.splitlines()[1:fm_lines], start=2):
        k = line.split(":", 1)[0].strip()
        key_line.setdefault(k, n)
    status = StatusReading()
    lines = content.splitlines()
    h, heading = first_heading(lines)
    offset = text[: len(text) - len(content)].count("\n")
    fmt = NAME3
    b: dict[str, tuple[int, str]] = {}
    by_lower = {str(k).strip().lower(): k for k in meta}  # `Status:` as well as `status:`
    key = next((by_lower[k] for k in STATUS_KEYS if meta.get(by_lower.get(k, "")) not in (None, "")), None)
    if key is not None and isinstance(meta.get(key), (str, int, float)):
        status = read_status([(key_line.get(key), str(meta[key]))], path, options.status_map)
        status.source = f"front matter `{key}`"
    else:  # a site generator's front matter (Hugo, Jekyll tags) above MADR 2 bullets
        found = bullets(lines, h + 1 if h is not None else 0)
        found = found if "status" in found else {**bullets(lines), **found}  # bullets above the title too
        b = {k: (n + offset, v) for k, (n, v) in found.items()}
        if "status" in b:
            fmt = NAME2
            status = read_status([b["status"]], path, options.status_map)
            status.source = "a `Status:` bullet"
    read_lifecycle_keys(status, [(key_line.get(str(k)), str(k), v) for k, v in meta.items()], path)
    read_lifecycle_keys(status, [(n, k, v) for k, (n, v) in b.items()], path)

    def value(*names: str) -> Any:  # a key in any case (`Title:`, `Created:`), the first name present
        return next((meta[by_lower[n]] for n in names if meta.get(by_lower.get(n, "")) not in (None, "")), None)

    title = value("title") if isinstance(value("title"), str) else (clean_title(heading) if heading else None)
    body = "\n".join(lines[h + 1 :]) if h is not None else content
    deciders = meta.get("decision-makers", meta.get("deciders")) or (
        _split_list(b["deciders"][1]) if "deciders" in b else None
    )
    tags = meta.get("tags")
    tags = (
        tuple(str(t) for t in tags)
        if isinstance(tags, list)
        else tuple(t.strip() for t in str(tags).split(",") if t.strip())
        if tags
        else ()
    )
    extra = {
        k: v
        for k, v in meta.items()
        if k != key
        and str(k).lower() not in ("date", "title", "tags", "decision-makers", "deciders")
        and not lifecycle_key(str(k))
    }
    if "reviewed" in b and not any(str(k).lower() == "reviewed" for k in extra):
        extra["reviewed"] = b["reviewed"][1]  # a `* Reviewed:` bullet below a site generator's front matter
    date = _scalar(value("date", "created", "start-date")) or (b["date"][1] if "date" in b else None)
    out = build(
        path,
        raw,
        fmt,
        title,
        body,
        status,
        options,
        date=date,
        deciders=_jsonable(deciders),
        tags=tags,
        metadata=_jsonable(extra),
        title_line=offset + h + 1 if h is not None else None,
    )
    out.issues += date_warnings(path, text, 1, notes)  # the YAML text starts on the fence line
    return out
