"""`jgm receipt verify`: run a receipt's request again and say whether the same ids come back, and why not."""

from __future__ import annotations

from .receipts import explain_difference, require_receipt
from .service import Recaller


def verify_receipt(recaller: Recaller, receipt_id: str, on_commit: bool = False) -> dict:
    """Replay a receipt. An `--at` receipt replays on its commit; `on_commit` replays any recall receipt on
    the commit its view stood on (a worktree receipt's uncommitted changes are not in Git, so cannot be)."""
    catalog = recaller.index().catalog
    old = require_receipt(catalog, receipt_id, recaller.workspace.id)
    req = old.get("request") or {"type": "recall"}
    if req.get("text_kept") is False:
        raise ValueError(
            f"receipt {receipt_id} is a prompt hook's: it keeps the prompt's hash, not its text, so there is "
            "nothing to replay; `jgm receipt show` lists what it returned"
        )
    if req.get("type") == "governs":  # the edit hook's: once per file and session, within its budget
        raise ValueError(
            f"receipt {receipt_id} is an edit hook's: `jgm receipt show` lists what it showed, "
            f"`jgm governs {' '.join(req.get('files') or ['FILE'])}` what governs those files now"
        )
    if req.get("type") == "index":  # the session index: counts and the most cited decisions, no question
        raise ValueError(f"receipt {receipt_id} is a session index's: `jgm receipt show` lists what it named")
    at = old["index"].get("at") or (old["index"].get("commit") if on_commit else None)
    if on_commit and not at:
        raise ValueError(f"receipt {receipt_id} names no commit to replay on (the repository had none)")
    if at and req["type"] != "recall":
        raise ValueError(f"receipt {receipt_id} is a {req['type']} receipt: only recall receipts replay on a commit")
    if req["type"] == "task":
        from .task import recall_task

        new = recall_task(
            recaller,
            req["goal"],
            req.get("errors", ()),
            req.get("files", ()),
            k=old["k"],
            store=False,
            statuses=req.get("statuses"),
        )["receipt"]
    elif req["type"] == "context":
        from .context import build_context

        new = build_context(
            recaller,
            req["goal"],
            req["budget_tokens"],
            k=old["k"],
            store=False,
            files=req.get("files", ()),
            errors=req.get("errors", ()),
            statuses=req.get("statuses"),
            fallback=req.get("fallback"),  # the hooks' packs never fall back
        )["receipt"]
    else:
        f = old.get("filters", {})
        asked = f["asked_statuses"] if "asked_statuses" in f else f.get("statuses")  # None: the defaults (and fallback)
        new = recaller.recall(
            old["query"],
            k=old["k"],
            kinds=f.get("kinds") or None,
            statuses=asked or None,
            mode=old.get("mode"),
            store=False,
            at=at,
        ).receipt
    catalog = recaller.index().catalog  # the recall may have refreshed the index
    with catalog.viewing(new["index"]["view"]):
        current = catalog.records_by_ids(old.get("record_hashes", {}).keys())
    changed = sorted(
        rid for rid, h in old.get("record_hashes", {}).items() if rid not in current or current[rid].content_hash != h
    )
    same = new["ids"] == old["ids"]
    reasons = [] if same else explain_difference(old, new, changed)
    if not same and not reasons:
        reasons = ["other records now rank differently (no index change recorded)"]
    return {
        "receipt": receipt_id,
        "same": same,
        "old_ids": old["ids"],
        "new_ids": new["ids"],
        "reasons": reasons,
        "changed_records": changed,
        "old_index": old["index"],
        "new_index": new["index"],
    }
