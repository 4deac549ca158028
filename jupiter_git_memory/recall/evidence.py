"""`jgm drift`'s report: every cited in-force record with its evidence state (recall/evidence_state.py),
or the ones a change touches, as JSON or a pull-request comment.

The states are computed at seed time and kept with the view (seed/drift.py); a worktree report recomputes
them first when the worktree's `git status` moved since (an uncommitted edit to cited code moves no view
fingerprint), without writing: a reader holds only the shared lock.
"""

from __future__ import annotations

import re
from typing import Any

from ..base.store import workspace_lock
from ..git import drift as drift_git
from ..index.failures import index_failures
from ..records.drift import STATES, PathSet
from ..records.formats.reviewed import reviewed_text
from ..records.text import inline
from ..seed.drift import view_drift
from .errors import RecallError
from .evidence_state import evidence_of
from .service import Recaller

FAIL_ON = ("drifted", "missing", "never")


def report(recaller: Recaller, at: str | None = None, base: str | None = None) -> dict[str, Any]:
    """`jgm drift`: every cited in-force record of the view with its state; with `base` only the records
    whose cited paths the changes `base...HEAD` touch (each with the files it touched)."""
    view, warnings = recaller.prepare(at)
    root = recaller.workspace.repo_root
    with workspace_lock(recaller.wsdir, exclusive=False), recaller.index().catalog.viewing(view):
        index = recaller.ensure_seeded()
        cat = index.catalog
        try:
            rows = cat.records()
            drift = cat.drift()
            v = cat.get_view() or {}
            if not at:  # uncommitted edits since the last seed: recomputed, not stored
                key = v.get("drift_key") or ""
                _key, fresh = view_drift(root, v.get("commit_sha"), True, rows, key, stored=lambda: drift)
                if fresh is not None:
                    drift = {d["id"]: d for d in fresh}
        except index_failures() as e:
            raise RecallError(f"index unavailable: {e}") from e
    touched: dict[str, list[str]] = {}
    if base:
        from ..git.revisions import UnknownRevision, resolve_commit

        try:
            resolve_commit(root, base)  # names a bad REV (revision/not-found)
        except UnknownRevision as e:
            raise UnknownRevision(f"--base {e.message}") from None
        changed = PathSet(drift_git.changed_between(root, base, v.get("commit_sha") or "HEAD"))
        for rid, d in drift.items():
            got = sorted({p for ref in d["cited"] for p in changed.covered(ref)})
            if got:
                touched[rid] = got
    records = []
    for rid in sorted(touched if base else drift):
        d, row = drift[rid], rows.get(rid)
        entry = {
            "id": rid,
            "title": row.title if row else rid,
            "kind": row.kind if row else "",
            "status": row.effective_status if row else "",
            "path": row.path if row else None,
            "commit": row.commit_sha if row else None,
            "baseline": (d.get("basis") or {}).get("commit"),
            "reviewed": reviewed_text(row.data) if row else None,
            **evidence_of(d),
        }
        entry.setdefault("changed", [])
        if base:
            entry["touched"] = touched[rid]
        records.append(entry)
    counts = {s: sum(1 for r in records if r["state"] == s) for s in STATES}
    return {
        "view": view,
        "commit": v.get("commit_sha"),
        "base": base,
        "records": records,
        "counts": counts,
        "warnings": warnings,
    }


def failed(rep: dict[str, Any], fail_on: str) -> bool:
    """Whether `--fail-on` fails this report: `drifted` fails on drifted or missing, `missing` on missing."""
    if fail_on not in FAIL_ON:
        raise ValueError(f"--fail-on must be one of {', '.join(FAIL_ON)}, not {fail_on!r}")
    c = rep["counts"]
    return fail_on == "drifted" and bool(c["drifted"] or c["missing"]) or fail_on == "missing" and bool(c["missing"])


def md_code(text: object) -> str:
    """Untrusted text (a title, a path, a commit subject or author) in a Markdown table cell as a code span:
    nothing in it renders (links, images, bold "safe to merge", @-mentions, HTML), a backtick cannot close the
    span (the fence is longer than any backtick run in it), line breaks and hidden characters are escapes
    (records.text.inline) and a `|` cannot end the cell (issue 35, item 18)."""
    s = inline(text).replace("|", "\\|")
    run = max((len(m) for m in re.findall(r"`+", s)), default=0)
    fence = "`" * (run + 1)
    pad = " " if s.startswith("`") or s.endswith("`") or not s.strip(" ") else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def diff_command(since: str | None, head: str | None, paths: list[str]) -> str:
    """`git diff SINCE HEAD -- PATHS` to paste into a shell: each path quoted (shlex), so a cited path holding
    `$(…)`, backticks, `;` or a line break is one literal argument, never a command (issue 35, item 18)."""
    import shlex

    quoted = " ".join(shlex.quote(p) for p in paths)
    return f"git diff {(since or 'HEAD')[:12]} {(head or 'HEAD')[:12]} -- {quoted}"


def markdown(rep: dict[str, Any], diff_url: str | None = None) -> str:
    """The report as a pull-request comment; every value that comes from the repository is a code span."""
    recs = rep["records"]
    if rep["base"]:
        head = f"### jgm: this change touches code cited by {len(recs)} in-force record{'s' * (len(recs) != 1)}"
    else:
        c = rep["counts"]
        head = f"### jgm evidence drift: {c['drifted']} drifted, {c['missing']} missing, {c['fresh']} fresh"
    if not recs:
        return head + "\n\nNo in-force record cites the changed code.\n" if rep["base"] else head + "\n"
    lines = [head, "", "| record | state | cited | since |", "|---|---|---|---|"]
    for r in recs:
        cited = ", ".join(md_code(p) for p in (r.get("touched") or r["cited"]))
        since = "; ".join(
            f"{md_code(c['sha'][:8])} {md_code(c['subject'])} ({md_code(c['author'])})" for c in r["changed"][:3]
        )
        if r.get("missing"):
            since = "gone: " + ", ".join(md_code(p) for p in r["missing"])
        elif r.get("uncommitted"):
            since = (since + "; " if since else "") + "uncommitted changes"
        lines.append(f"| **{r['id']}** {md_code(r['title'])} | {r['state']} | {cited} | {since} |")  # ids: ID_PATTERN
    lines += [
        "",
        "Update or supersede each record, or re-read it against the code and run `jgm drift confirm ID` "
        "(one `reviewed:` line to commit): it is fresh until its cited code changes again.",
    ]
    return "\n".join(lines) + "\n"
