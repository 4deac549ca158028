"""Rendering helpers for the UI templates: untrusted Markdown, ages, and a record's status explanation.

Why markdown-it with `html` off: agents write candidates, so every body is untrusted. With raw HTML
disabled a `<script>` or `<img onerror=…>` in a body is emitted as escaped text, and markdown-it's
link validation drops `javascript:`/`vbscript:`/`data:` URLs. The page's Content-Security-Policy
(no inline script) is the second fence.
"""

from __future__ import annotations

import time
from typing import Any

from markdown_it import MarkdownIt
from markupsafe import Markup

_md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable("table")


def markdown(text: str | None) -> Markup:
    """Safe HTML for untrusted Markdown (raw HTML escaped, dangerous link schemes dropped)."""
    return Markup(_md.render(text or ""))


def age(ts: float | None, now: float | None = None) -> str:
    """'3 min', '5 h', '2 d' — how long a candidate has waited."""
    if not ts:
        return "—"
    s = max(0, (now or time.time()) - float(ts))
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if s >= size:
            return f"{int(s // size)} {unit}"
    return f"{int(s)} s"


def when(ts: float | None) -> str:
    if not ts:
        return "—"
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(float(ts)))


def short(sha: str | None, n: int = 10) -> str:
    return (sha or "")[:n] or "—"


IN_FORCE_WORD = {"accepted": "accepted", "verified": "verified"}


def status_why(rec: dict[str, Any], rel: dict[str, Any] | None) -> str:
    """Why a record has its effective status, in one sentence (e.g. 'superseded by ADR-0015 (accepted)')."""
    eff, declared = rec.get("status"), rec.get("declared_status")
    rel = rel or {}
    retiring = [e for e in rel.get("superseded_by", []) if e.get("retires")]
    pending = [e for e in rel.get("superseded_by", []) if not e.get("retires") and not e.get("missing")]
    if rec.get("origin") == "candidate":
        state = rec.get("state") or "open"
        if state == "rejected":
            return f"a rejected candidate: {rec.get('reason') or 'no reason given'}"
        if state == "promoted":
            return f"a candidate promoted to {rec.get('promoted_to')}: the file record is what recall returns"
        return (
            f"a candidate ({state}) recorded by an agent: outside default recall until a reviewer merges its proposal"
        )
    if eff == "superseded" and retiring:
        return "superseded by " + ", ".join(
            f"{e['id']} ({e.get('declared_status') or e.get('status')})" for e in retiring
        )
    if eff == "superseded":
        return f"declared {declared} in its file"
    if eff == "invalidated":
        return "declared false: kept for explicit queries, never recalled by default"
    text = f"declared {declared}" if declared == eff else f"declared {declared}, resolved to {eff}"
    if pending:
        text += (
            "; " + ", ".join(f"{e['id']} ({e.get('status')})" for e in pending) + " would supersede it once in force"
        )
    elif eff in IN_FORCE_WORD:
        text += "; nothing in force supersedes it"
    return text
