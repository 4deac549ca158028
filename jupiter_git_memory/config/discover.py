"""Find the knowledge roots of a repository that has no `roots` in its config.

Teams keep decision records in conventional folders (`docs/adr`, …), in folders their tools declare
(`.adr-dir`, `.log4brains.yml`), and in folders of their own naming at any depth (`proposals/`, `text/`,
`docs/references/architecture/`, `docs_src/design/adr/`, the repository root). The first two are taken when
they exist; the others are found by what their files look like (records.formats.evidence: numbered or dated
files with a status or a decision record's sections, enough of them, and most of the folder). This reads
the file system, so it lives on the sources side, not in the pure records layer.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath

import yaml

from ..records.formats.common import folder_status
from ..records.formats.evidence import (
    MIN_RECORDS,
    MIN_SHARE,
    Evidence,
    Verdict,
    examine,
    is_template,
    judge,
    ordinary_name,
)
from ..records.formats.ids import attachment_folder, collection_number, date_named, folder_record

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
MAX_DEPTH = 8  # folder levels below the repository searched for collections
READ_BYTES = 16 * 1024  # of each Markdown file: enough for its header and first section headings
SAMPLE = 40  # files examined per folder at most (evenly spread): judging a folder needs its share, not all
# Dependencies, build output and test data: an ADR tool's own test fixtures are not its decisions.
SKIP_DIRS = frozenset(
    {"node_modules", "vendor", "third_party", "site-packages", "venv", "dist", "build", "target", "__pycache__"}
    | {"test", "tests", "testdata", "fixtures", "__tests__", "__fixtures__"}
)
_CACHE: dict[tuple[str, int, int], Evidence] = {}  # (path, mtime_ns, size) -> evidence: discovery runs often


@dataclass
class Discovery:
    """The roots discovery gives and why: one entry per folder taken, and the folders that looked like a
    collection but were not taken (with the counts), for `jgm seed`/`jgm check` to name."""

    roots: tuple[str, ...]
    shallow: tuple[str, ...] = ()  # roots read without their subfolders (the repository root)
    collections: list[dict] = field(default_factory=list)  # {root, rule, why, ...}
    near_misses: list[dict] = field(default_factory=list)


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
            out.append(adr_dir.read_text("utf-8-sig").strip().splitlines()[0])  # a BOM, CRLF: as written
        except (OSError, UnicodeDecodeError, IndexError):
            pass
    l4b = repo / ".log4brains.yml"
    if l4b.is_file():
        try:
            project = (yaml.safe_load(l4b.read_text("utf-8-sig")) or {}).get("project") or {}
            out.append(project.get("adrFolder") or "")
            out += [p.get("adrFolder") or "" for p in project.get("packages") or [] if isinstance(p, dict)]
        except (OSError, UnicodeDecodeError, yaml.YAMLError, AttributeError):
            pass
    return [r for r in (_inside(str(x), repo) for x in out if isinstance(x, str) and x.strip()) if r]


def _evidence(full: Path, rel: str) -> Evidence | None:
    try:
        st = full.stat()
        key = (str(full), st.st_mtime_ns, st.st_size)
        if key not in _CACHE:
            with full.open("rb") as f:
                text = f.read(READ_BYTES).decode("utf-8", "replace")
            _CACHE[key] = examine(rel, text)
        return _CACHE[key]
    except OSError:
        return None


def _folder_key(rel: str) -> str:
    """The collection folder a Markdown file would belong to (its numbered folder's parent for a README)."""
    parent = posixpath.dirname(rel)
    return posixpath.dirname(parent) if folder_record(rel) else parent


def markdown_files(repo: Path) -> dict[str, list[str]]:
    """Collection folder -> its Markdown files (repo-relative), down to MAX_DEPTH, hidden and dependency
    folders left out."""
    out: dict[str, list[str]] = {}
    top = repo.resolve()
    for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
        rel_dir = Path(dirpath).relative_to(top).as_posix()
        depth = 0 if rel_dir == "." else rel_dir.count("/") + 1
        dirnames[:] = sorted(
            d
            for d in dirnames
            if not d.startswith((".", "_"))
            and d not in SKIP_DIRS
            and depth < MAX_DEPTH
            and not os.path.islink(os.path.join(dirpath, d))
        )
        for fn in sorted(filenames):
            if fn.lower().endswith((".md", ".markdown")):
                rel = fn if rel_dir == "." else f"{rel_dir}/{fn}"
                out.setdefault(_folder_key(rel), []).append(rel)
    return out


def _named(rel: str) -> bool:
    name = posixpath.basename(posixpath.dirname(rel)) if folder_record(rel) else posixpath.basename(rel)
    return collection_number(name) is not None or date_named(rel)


def _sample(paths: list[str]) -> list[str]:
    if len(paths) <= SAMPLE:
        return paths
    step = len(paths) / SAMPLE
    return [paths[int(i * step)] for i in range(SAMPLE)]


def collections(repo: Path, files: dict[str, list[str]] | None = None) -> list[Verdict]:
    """Every folder judged that has a file looking like a decision record. Only folders with a numbered or
    dated Markdown name are read, and of each at most SAMPLE files, evenly spread: discovery runs whenever
    settings are loaded without `roots`."""
    top = repo.resolve()
    verdicts = []
    for folder, paths in sorted((files if files is not None else markdown_files(repo)).items()):
        if not any(_named(p) for p in paths):
            continue
        picked = _sample(paths)
        evidence = [e for p in picked if (e := _evidence(top / p, p)) is not None]
        v = judge(folder, evidence, files=len(paths) if len(picked) < len(paths) else 0)
        if v.decisions:
            verdicts.append(v)
    return verdicts


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder + "/")


def merged_parents(files: dict[str, list[str]], verdicts: list[Verdict]) -> dict[str, list[str]]:
    """Parent folder -> the collections it gathers, for a parent holding two or more collections and no
    ordinary doc anywhere below it (`keps/` over `keps/sig-node/`, `keps/sig-auth/`, …): one root, not twenty."""
    judged = {v.folder: v for v in verdicts}
    taken = [v.folder for v in verdicts if v.taken and v.folder]
    ordinary = [  # folders with Markdown that is no record; a record folder's subfolders (images/) do not count
        f
        for f, paths in files.items()
        if f not in judged
        and not any(collection_number(part) is not None for part in f.split("/")[1:])
        and any(not (ordinary_name(p) or is_template(p) or attachment_folder(p)) for p in paths)
    ]
    out: dict[str, list[str]] = {}
    parents = sorted({posixpath.dirname(t) for t in taken} - {""}, key=lambda p: p.count("/"))
    for parent in parents:
        while posixpath.dirname(parent) and not any(_under(parent, o) for o in out):
            up = posixpath.dirname(parent)
            if sum(1 for t in taken if _under(t, up)) < 2 or any(_under(o, up) for o in ordinary):
                break
            parent = up
        if any(_under(parent, o) for o in out):
            continue
        gathered = [t for t in taken if _under(t, parent) and t != parent]
        if len(gathered) >= 2 and not any(_under(o, parent) for o in ordinary):
            out[parent] = gathered
    return out


STATUS_FOLDER_RULE = "a folder named by a status beside another: proposals filed by their status, without numbers"


def status_folders(repo: Path, files: dict[str, list[str]]) -> list[dict]:
    """Folders named by a status (`accepted/`, `proposed/`, `rejected/`: the status table's words) that sit
    beside another such folder, one of them not merely proposed, holding titled Markdown files that are no
    ordinary doc or template: at least MIN_RECORDS of them, and at least MIN_SHARE of their Markdown. Each
    folder is a root (`accepted/2020/x.md` reads as accepted by its folder). Two sibling status folders, one
    of them a verdict, keep out a docs tree with a `drafts/` folder; unnumbered files are read only there."""
    top = repo.resolve()
    below: dict[str, dict[str, list[str]]] = {}  # parent -> status folder -> its Markdown files (any depth)
    for path in (p for paths in files.values() for p in paths):
        parts = path.split("/")[:-1]
        for i, name in enumerate(parts):
            if folder_status(name + "/x.md") is not None:
                folder = "/".join(parts[: i + 1])
                below.setdefault(posixpath.dirname(folder), {}).setdefault(folder, []).append(path)
                break
    out = []
    for _parent, folders in sorted(below.items()):
        statuses = {f: folder_status(posixpath.basename(f) + "/x.md")[0] for f in folders}  # type: ignore[index]
        if len(folders) < 2 or set(statuses.values()) == {"proposed"}:
            continue
        for folder, paths in sorted(folders.items()):
            plain = [p for p in paths if not (ordinary_name(p) or is_template(p))]
            titled = [e for p in _sample(plain) if (e := _evidence(top / p, p)) is not None and e.titled]
            share = len(titled) / len(_sample(plain)) if plain else 0.0
            if len(titled) >= min(MIN_RECORDS, len(plain)) and plain and share >= MIN_SHARE:
                why = (
                    f"named `{posixpath.basename(folder)}/` (read as {statuses[folder]}) beside "
                    f"{', '.join(f'`{posixpath.basename(o)}/`' for o in folders if o != folder)}; "
                    f"{len(plain)} Markdown files, {len(titled)} of {len(_sample(plain))} examined with a title"
                )
                out.append({"root": folder, "rule": STATUS_FOLDER_RULE, "why": why})
    return out


def _nested(root: str, others: list[str]) -> bool:
    return any(o != root and (o in ("", ".") or (root + "/").startswith(o + "/")) for o in others)


def discover(repo: Path, base: tuple[str, ...] = ("knowledge",)) -> Discovery:
    """`knowledge`, every conventional or tool-declared ADR folder that exists, and every folder whose files
    make a decision collection; a root inside another root is folded into it (the repository root is read
    without its subfolders, so it folds nothing)."""
    found: list[str] = list(base)
    entries: list[dict] = []
    for r in tool_roots(repo):
        if (repo / r).is_dir() and r not in found:
            found.append(r)
            entries.append({"root": r, "rule": "named by `.adr-dir` or `.log4brains.yml`", "why": ""})
    for r in CONVENTIONAL:
        if (repo / r).is_dir() and r not in found:
            found.append(r)
            entries.append({"root": r, "rule": "a conventional ADR folder", "why": ""})
    near: list[dict] = []
    files = markdown_files(repo)
    verdicts = collections(repo, files)
    for v in verdicts:
        root = v.folder or "."
        if not v.taken:
            near.append({"root": root, **asdict(v), "why": v.why})
            continue
        if root not in found:
            found.append(root)
        entries = [e for e in entries if e["root"] != root]
        entries.append({"root": root, "rule": v.rule, "why": v.why})
    for entry in status_folders(repo, files):
        if entry["root"] not in found:
            found.append(entry["root"])
            entries.append(entry)
    for parent, gathered in merged_parents(files, verdicts).items():
        if parent not in found:
            found.append(parent)
        n = sum(v.decisions for v in verdicts if _under(v.folder, parent))
        entries.append(
            {
                "root": parent,
                "rule": "a folder of decision collections: only numbered decision records below it",
                "why": f"{len(gathered)} collections below it ({', '.join(gathered[:3])}"
                + (f" and {len(gathered) - 3} more" if len(gathered) > 3 else "")
                + f"), {n} decision records examined",
            }
        )
    deep = [r for r in found if r != "."]
    keep = [r for r in found if r == "." or not _nested(r, deep)]
    near = [n for n in near if not _nested(n["root"], [r for r in keep if r != "."])]
    by_root = {e["root"]: e for e in entries}
    return Discovery(
        roots=tuple(keep),
        shallow=(".",) if "." in keep else (),
        collections=[by_root[r] for r in keep if r in by_root],
        near_misses=near,
    )


def discover_roots(repo: Path, base: tuple[str, ...] = ("knowledge",)) -> tuple[str, ...]:
    """The roots `discover` gives (kept for callers that need only them)."""
    return discover(repo, base).roots


def _roots_line(roots: list[str]) -> str:
    import json

    return f"roots = {json.dumps(roots)}"


def discovery_notes(settings) -> list[str]:
    """Folders discovery saw that look like a decision collection but were not taken, each with the `roots`
    line (valid TOML, every current root kept: `roots` replaces discovery) that reads it. Nothing when
    `roots` is configured: the team chose its roots."""
    if settings.roots_configured:
        return []
    roots = list(settings.roots)
    out = []
    for n in (settings.discovered or {}).get("near_misses", []):
        out.append(
            f"{n['root']} looks like a decision collection ({n['why']}) but was not taken: it needs "
            f"{MIN_RECORDS} such files, half of its Markdown files; to index it, set in jgm.toml: "
            + _roots_line([*roots, n["root"]])
        )
    return out
