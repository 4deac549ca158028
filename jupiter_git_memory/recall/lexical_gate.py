"""The lexical gate below the floor, measured with the same probes as the floor (dec-lexical-gate-below-floor).

Why: a model whose cosines sit in a narrow band (multilingual-e5 over Chinese records) puts many right
answers between the probes' median and the floor, where the cosines of questions the knowledge base cannot
answer sit too: the cosine alone cannot tell them apart there, so the floor cut them all. Words can. The
probes say how much lexical evidence an unanswerable question reaches against *this* corpus in that range:
the gate is the largest IDF mass (ranking.idf_mass, the corroboration measure) any probe's record reached
with a cosine above the probes' median. Below the floor and above the median, a record is admitted only with
strictly more mass than that; at or below the median, never. Measured per probe language with the floor, so
nothing is fitted to a question set, and a workspace without a calibration has no gate (the floor alone).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..records.language import CJK
from ..records.lexical import bigram_runs
from .ranking import fts_terms, idf_mass

MASS_DECIMALS = 2  # the gate is stored rounded up at this precision: a mass must exceed it
# Measured only for questions written in CJK, where the lexical evidence is bigrams of the script the
# records are written in and e5's cosines are compressed. On an English corpus (KEPs, MiniLM) the probes
# share fewer words with the records than in-domain questions do: the gate admitted 3 right records of 60.
GATED_LANGUAGES = CJK


def probe_gate(catalog: Any, probes: list[str], record_cosines: list[dict[str, float]], start: float) -> dict:
    """{"from": start, "mass": the largest IDF mass a probe reached on a record whose cosine for it is above
    `start`, "probe", "record"}. `record_cosines[i]` maps record id -> best chunk cosine for probes[i]."""
    n = catalog.record_count()
    best = (0.0, None, None)
    for probe, cosines in zip(probes, record_cosines, strict=True):
        near = {rid for rid, c in cosines.items() if c > start}
        terms = fts_terms(probe)
        if not near or not terms:
            continue
        mass = idf_mass(terms, catalog.term_records(terms), n, bigram_runs(probe))
        for rid in near:
            if mass.get(rid, 0.0) > best[0]:
                best = (mass[rid], probe, rid)
    scale = 10**MASS_DECIMALS
    return {
        "from": round(start, 4),
        "mass": float(np.ceil(round(best[0] * scale, 6)) / scale),
        "probe": best[1],
        "record": best[2],
    }


def gate_of(entry: dict[str, Any] | None) -> tuple[float, float] | None:
    """(from, mass) of a language's stored calibration, None when it has none (measured before the gate)."""
    g = (entry or {}).get("lexical_gate")
    if isinstance(g, dict) and isinstance(g.get("from"), (int, float)) and isinstance(g.get("mass"), (int, float)):
        return float(g["from"]), float(g["mass"])
    return None


def _stored(entry: dict[str, Any] | None, key: str, figure: str) -> float | None:
    """`entry[key][figure]` of a language's stored calibration when it is a number, else None (null where it
    does not apply, or absent: measured before it existed)."""
    g = (entry or {}).get(key)
    return float(g[figure]) if isinstance(g, dict) and isinstance(g.get(figure), (int, float)) else None


def cross_gate_of(entry: dict[str, Any] | None) -> float | None:
    """The cross-language gate's mass of a language's stored calibration (recall/cross_language.py), None
    when it has none (no record in the other language, no dictionary, or measured before it existed)."""
    return _stored(entry, "cross_gate", "mass")


def cross_floor_of(entry: dict[str, Any] | None) -> float | None:
    """The floor a language's questions have over records in the other language (calibrate._pair_floor),
    None when it has none (one language only, or measured before it existed)."""
    return _stored(entry, "cross_floor", "floor")
