"""Receipts: what was asked, against which index state, and what came back — stored append-only."""

from __future__ import annotations

import hashlib
import time
import uuid
from typing import Any

from .. import PROVIDER, __version__
from ..base import error_codes as E
from ..base.errors import OperationError
from ..index.catalog import Catalog, CatalogChanges
from ..index.handle import Index
from ..index.writer import WritePlan, apply_plan


def normalise_query(q: str) -> str:
    return " ".join(q.lower().split())


def query_hash(q: str) -> str:
    return hashlib.sha256(normalise_query(q).encode("utf-8")).hexdigest()


def make_receipt(
    query: str, ids: list[str], workspace: str, index_state: dict[str, Any], filters: dict[str, Any], k: int, mode: str
) -> dict[str, Any]:
    return {
        "id": "rcpt_" + uuid.uuid4().hex[:20],
        "query_sha256": query_hash(query),
        "query": query,
        "ids": ids,
        "provider": {"name": PROVIDER, "version": __version__},
        "index": index_state,
        "workspace": workspace,
        "filters": filters,
        "k": k,
        "mode": mode,
        "timestamp": time.time(),
    }


def answer_receipt(
    query: str,
    results: list[dict[str, Any]],
    workspace: str,
    index_state: dict[str, Any],
    filters: dict[str, Any],
    k: int,
    mode: str,
) -> dict[str, Any]:
    """A recall answer's receipt: its ids, and each record's content hash (what `jgm verify` compares)."""
    receipt = make_receipt(query, [r["id"] for r in results], workspace, index_state, filters, k, mode)
    receipt["record_hashes"] = {r["id"]: r["content_hash"] for r in results}
    return receipt


def store_receipt(index: Index, receipt: dict[str, Any]) -> None:
    """Append through the one write path (a receipt changes no answer, so no reader has to reopen)."""
    apply_plan(index, WritePlan(catalog=CatalogChanges(receipts=[receipt])), None)


def get_receipt(catalog: Catalog, rid: str) -> dict[str, Any] | None:
    return catalog.receipt(rid)


def require_receipt(catalog: Catalog, rid: str, workspace: str) -> dict[str, Any]:
    """The stored receipt, or `memory/not-found` naming the workspace (every surface reports it alike)."""
    rec = get_receipt(catalog, rid)
    if rec is None:
        raise OperationError(E.MEMORY_NOT_FOUND, f"no receipt {rid!r} in workspace {workspace}", exit_code=1, id=rid)
    return rec


def explain_difference(old: dict[str, Any], new: dict[str, Any], changed_records: list[str]) -> list[str]:
    """Why a re-run returned other ids: the reasons a reader can act on."""
    why = []
    o, n = old["index"], new["index"]
    if o.get("identity") != n.get("identity"):
        why.append(f"different model identity ({o.get('identity')} → {n.get('identity')})")
    if o.get("view") and o.get("view") != n.get("view"):
        why.append(f"answered from another view ({o.get('view')} → {n.get('view')})")
    if o.get("commit") != n.get("commit"):
        why.append(f"new commit seeded ({(o.get('commit') or '')[:12]} → {(n.get('commit') or '')[:12]})")
    if o.get("dirty") != n.get("dirty"):
        why.append("working-tree changes differ from the receipt's")
    if o.get("floor") != n.get("floor"):
        why.append(f"floor changed ({o.get('floor')} → {n.get('floor')})")
    if changed_records:
        why.append("records changed since the receipt: " + ", ".join(changed_records[:10]))
    if o.get("generation") != n.get("generation") and not why:
        why.append("the index was reseeded since the receipt")
    return why
