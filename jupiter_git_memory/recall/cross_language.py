"""The cross-language gate: a question answered by a record written in the other language, on words alone.

Why: the floor is measured per question language, and an English question's cosines against Chinese
records (or a Chinese question's against English ones) sit far below it whether the record answers it or
not, so the contract kept every such answer empty (zh eval set: 1 English question of 12 answered). Words
still tell: the English terms teams mix into Chinese text, and the question's words translated through
CC-CEDICT (recall/translation.py). A record's mass is the sum over the question's units of the best IDF a
unit's target reaches in it, in the unit `ranking.idf_mass` uses (ln(N+1)); only records written in the
other language count. What a match is worth is measured, not chosen: the gate is the largest mass any
shipped probe of the question's language (questions this knowledge base cannot answer) reached on such a
record; when nothing passed the floor, the one record with strictly more mass than that is admitted, and
says so. Records in the band just above the floor count these words as corroboration too. A knowledge base
with no record in the other language has no gate (dec-cross-language-gate).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np

from ..records.language import EN, ZH, language_of
from ..records.lexical import CJK_RUN
from .lexical_gate import MASS_DECIMALS
from .ranking import Hit, weight
from .translation import Unit, available, units

PAIRS = {EN: ZH, ZH: EN}  # question language -> the records' language the dictionary translates it into
MAX_RECORDS_READ = 12  # records whose language is read per question, in mass order (the rest cannot win)


def masses(catalog: Any, question: list[Unit]) -> dict[str, tuple[float, list[str]]]:
    """record id -> (mass, the targets that counted), over every record holding a unit's target."""
    holders = catalog.term_records(_targets(question)) if question else {}
    return weigh(question, catalog.record_count(), {t: len(h) for t, h in holders.items()}, holders)


def weigh(
    question: list[Unit], n: int, df: dict[str, int], holders: dict[str, set[str]]
) -> dict[str, tuple[float, list[str]]]:
    """record id -> (mass, the targets that counted) for the records in `holders` (target -> records holding
    it: all of them, or only those asked about), with `df` each target's record count out of `n` records."""
    if n <= 0 or not question:
        return {}
    scale = math.log(n + 1)
    out: dict[str, tuple[float, list[str]]] = {}
    for u in question:
        best: dict[str, tuple[float, str]] = {}
        for t in u.targets:
            rids = holders.get(t) or set()
            w = max(math.log((n + 1) / (df.get(t, len(rids)) + 0.5)) / scale, 0.0) if rids else 0.0
            for rid in rids:  # a word the record holds counts once, whichever units translate to it
                if w > best.get(rid, (0.0, ""))[0] and t not in out.get(rid, (0.0, []))[1]:
                    best[rid] = (w, t)
        for rid, (w, t) in best.items():
            mass, terms = out.get(rid, (0.0, []))
            out[rid] = (mass + w, [*terms, t])
    return out


def _targets(question: list[Unit]) -> list[str]:
    return sorted({t for u in question for t in u.targets})


def written_in(catalog: Any, rids: list[str], language: str) -> list[str]:
    """Those of `rids` written in `language` (their title and chunks' text), in their order."""
    rows = catalog.records_by_ids(rids)
    texts: dict[str, list[str]] = {rid: [rows[rid].title] for rid in rids if rid in rows}
    for c in catalog.chunks(list(texts)).values():
        texts[c.record_id].append(c.body)
    return [rid for rid in rids if rid in texts and language_of(" ".join(texts[rid])) == language]


def _ranked(found: dict[str, tuple[float, list[str]]]) -> list[str]:
    return sorted(found, key=lambda r: (-found[r][0], r))


def probe_gate(catalog: Any, probes: list[str], language: str, others: int) -> dict[str, Any] | None:
    """{"mass": the largest mass a probe in `language` reached on a record written in the other language,
    "probe", "record", "terms", "records": `others`, how many are (`record_languages`)}; None without the dictionary,
    for a language it does not translate, or with no such record."""
    target = PAIRS.get(language)
    if target is None or not others or not available():
        return None
    best: tuple[float, str | None, str | None, list[str]] = (0.0, None, None, [])
    for probe in probes:
        found = masses(catalog, units(probe))
        top = written_in(catalog, _ranked(found)[:MAX_RECORDS_READ], target)
        if top and found[top[0]][0] > best[0]:
            best = (found[top[0]][0], probe, top[0], found[top[0]][1])
    scale = 10**MASS_DECIMALS
    mass = float(np.ceil(round(best[0] * scale, 6)) / scale)
    return {"mass": mass, "probe": best[1], "record": best[2], "terms": best[3], "records": others}


def bilingual(counts: Counter[str]) -> bool:
    """Whether records are written in both languages of the pair (counted from `record_languages`), where the gate is measured and
    used: on the Chinese set every cross-language answer it gave was right; in a one-language knowledge
    base it was never measured, so it stays off there."""
    return counts[ZH] > 0 and counts[EN] > 0


def record_languages(catalog: Any) -> dict[str, str]:
    """record id -> the language it is written in, in streamed passes (a large index is never held): a
    record with no CJK text is English, the dictionary's other side (an English knowledge base costs one
    regex search per chunk); the others are told by `language_of` over all their chunks."""
    seen: set[str] = set()
    cjk: set[str] = set()
    for rid, body in catalog.chunk_bodies():
        seen.add(rid)
        if rid not in cjk and CJK_RUN.search(body):
            cjk.add(rid)
    texts: dict[str, list[str]] = {rid: [] for rid in cjk}
    if cjk:
        for rid, body in catalog.chunk_bodies():
            if rid in texts:
                texts[rid].append(body)
    out = dict.fromkeys(seen - cjk, EN)
    out.update({rid: language_of(" ".join(b)) for rid, b in texts.items()})
    return out


def in_other_language(catalog: Any, query: str, rids: list[str]) -> set[str]:
    """Those of `rids` written in the other language of the question's pair (none for a language without one)."""
    target = PAIRS.get(language_of(query))
    return set(written_in(catalog, sorted(set(rids)), target)) if target is not None and rids else set()


def mark_pair_floors(catalog: Any, query: str, found: list[Hit], floor: float, pair_floor: float | None) -> None:
    """Hold each hit written in the other language to `pair_floor`, the floor the question's language has
    over those records alone (measured by the same probes, `calibrate._pair_floor`): e5 scores a Chinese
    question 0.05-0.07 lower against English records than against Chinese ones, whether they answer it or
    not, so the question's one floor cut every answer across. Hits at or below both floors stay cut; a hit
    already held to it (joined from beyond the pool, retrieval._join_across) is not read again."""
    if pair_floor is None:
        return
    near = [h for h in found if h.floor is None and h.cos > min(floor, pair_floor)]
    other = in_other_language(catalog, query, [h.record_id for h in near])
    for h in near:
        if h.record_id in other:
            h.floor = pair_floor


def pick(catalog: Any, query: str, gate: float, allowed: dict[str, tuple[str, str, str]], ask: Any) -> Hit | None:
    """When nothing passed the floor: the one record in the other language whose mass exceeds `gate`, among
    those the question may see (`allowed` chunk -> (record, kind, effective status), its asked statuses and
    kinds); None when none does."""
    found = masses(catalog, units(query))
    chunk_of: dict[str, tuple[str, str, str]] = {}
    for cid, (rid, kind, status) in allowed.items():
        if status in ask.statuses and (not ask.kinds or kind in ask.kinds):
            chunk_of.setdefault(rid, (cid, kind, status))
    order = [r for r in _ranked(found) if r in chunk_of and found[r][0] > gate][:MAX_RECORDS_READ]
    for rid in written_in(catalog, order, PAIRS[language_of(query)])[:1]:
        cid, kind, status = chunk_of[rid]
        mass, terms = found[rid]
        return Hit(rid, kind, status, 0.0, cid, corroboration=mass, why={"matched": terms})
    return None


def band_masses(catalog: Any, query: str, rids: list[str]) -> dict[str, tuple[float, list[str]]]:
    """The translated mass of those of `rids` written in the other language: corroboration for the records a
    dense search put in the band just above the floor (recall/retrieval.py `corroborate`)."""
    question = units(query)  # each target's holders among `rids` only (index/queries.py `term_holders`)
    df, holders = catalog.term_holders(_targets(question), set(rids)) if question else ({}, {})
    found = weigh(question, catalog.record_count(), df, holders)
    return {rid: found[rid] for rid in written_in(catalog, [r for r in rids if r in found], PAIRS[language_of(query)])}


def admit(hit: Hit, gate: float, weights: dict[str, dict[str, float]], lexical_weight: float, factor: float) -> Hit:
    """The picked record as an answer: relevance from its words alone (the lexical share of a fused score,
    as the lexical gate's one record gets), weighed by kind, status and drift as every result is."""
    hit.relevance = lexical_weight
    hit.weight = weight(weights, hit.kind, hit.status) * factor
    hit.score = hit.relevance * hit.weight
    mass = hit.corroboration or 0.0
    hit.why = {
        "admitted": "cross-language",
        "mass": round(mass, 3),
        "gate": gate,
        "matched": hit.why.get("matched", []),
        "relevance": round(hit.relevance, 4),
        "weight": hit.weight,
    }
    return hit
