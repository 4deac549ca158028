"""Find the knowledge roots of a repository that has no `roots` in its config.

Teams keep ADRs in a handful of conventional folders; indexing them with no config is what lets an
existing ADR folder work on day one. This reads the file system, so it lives on the sources side, not in
the pure records layer.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import yaml

CONVENTIONAL = (
    "doc/adr",
    "docs/adr",
    "docs/decisions",
    "docs/architecture/decisions",
    "architecture-decision-record",
    "architecture-decision-records",
    "adr",
    "decisions",
)
DISCOVERY_FILES = (".adr-dir", ".log4brains.yml")  # at the repo's top: tools that declare their ADR folder


def _inside(path: str, root: Path) -> str | None:
    """`path` (relative to the repo, maybe `./x`) as a clean relative root, or None if it leaves the repo."""
    p = PurePosixPath(path.strip().replace("\\", "/"))
    if p.is_absolute() or ".." in p.parts or not str(p).strip("./"):
        return None
    return str(PurePosixPath(*[x for x in p.parts if x != "."]))


def tool_roots(repo: Path) -> list[str]:
    """adr-tools' `.adr-dir` and log4brains' `.log4brains.yml` (`adrFolder`, also per package)."""
    out = []
    adr_dir = repo / ".adr-dir"
    if adr_dir.is_file():
        try:
            out.append(adr_dir.read_text("utf-8").strip().splitlines()[0])
        except (OSError, UnicodeDecodeError, IndexError):
            pass
    l4b = repo / ".log4brains.yml"
    if l4b.is_file():
        try:
            project = (yaml.safe_load(l4b.read_text("utf-8")) or {}).get("project") or {}
            out.append(project.get("adrFolder") or "")
            out += [p.get("adrFolder") or "" for p in project.get("packages") or [] if isinstance(p, dict)]
        except (OSError, UnicodeDecodeError, yaml.YAMLError, AttributeError):
            pass
    return [r for r in (_inside(str(x), repo) for x in out if isinstance(x, str) and x.strip()) if r]


def discover_roots(repo: Path, base: tuple[str, ...] = ("knowledge",)) -> tuple[str, ...]:
    """`knowledge` plus every conventional or tool-declared ADR folder that exists; nested ones folded in."""
    found = list(base)
    for r in (*tool_roots(repo), *CONVENTIONAL):
        if (repo / r).is_dir() and r not in found:
            found.append(r)
    keep = [r for r in found if not any(o != r and (r + "/").startswith(o + "/") for o in found)]
    return tuple(keep)
