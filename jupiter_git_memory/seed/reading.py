"""Read record files in any supported format, and say per root and format what was found, indexed and
skipped. No silent zero: a root with Markdown files but no records is a warning (and fails `jgm check`).

Status problems are said once, not per file: one warning per distinct status word in no table (with the
`[status_map]` line that maps it, as valid TOML), and one note per root whose records say no status."""

from __future__ import annotations

import functools
import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .. import records
from ..config import Settings
from ..lifecycle.resolve import Resolution, resolve
from ..records.formats import NATIVE, AdapterOptions, Reading, read_record
from ..records.formats.common import NO_STATUS, status_hint_toml
from ..records.formats.sidecar import content_hash
from ..records.model import Issue, Record
from ..records.parse import ParseOutcome
from ..records.row import RecordRow
from ..records.text import hidden_char_warnings


@dataclass
class Collected:
    records: list[Record] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)
    skipped: list[dict] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)  # path -> first error, for files that failed
    formats: dict[str, str] = field(default_factory=dict)  # path -> format, for files read as records


@functools.cache
def parser_fingerprint() -> str:
    """A hash of the parsing code itself (the `records` package), so a parser or adapter fix reaches files
    whose bytes did not change: nobody has to remember to bump a version."""
    root = Path(records.__file__).parent
    h = hashlib.sha256()
    for p in sorted(root.rglob("*.py")):
        h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes())
    return h.hexdigest()[:16]


def options_key(settings: Settings) -> str:
    """Changes whenever the parser or a setting that changes how files are read changes: the seed then
    re-reads every file instead of reusing the parses the catalog stored."""
    o = settings.adapter_options()
    return json.dumps(
        [parser_fingerprint(), o.status_map, o.missing_status, o.formats, o.folder_defaults], sort_keys=True
    )


def read_isolated(path: str, data: bytes, options: AdapterOptions, sidecar=None) -> Reading:
    """One file's reading, whatever happens: an exception, or a record the index could not store (text that is
    not encodable, e.g. a lone surrogate), becomes that file's error. `jgm check`, the seed and the doctor all
    read through `collect`, so they agree on what is an error."""
    try:
        reading = read_record(path, data, options, sidecar)
        if reading.outcome.record is not None:  # what the catalog and Chroma will store must encode
            json.dumps(reading.outcome.record.to_dict(), ensure_ascii=False).encode("utf-8")
        return reading
    except Exception as e:
        issue = Issue(
            path,
            f"could not be read: {type(e).__name__}: {str(e)[:200]}",
            "correct the file (see the message), or move it out of the knowledge root",
            line=getattr(e, "line", None),
        )
        return Reading(None, "failed", ParseOutcome(issues=[issue]))


def collect(files, previous: dict[str, RecordRow], options: AdapterOptions, reuse: bool = True) -> Collected:
    """Parse files (reusing the catalog's parse for unchanged bytes when `reuse`)."""
    prev_by_path = {r.path: r for r in previous.values() if r.origin == "file" and not r.error} if reuse else {}
    out = Collected()
    for f in files:
        prev = prev_by_path.get(f.path)
        if prev is not None and prev.content_hash == content_hash(f.data, f.sidecar):
            rec = Record.from_dict(prev.data)
            out.records.append(rec)
            out.formats[f.path] = rec.format
            out.issues.extend(hidden_char_warnings(rec, f.data.decode("utf-8", "replace")))
            continue
        reading = read_isolated(f.path, f.data, options, f.sidecar)
        o = reading.outcome
        if o.record:
            out.records.append(o.record)
            out.formats[f.path] = o.record.format
            out.issues.extend(o.issues)  # warnings, e.g. an ADR without status
            out.issues.extend(hidden_char_warnings(o.record, f.data.decode("utf-8", "replace")))
        elif o.skipped:
            out.skipped.append({"path": f.path, "reason": o.skipped})
        else:
            out.formats[f.path] = reading.format or NATIVE
            out.issues.extend(o.issues)
            out.failed[f.path] = o.issues[0].render()
    return out


def _root_of(path: str, settings: Settings) -> str | None:
    from .sources import root_of

    return root_of(path, settings)


def status_notes(records: list[Record], settings: Settings) -> tuple[list[Issue], dict[str, dict]]:
    """One warning per distinct unmapped status word and one note per root of records without status;
    plus, per root, {"unmapped": {word: files}, "no_status": n} for the inventory."""
    per: dict[str, dict] = {}
    words: dict[str, list[Record]] = {}
    silent: dict[str, list[Record]] = {}
    for r in sorted(records, key=lambda x: x.path):
        if r.format == NATIVE:
            continue
        root = _root_of(r.path, settings) or "."
        if key := r.metadata.get("status_unmapped"):
            words.setdefault(key, []).append(r)
            per.setdefault(root, {}).setdefault("unmapped", Counter())[key] += 1
        elif r.metadata.get("status_source", NO_STATUS) == NO_STATUS:
            silent.setdefault(root, []).append(r)
            per.setdefault(root, {})["no_status"] = len(silent[root])
    issues = []
    for key, recs in sorted(words.items()):
        first = recs[0]
        more = f" and {len(recs) - 1} more" if len(recs) > 1 else ""
        issues.append(
            Issue(
                first.path,
                f"status {first.metadata.get('status_as_written', key)!r} is in no status table "
                f"({len(recs)} file{'s' if len(recs) > 1 else ''}: {first.path}{more}): read as proposed, never in force",
                f"map it in jgm.toml under [status_map]: {status_hint_toml([key]).splitlines()[1]}",
                severity="warning",
                line=first.lines.get("status"),
            )
        )
    for root, recs in sorted(silent.items()):
        if recs[0].status == "accepted":  # adr_missing_status = "accepted": the team said so
            continue
        folder = "/" if root in ("", ".") else f"{root.strip('/')}/"
        issues.append(
            Issue(
                root,
                f"{len(recs)} record{'s' if len(recs) > 1 else ''} under this root say no status: read as "
                f"{recs[0].status}, left out of default recall",
                f'if they are in force, add to jgm.toml under [status_map]: "{folder}" = "accepted"',
                severity="warning",
            )
        )
    for d in per.values():
        if "unmapped" in d:
            d["unmapped"] = dict(d["unmapped"])
    return issues, per


def inventory(
    settings: Settings,
    files,
    collected: Collected,
    ignored: list[dict],
    valid_paths: set[str],
    rejected_paths: set[str] = frozenset(),
    notes: dict[str, dict] | None = None,
) -> tuple[list[dict], list[Issue]]:
    """Per root: Markdown files found, records indexed, per format found/indexed/errors, skipped by reason,
    how discovery found it, and its status notes (unmapped words, records without status)."""
    roots = settings.roots
    found_by = {c["root"]: c for c in (settings.discovered or {}).get("collections", [])}
    per: dict[str, dict] = {
        r: {"root": r, "markdown": 0, "indexed": 0, "formats": {}, "skipped": Counter()} for r in roots
    }
    for r, d in per.items():
        if r in found_by:
            d["found_by"] = found_by[r]["rule"] + (f" ({found_by[r]['why']})" if found_by[r]["why"] else "")
        d.update((notes or {}).get(r, {}))
    for f in files:
        r = _root_of(f.path, settings)
        if r is None:
            continue
        per[r]["markdown"] += 1
        fmt = collected.formats.get(f.path)
        if fmt is None:
            continue
        slot = per[r]["formats"].setdefault(fmt, {"found": 0, "indexed": 0, "errors": 0})
        slot["found"] += 1
        if f.path in valid_paths and f.path not in rejected_paths:
            slot["indexed"] += 1
            per[r]["indexed"] += 1
        else:
            slot["errors"] += 1
    for s in collected.skipped:
        if (r := _root_of(s["path"], settings)) is not None:
            per[r]["skipped"][s["reason"]] += 1
    read = {r: d["markdown"] for r, d in per.items()}  # files that were read, not ignored by pattern
    for s in ignored:
        if (r := _root_of(s["path"], settings)) is not None:
            per[r]["markdown"] += 1
            per[r]["skipped"][s["reason"]] += 1
    issues = []
    for r, d in per.items():
        d["skipped"] = dict(d["skipped"])
        if read[r] and not d["indexed"]:
            issues.append(
                Issue(
                    r,
                    f"{d['markdown']} Markdown files under this root but no records were indexed "
                    f"(skipped: {d['skipped'] or 'none'}; errors: "
                    f"{sum(x['errors'] for x in d['formats'].values())})",
                    "run `jgm check --explain FILE` on one of them to see how it is read",
                    severity="warning",
                )
            )
    return list(per.values()), issues


def render_inventory(inv: list[dict]) -> list[str]:
    """One line per root: `docs/adr: 38 Markdown, 37 indexed (nygard 37/38, 1 error); skipped: …`."""
    lines = []
    for d in inv:
        if not d["markdown"]:
            continue
        fmts = ", ".join(
            f"{k} {v['indexed']}/{v['found']}" + (f" ({v['errors']} with errors)" if v["errors"] else "")
            for k, v in sorted(d["formats"].items())
        )
        skipped = "; ".join(f"{n} {why}" for why, n in sorted(d["skipped"].items()))
        lines.append(
            f"{d['root']}: {d['markdown']} Markdown files, {d['indexed']} indexed"
            + (f" [{fmts}]" if fmts else "")
            + (f"; skipped: {skipped}" if skipped else "")
            + (f"; found as {d['found_by']}" if d.get("found_by") else "")
        )
    unmapped = sorted({k for d in inv for k in d.get("unmapped", {})})
    if unmapped:
        lines.append("status words in no table are read as proposed; to map them, add to jgm.toml:")
        lines.extend(status_hint_toml(unmapped).splitlines())
    return lines


@dataclass
class KnowledgeRead:
    """What reading the knowledge files gives: parsed, lifecycle resolved, inventoried."""

    collected: Collected
    resolution: Resolution
    inventory: list[dict]
    issues: list[Issue]  # parse, lifecycle and inventory issues, in that order
    empty_roots: list[Issue]  # roots whose Markdown files gave no record


def read_knowledge(
    files, previous: dict[str, RecordRow], settings: Settings, ignored: list[dict] | None = None, reuse: bool = True
) -> KnowledgeRead:
    """collect → resolve → inventory, the one reading `jgm seed`, `jgm check` and `jgm doctor` share, so they
    agree on what is a record, what is an error and what a record's effective status is."""
    got = collect(files, previous, settings.adapter_options(), reuse=reuse)
    res = resolve(got.records)
    note_issues, notes = status_notes(list(res.records.values()), settings)
    inv, inv_issues = inventory(
        settings, files, got, ignored or [], {r.path for r in res.records.values()}, res.rejected_paths, notes
    )
    return KnowledgeRead(got, res, inv, got.issues + res.issues + note_issues + inv_issues, inv_issues)
