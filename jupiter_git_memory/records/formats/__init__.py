"""Read-only format adapters: existing ADR files become the same `Record` as our own format (pure).

One reader per file, chosen by detection or forced per root by `[formats]` in jgm.toml:
- our frontmatter (a front matter with one of our kinds, or `id` and `status`) always wins and is parsed by
  `records.parse`; another project's own `kind:` is not ours;
- other front matter: MADR 3/4; a `Status` section or `Status:` line: Nygard / adr-tools;
- `* Status:` bullets: log4brains for date-named files, else MADR 2;
- no status at all but a numbered or date-named file with a heading: an ADR without status (`plain`; a
  numbered `# 12. Title` is Nygard's shape);
- never a record, unless our front matter says so: an ordinary doc by its name (README, CHANGELOG,
  CONTRIBUTING, …), a template (`0000-TEMPLATE.md`, `RFC-NNNN Title`), an attachment inside a record's
  numbered folder, a numbered folder's README without a status or a decision record's sections.
Anything else is skipped with its reason, so `jgm seed`/`check` can say why a file was not read.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, replace

import yaml

from ..kinds import KINDS
from ..model import MAX_RECORD_BYTES
from ..parse import ParseOutcome, parse_record
from . import log4brains, madr, nygard
from .common import AdapterOptions, first_heading, folder_status
from .evidence import examine, is_template, ordinary_name
from .ids import attachment_folder, date_named, folder_record, numbered
from .sidecar import Sidecar

NATIVE = "jgm"
PLAIN = "plain"  # a numbered or dated Markdown file with a heading and no status marker (RFC, OTEP, proposal)
FORMATS = (NATIVE, nygard.NAME, madr.NAME2, madr.NAME3, log4brains.NAME, PLAIN)
_FENCE_RE = re.compile(r"\A(?:\ufeff)?---[ \t]*\r?\n")
_NUMBERED_H1_RE = re.compile(r"^(?:adr[-_ ]?)?\d+\s*[.:)]", re.IGNORECASE)
_ANY_HEADING_RE = re.compile(r"^#{1,6}[ \t]+\S", re.MULTILINE)
NOT_A_RECORD = "no frontmatter and no ADR shape (no status, no numbered or dated file name with a title)"
ORDINARY = "an ordinary doc by its name (README, CHANGELOG, CONTRIBUTING, …), not a record"
TEMPLATE = "a template (`template` in the name, or a placeholder title such as `RFC-NNNN Title`)"
BARE_FOLDER_README = "README of a numbered folder without a status or a decision record's sections"

__all__ = ["AdapterOptions", "FORMATS", "NATIVE", "PLAIN", "Reading", "read_record"]


@dataclass
class Reading:
    """How one file was read: the format (or None when skipped), why that format, and the outcome."""

    format: str | None
    why: str
    outcome: ParseOutcome


def _adapter(fmt: str, path: str, raw: bytes, text: str, options: AdapterOptions) -> ParseOutcome:
    if fmt == NATIVE:
        return parse_record(path, raw)
    if fmt == nygard.NAME:
        return nygard.read(path, raw, text, options)
    if fmt == madr.NAME2:
        return madr.read_bullets(path, raw, text, options)
    if fmt == log4brains.NAME:
        return log4brains.read(path, raw, text, options)
    if fmt == PLAIN:
        return madr.read_bullets(path, raw, text, options, fmt=PLAIN, from_top=True)
    if _FENCE_RE.match(text):
        return madr.read_frontmatter(path, raw, text, options)
    return madr.read_bullets(path, raw, text, options, fmt=madr.NAME3)  # MADR 3/4 with its metadata left out


def _frontmatter_is_ours(text: str) -> tuple[bool, str]:
    """(ours, why) of a front matter: ours when its `kind` is one of ours (or close to one: a typo such as
    `decison`), when it has a `kind` and an `id` (our shape: a wrong kind is the author's error to fix), or no
    `kind` but `id` and `status` (or cannot be read: our parser explains why). A site generator's `id`/`title`
    alone (Docusaurus, Jekyll) does not make a file ours, nor does another project's own `kind: rfc` without an
    `id`: that file goes to the adapter that fits, and `why` says so."""
    end = re.search(r"^---[ \t]*\r?$", text[3:], re.MULTILINE)
    if end is None:
        return True, ""
    try:
        meta = madr.load_yaml(text[3 : 3 + end.start()].lstrip("\ufeff"))
    except yaml.YAMLError:
        return True, ""
    if not isinstance(meta, dict):
        return True, ""
    kind = meta.get("kind")
    if kind is None:
        return "id" in meta and "status" in meta, ""
    if not isinstance(kind, str):
        return True, ""  # `kind: [decision]`: ours, written wrong, and our parser says how
    name = str(kind).strip().lower()
    if name in KINDS or difflib.get_close_matches(name, KINDS, n=1, cutoff=0.85) or "id" in meta:
        return True, ""  # ours, a typo of ours (`decison`), or our shape with a wrong kind: the error names ours
    return False, f"front matter with its own `kind: {str(kind)[:40]}`, not one of ours ({', '.join(KINDS)})"


def detect(path: str, text: str, sidecar: Sidecar | None = None) -> tuple[str | None, str]:
    """(format, why) for a decoded file; format None means "not a record". A numbered folder's README with a
    status file beside it (a KEP's kep.yaml stating a status) is a record whatever its sections."""
    fenced = _FENCE_RE.match(text)
    foreign = ""
    if fenced:
        ours, foreign = _frontmatter_is_ours(text.lstrip("\ufeff"))
        if ours:
            return NATIVE, "front matter with one of our kinds, or `id` and `status` (our format)"
    if ordinary_name(path):
        return None, ORDINARY
    if (folder := attachment_folder(path)) is not None:
        return None, f"an attachment of the numbered record folder `{folder}/`, not a record"
    lines = text.splitlines()
    h, heading = first_heading(lines)
    if is_template(path, heading):
        return None, TEMPLATE
    stated = sidecar is not None and bool(sidecar.status)
    if folder_record(path) and not stated and not examine(path, text).decision_like:
        return None, BARE_FOLDER_README
    if fenced:
        why = "front matter without our `kind` (MADR 3/4, or a `status`/`state`/`stage` key)"
        return madr.NAME3, f"{foreign}: read as MADR 3/4" if foreign else why
    if nygard.status_section(lines) is not None:
        return nygard.NAME, "a `Status` section"
    if madr.has_status_bullet(lines):
        if date_named(path):
            return log4brains.NAME, "`- Status:` bullet and a date-named file"
        return madr.NAME2, "`* Status:` bullet"
    if nygard.status_line(lines) is not None:
        return nygard.NAME, "a `Status:` line"
    if nygard.table_status(lines) is not None:
        return nygard.NAME, "a `| Status |` table row"
    if numbered(path) or date_named(path):
        if heading is None and not _ANY_HEADING_RE.search(text):
            return None, NOT_A_RECORD
        if date_named(path):
            return log4brains.NAME, "date-named file with a title but no status"
        if heading is not None and _NUMBERED_H1_RE.match(heading):
            return nygard.NAME, "numbered file and numbered title, no status"
        return PLAIN, "numbered file with a heading but no status marker"
    if heading is not None and (by_folder := folder_status(path)) is not None:
        return PLAIN, f"a titled file in the folder `{by_folder[1]}/`, named by a status"
    return None, NOT_A_RECORD


def read_record(
    path: str, raw: bytes, options: AdapterOptions | None = None, sidecar: Sidecar | None = None
) -> Reading:
    """Read one file at repo-relative `path` in whichever format it is written (or the forced one); `sidecar`
    is its status file when it has one (a KEP's kep.yaml, records/formats/sidecar.py)."""
    options = options or AdapterOptions()
    if sidecar is not None:
        options = replace(options, sidecar=sidecar)
    if len(raw) > MAX_RECORD_BYTES or b"\x00" in raw:
        return Reading(NATIVE, "size/binary check", parse_record(path, raw))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return Reading(NATIVE, "encoding check", parse_record(path, raw))
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")  # a BOM and Windows line endings read as any file
    forced = options.forced(path)
    fmt: str | None
    if forced:
        fmt, why = forced[0], f"forced by [formats] for {forced[1] or 'the repository'!r}"
    else:
        fmt, why = detect(path, text, sidecar)
    if fmt is None:
        return Reading(None, why, ParseOutcome(skipped=why))
    return Reading(fmt, why, _adapter(fmt, path, raw, text, options))
