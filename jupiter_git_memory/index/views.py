"""Views: which record versions, at which effective status, are in force for one checkout.

A worktree's view (`wt:<root>`) follows its HEAD plus uncommitted changes; an `--at` view (`at:<sha>`)
is a commit read from Git objects. Views share content and vectors (dec-views-over-shared-vectors), so a
view costs one small row per record. Freshness: a worktree view stores a fingerprint of the git state it
was built from (git/state.fingerprint); a read that finds another fingerprint refreshes the view first, so
`git reset --hard` or a cherry-pick without hooks is still seen.
"""

from __future__ import annotations

from pathlib import Path


def worktree_view(root: Path | str) -> str:
    return f"wt:{Path(root).resolve()}"


def at_view(commit: str) -> str:
    return f"at:{commit}"


def stale_views(views: list[dict], keep_at: int, current: str | None) -> list[str]:
    """Views to drop: worktree views whose folder is gone (`git worktree remove`), and `--at` views beyond
    the `keep_at` most recently used. Dropping a view deletes only what no other view holds."""
    drop = [
        v["name"]
        for v in views
        if v["kind"] == "worktree" and v["name"] != current and not (v.get("root") and Path(v["root"]).is_dir())
    ]
    ats = sorted((v for v in views if v["kind"] == "at" and v["name"] != current), key=lambda v: -v["used_at"])
    budget = max(keep_at - (1 if current and current.startswith("at:") else 0), 0)
    return drop + [v["name"] for v in ats[budget:]]
