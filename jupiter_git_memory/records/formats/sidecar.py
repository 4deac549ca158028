"""Status files kept beside a record (pure). A Kubernetes KEP keeps its README free of status and says it in
`kep.yaml` next to it (`status: provisional | implementable | implemented | deferred | rejected | withdrawn |
replaced`). The seed reads that file with the README (seed/sources.py) and gives it here: its `status` is
read through the one status table when the README itself says none, and its bytes count in the record's
content hash, so a status change in `kep.yaml` alone re-reads the record."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from posixpath import dirname, join

import yaml

from ..safe_yaml import SafeYamlError, load_frontmatter
from .ids import folder_record

SIDECAR_NAMES = ("kep.yaml",)  # beside a numbered folder's README
_STATUS_LINE_RE = re.compile(r"^status\s*:", re.MULTILINE)
_CHOICES_RE = re.compile(r"^[\w-]+(?:\s*\|\s*[\w-]+){2,}$")  # the template's unfilled "provisional|implementable|…"


@dataclass(frozen=True)
class Sidecar:
    name: str  # repo-relative path of the status file
    status: str | None  # its `status` value as written, or None
    line: int | None  # the 1-based line of `status:` in it
    digest: str  # sha256 of its bytes
    problem: str | None = None  # why it could not be read (YAML error, not a mapping)


def sidecar_paths(path: str) -> list[str]:
    """Where a record's status file may be: beside a numbered folder's README (`keps/sig-x/1287-y/kep.yaml`)."""
    return [join(dirname(path), n) for n in SIDECAR_NAMES] if folder_record(path) else []


def read_sidecar(name: str, data: bytes) -> Sidecar:
    """The status a sidecar file states (a top-level string `status`), never raising on bad YAML."""
    digest = hashlib.sha256(data).hexdigest()
    try:
        text = data.decode("utf-8")
        meta = load_frontmatter(text)
    except (UnicodeDecodeError, SafeYamlError, yaml.YAMLError) as e:
        return Sidecar(name, None, None, digest, f"cannot be read as YAML ({type(e).__name__})")
    if not isinstance(meta, dict):
        return Sidecar(name, None, None, digest, "is not a YAML mapping")
    status = meta.get("status")
    if status is None or isinstance(status, (dict, list)):
        return Sidecar(name, None, None, digest)
    value = str(status).strip()
    if _CHOICES_RE.match(value):
        return Sidecar(name, None, None, digest, "its `status` is the template's list of choices, not one")
    m = _STATUS_LINE_RE.search(text)
    return Sidecar(name, value, text.count("\n", 0, m.start()) + 1 if m else None, digest)


def content_hash(raw: bytes, sidecar: Sidecar | None) -> str:
    """A record's content hash: its bytes, and its status file's when it has one."""
    if sidecar is None:
        return hashlib.sha256(raw).hexdigest()
    return hashlib.sha256(raw + b"\0" + sidecar.name.encode() + b"\0" + sidecar.digest.encode()).hexdigest()
