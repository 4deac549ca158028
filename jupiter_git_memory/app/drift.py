"""Evidence drift and the records governing files: each operation's request and its one run, under `jgm
drift` / `jgm governs` and the web drift queue, so the page, the CLI and CI read one report.

Answers are recall/answers.py's DriftAnswer and GovernsAnswer. Errors are typed (recall.typed_errors): an
unknown revision keeps its code, a bad one is request/bad-request.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from .limits import MAX_GOVERNS
from .paths import CWD_DOC, missing_in_view, repo_paths
from .recall import typed_errors


class DriftRequest(BaseModel):
    at: str | None = Field(None, description="Answer as of this commit, tag or branch.")
    base: str | None = Field(
        None, description="Only records whose cited code changes between this revision and HEAD (a PR)."
    )


class GovernsRequest(BaseModel):
    paths: list[str] = Field(description="Repository files (e.g. the files a change touches).")
    cwd: str | None = Field(None, description=CWD_DOC.replace("`files`", "`paths`"))
    k: int = Field(50, ge=1, le=MAX_GOVERNS, description="How many records at most.")
    at: str | None = Field(None, description="Answer as of this commit, tag or branch.")


@typed_errors
def drift(recaller, req: DriftRequest) -> dict[str, Any]:
    """Each in-force record that cites repository paths: fresh, drifted or missing (a DriftAnswer)."""
    from ..recall import evidence

    return dict(evidence.report(recaller, at=req.at, base=req.base), workspace=recaller.workspace.id)


@typed_errors
def governs(recaller, req: GovernsRequest) -> dict[str, Any]:
    """The in-force records citing `paths` (a file, a folder above it, or a glob covering it), each with how
    it covers them (a GovernsAnswer). The paths are read as app/paths.py says (one outside the repository is
    refused); one that names nothing in the view gets a warning, so an empty list means "nothing cites it"."""
    from ..recall.files import governing
    from ..records.model import IN_FORCE

    root = recaller.workspace.repo_root
    files = repo_paths(root, req.paths, req.cwd)
    got = governing(recaller, files, sorted(IN_FORCE), req.k, at=req.at)
    records = [dict(g["result"], governs=g["governs"]) for g in got.values()]
    warnings = missing_in_view(root, files, req.at)
    return {"files": files, "records": records, "warnings": warnings, "workspace": recaller.workspace.id}
