"""`jgm check`: citations that name nothing, now or at the record's baseline (docs/drift.md).

Such a citation is no drift (drift's `missing` is a path that existed at the baseline and is gone): it is a
wrong path, line or symbol, reported here with the record's file, the line of its `source:`/`evidence:`
key and the fix. Evidence outside the repository (records/citations.external_path: a first folder the
repository never had, an absolute path, a URL) is not reported.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..base import error_codes as E
from ..git.drift import GitTexts
from ..git.listing import last_commits, worktree_files
from ..git.revisions import head_commit
from ..records import regions
from ..records.citations import REGION_KINDS, Citation, external_path, parse
from ..records.model import Issue, Record
from ..records.pathset import PathSet

FIX = (
    "correct it to a path the repository has (`git ls-files | grep NAME`), written `path`, `path:22`, "
    "`path:10-40` or `path::name`; evidence outside the repository is a URL or an absolute path"
)


def citation_warnings(root: Path, records: Iterable[Record]) -> list[Issue]:
    """A warning per citation of a record that names nothing in the worktree nor at the record's baseline."""
    records = [r for r in records if r.citations]
    if not records:
        return []
    listed = worktree_files(root)
    files, head = PathSet(listed), head_commit(root)
    texts = GitTexts(root, head, True, listed)
    suspect = [(r, ref, c) for r in records for ref in r.citations if _suspect(c := parse(ref), files, texts)]
    # the baselines (one `git log` over the records' files) only for the records with a suspect citation
    bases = last_commits(root, head, sorted({r.path for r, _, _ in suspect})) if head and suspect else {}
    out = []
    for r, ref, c in suspect:
        problem = _problem(c, files, bases.get(r.path), texts)
        if not problem:
            continue
        key = "source" if ref in (r.source or "").split(", ") else "evidence"
        out.append(
            Issue(
                r.path,
                f"`{key}` cites {ref}: {problem}, now and at the record's baseline (so it is no drift)",
                FIX,
                severity="warning",
                line=r.lines.get(key),
                record_id=r.id,
                code=E.CHECK_UNRESOLVED_CITATION.code,
            )
        )
    return out


def _suspect(c: Citation, files: PathSet, texts: GitTexts) -> bool:
    """Whether the citation fails to name something in the worktree (then its baseline is asked)."""
    if c.external or not c.path:
        return False
    if c.kind not in REGION_KINDS:
        return not files.names_any(c.path)
    text = texts.text(None, c.path) if files.has(c.path) else None
    if text is None:
        return True
    if c.symbol is not None:
        return regions.symbol_span(text, c.path, c.symbol) is None
    return len(regions.lines_of(text)) < (c.end or 0)


def _problem(c: Citation, files: PathSet, base: str | None, texts: GitTexts) -> str | None:
    """What the citation fails to name, or None when it names something (now or at the baseline)."""
    assert c.path is not None
    at_base = PathSet(texts.paths_at(base)) if base else PathSet(())
    exists = files.has(c.path) if c.kind in REGION_KINDS else files.names_any(c.path)
    if not exists:
        if at_base.names_any(c.path):
            return None  # it existed at the baseline: drift says `missing`
        top = c.path.split("/", 1)[0] if "/" in c.path.rstrip("/") else ""
        if external_path(c.path, top == "" or texts.ever_had(top)):
            return None
        return f"{c.path} does not exist"
    if c.kind not in REGION_KINDS:
        return None
    versions = [t for t in (texts.text(None, c.path), texts.text(base, c.path) if base else None) if t is not None]
    if c.symbol is not None:
        if any(regions.symbol_span(t, c.path, c.symbol) for t in versions):
            return None
        return f"{c.path} declares no `{c.symbol}`"
    if any(len(regions.lines_of(t)) >= (c.end or 0) for t in versions):
        return None
    return f"{c.path} has no line {c.end}"
