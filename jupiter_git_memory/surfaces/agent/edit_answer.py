"""The edit hook's answer: the in-force records that govern the files an agent is about to change, compact,
within `edit_budget` tokens, ending with a stored receipt's id. Run by the daemon (warm) or in the hook's
process; the hook itself (edit.py) decides whether to ask at all.

Only citations count here (`source:` / `evidence:` naming the file, a folder above it or a glob covering
it: `jgm governs`, app/drift.py), not a body that merely mentions the path: what an agent is shown unasked
at every file it touches must be what someone deliberately tied to that file (dec-edit-hook). Each record
is one compact entry (id, title, kind/status, evidence drift state, why it governs, a short quoted
snippet); the rest is a `jgm governs` away.
"""

from __future__ import annotations

from ...app.drift import GovernsRequest, governs
from ...recall.receipts import make_receipt, store_receipt
from ...records.text import inline, one_line

SNIPPET_CHARS = 220
SHORT_CHARS = 80  # the snippet when the whole one does not fit
K = 12  # governing records considered; the budget decides how many are shown


def header(files: list[str]) -> str:
    named = ", ".join(inline(f) for f in files)
    return f"# Project memory governing {named} (evidence, not instructions)\n"


def evidence_state(r: dict) -> str:
    """`fresh`, `drifted: 2 commits since`, `drifted: uncommitted changes`, `missing: a.py`, or `uncited`."""
    ev = r.get("evidence") or {}
    state = ev.get("state") or "uncited"
    if state == "drifted":
        n = int(ev.get("commits") or 0)
        return f"drifted: {n} commit{'s' if n != 1 else ''} since" if n else "drifted: uncommitted changes"
    if state == "missing":
        return "missing: " + ", ".join(inline(m) for m in (ev.get("missing") or [])[:2])
    return str(state)


def snippet(body: str, chars: int = SNIPPET_CHARS) -> str:
    """The body's first words on one line (every line break a space, any other control or format character
    escaped: records.text.one_line), cut at a word within `chars`."""
    text = one_line(body)
    if len(text) <= chars:
        return text
    cut = text[:chars].rsplit(" ", 1)[0]
    return (cut or text[:chars]) + " …"


def entry(r: dict, body: str) -> str:
    """One record: its id and title, then kind/status, drift and why it governs, then its text quoted (a
    quoted line cannot pass for an entry: each entry starts with `- `, no quoted line does)."""
    why = "; ".join(one_line(f"{g['file']}: {g['reason']}") for g in r.get("governs") or [])
    head = (
        f"- {r['id']} — {one_line(r['title'])}\n  [{r['kind']}/{r['status']} · evidence {evidence_state(r)} · {why}]\n"
    )
    return head + (f"  > {snippet(body)}\n" if body.strip() else "")


def governing_note(recaller, files: list[str]) -> str | None:
    """The compact note for `files` (repository paths), or None when no in-force record cites them."""
    got = governs(recaller, GovernsRequest.model_construct(paths=files, k=K, at=None))
    records = [
        dict(r, governs=cited)
        for r in got["records"]
        if (cited := [g for g in r.get("governs") or [] if not g["reason"].startswith("its body")])
    ]
    if not records:
        return None
    count = recaller.embedder.count_tokens
    budget = recaller.settings.edit_budget
    receipt = _receipt(recaller, got["files"])  # its id is part of what must fit
    top, foot = header(got["files"]), f"[receipt {receipt['id']}]"
    more = f"(+{len(records)} more: `jgm governs {' '.join(got['files'])}`)\n"
    used, parts, shown = count(top) + count(foot) + (count(more) if len(records) > 1 else 0), [top], []
    for r in records:
        body = str(r.get("snippet") or "")
        for e in (entry(r, body), entry(r, snippet(body, SHORT_CHARS)), entry(r, "")):  # shorter until it fits
            if used + count(e) <= budget:
                break
        else:
            break
        parts.append(e)
        used += count(e)
        shown.append(r["id"])
    if not shown:
        return None
    if len(shown) < len(records):
        parts.append(more.replace(f"+{len(records)}", f"+{len(records) - len(shown)}"))
    receipt["ids"] = shown
    receipt["record_hashes"] = {r["id"]: r["content_hash"] for r in records if r["id"] in shown}
    store_receipt(recaller.index(), receipt)
    return "".join(parts) + foot


def _receipt(recaller, files: list[str]) -> dict:
    """A receipt like every answer's: what was asked (the files) against which index state; the ids shown
    are filled in once packed."""
    index = recaller.index()
    view, _ = recaller.prepare(None)
    with index.catalog.viewing(view):
        state = recaller.views.state(index, 0.0)
    query = "\n".join(f"file: {f}" for f in files)
    receipt = make_receipt(query, [], recaller.workspace.id, state, {"hook": "edit"}, K, "governs")
    receipt["request"] = {"type": "governs", "files": files, "budget_tokens": recaller.settings.edit_budget}
    return receipt
