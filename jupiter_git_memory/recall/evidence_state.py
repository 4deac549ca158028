"""Each result's `evidence` (whether the code it cites moved on) and the drift weight, from the drift the
view holds (computed at seed time, seed/drift.py). Below both retrieval, which weighs and shows it, and
`jgm drift`'s report (recall/evidence.py), which reads through a Recaller.
"""

from __future__ import annotations

from typing import Any

from ..records.drift import UNCITED, drift_weight


def evidence_of(drift: dict[str, Any] | None) -> dict[str, Any]:
    """A result's `evidence`: its state, and for a drifted or missing record what moved or went."""
    if not drift:
        return {"state": UNCITED}
    out = {"state": drift["state"], "cited": drift["cited"]}
    for k in ("citations", "external", "unresolved"):  # rows stored by an older jgm lack them
        out[k] = drift.get(k, [])
    if drift["state"] not in ("fresh", "external"):
        out.update(
            changed=drift["changed"],
            commits=drift["commits"],
            uncommitted=drift["uncommitted"],
            diffstat=drift["diffstat"],
            missing=drift["missing"],
        )
    return out


def evidence_by_id(catalog, ids: list[str]) -> dict[str, dict[str, Any]]:
    """record id -> its `evidence`, from the drift the view holds."""
    drift = catalog.drift(ids)
    return {rid: evidence_of(drift.get(rid)) for rid in ids}


def attach(catalog, results: list[dict]) -> None:
    """Set `evidence` on every result (a JSON object), from the drift the view holds."""
    evidence = evidence_by_id(catalog, [r["id"] for r in results])
    for r in results:
        r["evidence"] = evidence[r["id"]]


def factors(catalog, drifted: float, missing: float) -> dict[str, float]:
    """record id -> the weight factor of its evidence state (only the ones that are not 1)."""
    out = {}
    for rid, d in catalog.drift().items():
        f = drift_weight(d["state"], drifted, missing)
        if f != 1.0:
            out[rid] = f
    return out
