"""`jgm check` and `jgm check --explain PATH`: validate the knowledge base without an index, and show how
one file is read (adapter, id and its rule, kind, status and why, links)."""

from __future__ import annotations

from pathlib import Path

from ..config import Settings
from ..records.formats import read_record
from ..records.formats.ids import adr_id
from ..records.model import LINK_KEYS
from . import sources
from .drift import reviewed_warnings
from .reading import read_knowledge


def check_repo(root: Path, settings: Settings) -> dict:
    """Everything `jgm check` reports. `ok` is false on errors and on a root whose files gave no record."""
    ignored: list[dict] = []
    files, issues = sources.read_worktree(root, settings, ignored)
    k = read_knowledge(files, {}, settings, ignored, reuse=False)
    issues = issues + k.issues + reviewed_warnings(root, k.resolution.records.values())
    errors = [i for i in issues if i.severity == "error"]
    from .citation_check import citation_warnings  # imported on use: only this report reads the citations

    issues = issues + citation_warnings(root, k.resolution.records.values())  # warnings only
    return {
        "ok": not errors and not k.empty_roots,
        "records": len(k.resolution.records),
        "files": len(files),
        "roots": list(settings.roots),
        "inventory": k.inventory,
        "skipped": k.collected.skipped + ignored,
        "errors": [i.to_dict() for i in errors],
        "warnings": [i.to_dict() for i in issues if i.severity != "error"],
        "empty_roots": [i.path for i in k.empty_roots],
        "_issues": issues,
    }


def explain(root: Path, settings: Settings, path: str) -> dict:
    """How one file is read, with its links resolved against the whole knowledge base."""
    full = (root / path).resolve() if not Path(path).is_absolute() else Path(path).resolve()
    try:
        rel = full.relative_to(root.resolve()).as_posix()
    except ValueError:
        raise ValueError(f"{path} is not inside the repository {root}") from None
    if not full.is_file():
        raise ValueError(f"{rel}: no such file")
    knowledge_root = sources.root_of(rel, settings)
    out: dict = {
        "path": rel,
        "under_root": sources.is_record_path(rel, settings),
        "root": knowledge_root,
        "collection": _collection_rule(knowledge_root, settings),
        "ignored": sources.ignored_reason(rel, settings),
    }
    options = settings.adapter_options()
    reading = read_record(rel, full.read_bytes(), options, sources.worktree_sidecar(root, rel))
    o = reading.outcome
    out.update(
        format=o.record.format if o.record else reading.format,
        why=reading.why,
        skipped=o.skipped,
        issues=[i.to_dict() for i in o.issues],
    )
    if not o.record:
        return out
    r = o.record
    out.update(id=r.id, kind=r.kind, status=r.status, title=r.title, date=r.date)
    if r.format != "jgm":
        out["id_rule"] = adr_id(rel)[1]
        out["status_why"] = _status_why(r, options.missing_status)
        if r.metadata.get("title_from"):
            out["title_why"] = r.metadata["title_from"]
        out["decision-makers"] = r.metadata.get("decision-makers")
    else:
        out["id_rule"] = "the `id` key of the front matter"
        out["status_why"] = "the `status` key of the front matter"
    files, _ = sources.read_worktree(root, settings)
    if rel not in {f.path for f in files}:
        files.append(sources.SourceFile(rel, full.read_bytes(), sources.worktree_sidecar(root, rel)))
    res = read_knowledge(files, {}, settings, reuse=False).resolution
    resolved = next((x for x in res.records.values() if x.path == rel), None)
    out["links"] = {
        k: [
            {"written": w, "id": t, "found": t in res.records} for w, t in zip(getattr(r, k), getattr(resolved or r, k))
        ]
        for k in LINK_KEYS
        if getattr(r, k)
    }
    out["effective_status"] = res.effective.get(r.id) if resolved else None
    out["resolve_issues"] = [i.to_dict() for i in res.issues if i.path == rel]
    return out


def _collection_rule(root: str | None, settings: Settings) -> str | None:
    """Which rule made `root` a knowledge root: `roots` in the config, the default, or what discovery saw."""
    if root is None:
        return None
    if settings.roots_configured:
        return f"`roots` in {settings.source}"
    found = {c["root"]: c for c in (settings.discovered or {}).get("collections", [])}
    if root in found:
        c = found[root]
        return c["rule"] + (f": {c['why']}" if c["why"] else "")
    return "the default knowledge root" if root == "knowledge" else "discovered"


def _status_why(r, missing: str) -> str:
    """Which rule read the status: where it was written, how the words were mapped, or the fallback."""
    meta, line = r.metadata, r.lines.get("status")
    source = meta.get("status_source", "")
    written = meta.get("status_as_written")
    where = f"{source}" + (f", line {line}" if line else "")
    if key := meta.get("status_unmapped"):
        return (
            f"{written!r} ({where}) is in no status table: read as {r.status}, never in force; "
            f'map it in jgm.toml under [status_map]: "{key}" = "…"'
        )
    if source.startswith("no status anywhere"):
        return f"no status in the file, its change log or its folder name: adr_missing_status = {missing!r}"
    rule = meta.get("status_rule") or "status table"
    shown = f"{written!r} " if written else ""
    return f"{shown}({where}) via {rule}"


def render_explain(shown: dict) -> list[str]:
    """`jgm check --explain` for people: one fact per line, links as `written → id`, issues rendered."""
    lines = []
    for k, v in shown.items():
        if k in ("links", "issues", "resolve_issues") or v in (None, [], {}):
            continue
        lines.append(f"{k}: {v}")
    for rel, items in (shown.get("links") or {}).items():
        parts = [
            f"{i['written']}"
            + (f" → {i['id']}" if i["id"] != i["written"] else "")
            + ("" if i["found"] else " (no such record)")
            for i in items
        ]
        lines.append(f"{rel}: {', '.join(parts)}")
    for i in (shown.get("issues") or []) + (shown.get("resolve_issues") or []):
        where = f"{i['path']}:{i['line']}" if i.get("line") else i["path"]
        lines.append(f"{where}: {i['severity']}: {i['message']} — fix: {i['fix']}")
    return lines
