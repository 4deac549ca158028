"""Retrieval: dense (Chroma) and lexical (FTS5) evidence per record, corroboration of the band above the
floor, contract ranking, and default recall's proposed fallback (recall/fallback.py).

Why functions over one view: each step reads the index and the view map it is given and keeps no state,
so the coordinator (recall/service.py) and the recall inspector (surfaces/web/inspect.py) ask the same way.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, cast

from ..config import Settings
from ..index.failures import index_failures
from ..index.handle import Index
from ..index.queries import best_lexical
from ..index.view_query import lost_vectors, view_query
from ..records.kinds import ALL_EFFECTIVE, KINDS, RETIRED, STATUS_ALIASES
from ..records.lexical import bigram_runs
from . import cross_language
from .errors import NotSeeded, RecallError
from .evidence_state import evidence_by_id, factors
from .fallback import FALLBACK, FALLBACK_STATUSES, mark
from .forwarding import FORWARD_FROM, forwarded_hits
from .freshness import ViewMap
from .query_once import Fetched, QueryOnce
from .ranking import Hit, discriminating, floor_of, fts_match, fts_terms, gate_pick, idf_mass, rank
from .replacements import read_instead
from .results import ResultRow, shape

_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="jgm-lexical")
LEXICAL_PRUNE_FROM = 2000  # chunks; below this every query term is matched (cheap on a small index)
DENSE_POOL = 30  # chunks asked of Chroma per recall (at least 6 per result wanted)


@dataclass(frozen=True)
class Ask:
    """One question as retrieval runs it (filters already checked, mode and floor already chosen)."""

    query: str
    statuses: list[str]
    kinds: list[str] | None
    k: int
    mode: str
    floor: float
    gate: tuple[float, float] | None = None  # the lexical gate below the floor (recall/lexical_gate.py)
    cross_gate: float | None = None  # English over Chinese records, or Chinese over English: cross_language.py
    cross_floor: float | None = None  # the floor over records written in the other language (the pair's)


@dataclass
class Found:
    """What retrieval found for an answer: its results (shaped, evidence and replacements attached), every
    hit looked at (an empty answer's `why` names the best), whether it fell back, and lost vectors."""

    results: list[ResultRow]
    hits: list[Hit]
    fallback: str | None = None
    lost: str | None = None
    rows: dict[str, Any] = field(default_factory=dict)
    unmapped: list[str] = field(default_factory=list)  # the unmapped words of results that answered beside


def validate_filters(kinds: list[str] | None, statuses: list[str] | None) -> list[str] | None:
    """Check the filters; returns the statuses with aliases resolved (`false` → `invalidated`)."""
    for k in kinds or []:
        if k not in KINDS:
            raise ValueError(f"unknown kind {k!r}; use one of {', '.join(KINDS)}")
    resolved = [STATUS_ALIASES.get(s, s) for s in statuses] if statuses else statuses
    for s in resolved or []:
        if s not in ALL_EFFECTIVE:
            raise ValueError(f"unknown status {s!r}; use one of {', '.join(ALL_EFFECTIVE)}")
    return resolved


def lexical(
    index: Index,
    allowed: ViewMap,
    query: str,
    statuses: list[str],
    kinds: list[str] | None,
    matched: dict[tuple[str, int], list[tuple[str, float]]] | None = None,
) -> list[tuple[str, str, str, str, float]]:
    """(record id, chunk id, kind, effective status, bm25) of the view's lexical matches in the ranked window,
    best first: every record there, so a record the dense search found keeps its lexical score whatever the
    number of results asked (`hits` takes lexical-only records into the pool from the best n only).

    With `matched` (one find's: `QueryOnce.matched`), the ranked window of a question already read is not
    read again: a fallback search asks the same FTS query as the in-force one (only the statuses kept from
    it differ), and at 100,000 chunks that query and its term counts cost ~45 ms of CPU."""
    total = index.vectors.count()
    window = 200 * min(10, max(1, -(-total // max(len(allowed), 1))))  # other views' chunks share the FTS
    rows = matched.get((query, window)) if matched is not None else None
    if rows is None:
        terms = fts_terms(query)
        if terms and total >= LEXICAL_PRUNE_FROM:
            terms = discriminating(terms, index.catalog.term_chunk_counts(terms), total)
        rows = index.catalog.lexical_rows(fts_match(terms), window) if terms else []
        if matched is not None:
            matched[(query, window)] = rows
    return best_lexical(rows, allowed, statuses, kinds, window)


def hits(
    index: Index,
    embedder: Any,
    allowed: ViewMap,
    query: str,
    statuses: list[str],
    kinds: list[str] | None,
    n: int,
    use_lexical: bool,
    side: dict[str, Hit] | None = None,
    side_statuses: tuple[str, ...] = (),
    admit_above: float | None = None,
    pair_floor: float | None = None,
) -> list[Hit]:
    """Best evidence per record: dense top-n chunks plus lexical matches (their cosine computed too).

    The lexical query runs in a worker thread while the query is embedded and Chroma searched: SQLite,
    onnxruntime and Chroma's Rust core all release the GIL, so the two cores work at once. With `side`, the
    records at `side_statuses` among the chunks the dense search fetched anyway (at least 4× the pool) are
    put there with their lexical scores, without taking a place in the pool (recall/forwarding.py). With
    `admit_above`, the dense search widens no further once its farthest chunk is at or below it. With
    `pair_floor`, the records written in the other language among the chunks it fetched beyond the pool join
    it when above that floor: the model ranks them below every record in the question's language, so the
    nearest n chunks rarely hold one (dec-floor-per-language-pair)."""
    asked = [*statuses, *(st for st in side_statuses if st not in statuses)] if side is not None else statuses
    matched = getattr(embedder, "matched", None)
    if isinstance(embedder, QueryOnce):
        embedder.searching()
    lex_job = _POOL.submit(lexical, index, allowed, query, asked, kinds, matched) if use_lexical else None
    try:
        qvec = embedder.embed_query(query)
        sim = embedder.spec.similarity  # every cosine on the common scale the floor and margins are in
        best: dict[str, Hit] = {}

        def keep(cid: str) -> bool:
            got = allowed.get(cid)
            return got is not None and got[2] in statuses and (not kinds or got[1] in kinds)

        fetched = Fetched(index.vectors, getattr(embedder, "searched", None))
        beyond = None if admit_above is None else (lambda raw: sim(raw) <= admit_above)
        dense = [(cid, sim(raw)) for cid, raw in view_query(cast(Any, fetched), qvec, n, keep, beyond)]
        _best_of(dense, allowed, best)
        if pair_floor is not None:
            _join_across(index, query, fetched.last, keep, allowed, best, pair_floor, sim)
        if side is not None:
            on_side = [
                (cid, sim(raw))
                for cid, raw in fetched.last
                if (got := allowed.get(cid)) is not None and got[2] in side_statuses and (not kinds or got[1] in kinds)
            ]
            _best_of(on_side, allowed, side)
    finally:
        lex = lex_job.result() if lex_job else []
    if side is not None:  # a retired record forwarding may start from carries its words' evidence as well
        for rid, _, _, effective, score in lex:
            if effective not in statuses and rid in side:
                side[rid].lexical = score
        lex = [row for row in lex if row[3] in statuses]
    # the records among the best n lexical matches join the pool, as before; every pooled record gets its
    # lexical score from the whole window, so a record the dense search found is not scored lower (lexical 0)
    # when fewer results are asked: the first results no longer depend on k
    joining = {cid for rid, cid, _, _, _ in lex[:n] if rid not in best}
    vecs = _vectors(index, embedder, sorted(joining))
    for rid, cid, kind, effective, score in lex:
        if rid not in best and cid in joining and cid in vecs:
            best[rid] = Hit(rid, kind, effective, sim(float(vecs[cid] @ qvec)), cid)
        if rid in best:
            best[rid].lexical = score
    return list(best.values())


def _join_across(
    index: Index,
    query: str,
    fetched: list[tuple[str, float]],
    keep: Any,
    allowed: ViewMap,
    best: dict[str, Hit],
    pair_floor: float,
    sim: Any,
) -> None:
    """Into `best`: the records beyond the dense pool, among the chunks fetched (raw cosines, `sim` puts them
    on the common scale), that are written in the other language and above `pair_floor`, each with its best
    chunk and held to that floor."""
    more = [(cid, raw) for cid, raw in fetched if keep(cid) and allowed[cid][0] not in best and sim(raw) > pair_floor]
    other = cross_language.in_other_language(index.catalog, query, [allowed[cid][0] for cid, _ in more])
    _best_of([(cid, sim(raw)) for cid, raw in more if allowed[cid][0] in other], allowed, best)
    for rid in other:
        best[rid].floor = pair_floor


def _admit_above(ask: Ask) -> float | None:
    """The cosine at or below which no hit of `ask` can be admitted: the floor, or the lexical gate's start
    below it (recall/lexical_gate.py). None in lexical mode, which admits by words whatever the cosine."""
    if ask.mode == "lexical":
        return None
    low = ask.floor if ask.cross_floor is None else min(ask.floor, ask.cross_floor)
    return low if ask.gate is None else min(low, ask.gate[0])


def _vectors(index: Index, embedder: Any, ids: list[str]) -> dict[str, Any]:
    """The stored vectors of `ids`, each fetched once per find (`QueryOnce.stored`) when it keeps them."""
    kept: dict[str, Any] | None = getattr(embedder, "stored", None)
    if kept is None:
        return dict(index.vectors.vectors(ids))
    kept.update(index.vectors.vectors([i for i in ids if i not in kept]))
    return {i: kept[i] for i in ids if i in kept}


def _best_of(chunks: list[tuple[str, float]], allowed: ViewMap, best: dict[str, Hit]) -> None:
    """Each record's best chunk into `best`, and the mean of its two best (a record matching in two places is
    a safer answer)."""
    seen: dict[str, list[float]] = {}
    for cid, cos in chunks:
        rid, kind, effective = allowed[cid]
        seen.setdefault(rid, []).append(cos)
        if rid not in best or cos > best[rid].cos:
            best[rid] = Hit(rid, kind, effective, cos, cid)
    for rid, cosines in seen.items():
        if len(cosines) > 1:
            top2 = sorted(cosines, reverse=True)[:2]
            best[rid].cos2 = sum(top2) / 2


def corroborate(
    index: Index,
    query: str,
    found: list[Hit],
    floor: float,
    margin: float,
    gate: tuple[float, float] | None = None,
    across: bool = False,
    held: dict[str, Any] | None = None,
) -> None:
    """Set `corroboration` on the hits in the band just above the floor, and with a `gate` on those between
    the gate's start and the floor (the only ones it decides). `across` (the question's language has a
    cross-language gate): a record in the other language also counts the question's translated words.
    `held` (one find's: `QueryOnce.held`): each word's holders, read once for both of its searches. A hit
    with a floor of its own (its language pair's: `cross_language.mark_pair_floors`) has its band above it."""

    def in_band(h: Hit) -> bool:
        own = floor_of(h, floor)
        low = own if gate is None or h.floor is not None else min(own, gate[0])  # the gate is same-language
        return low < h.cos <= own + margin

    band = [h for h in found if in_band(h)]
    if not band:
        return
    terms = fts_terms(query)
    cat = index.catalog
    only = {h.record_id for h in band}
    mass: dict[str, float] = {}
    if terms:
        df, holders = cat.term_holders(terms, only, held)
        mass = idf_mass(terms, holders, cat.record_count(), bigram_runs(query), only, df)
    if across:
        for rid, (m, _) in cross_language.band_masses(cat, query, sorted(only)).items():
            mass[rid] = max(mass.get(rid, 0.0), m)
    for h in band:
        h.corroboration = mass.get(h.record_id, 0.0)


def weigh(
    index: Index,
    query: str,
    found: list[Hit],
    mode: str,
    floor: float,
    margin: float,
    gates: tuple[tuple[float, float] | None, float | None, float | None] = (None, None, None),
    held: dict[str, Any] | None = None,
) -> None:
    """What every hit is held to before `rank` decides, for recall's search and the recall inspector alike:
    a record written in the other language to its language pair's floor (`cross_language.mark_pair_floors`;
    not in lexical mode), and in hybrid mode the measured corroboration of the band above each hit's floor
    (`corroborate`). `gates`: the question's (lexical gate, cross-language gate, pair floor)."""
    gate, cross_gate, pair_floor = gates
    if mode != "lexical":
        cross_language.mark_pair_floors(index.catalog, query, found, floor, pair_floor)
    if mode == "hybrid":
        corroborate(index, query, found, floor, margin, gate, cross_gate is not None, held)


def search(
    index: Index,
    embedder: Any,
    allowed: ViewMap,
    settings: Settings,
    weights: dict[str, dict[str, float]],
    ask: Ask,
    retired: dict[str, Hit] | None = None,
) -> tuple[list[Hit], list[Hit]]:
    """(every hit, the ranked ones that pass the floor) for the asked statuses. With `retired`, the retired
    records that forwarding may start from are put there, as `hits` finds them (corroborated, not ranked)."""
    forward_from = tuple(s for s in FORWARD_FROM if s not in ask.statuses)
    try:
        got = hits(
            index,
            embedder,
            allowed,
            ask.query,
            ask.statuses,
            ask.kinds,
            max(DENSE_POOL, ask.k * 6),
            ask.mode != "dense",
            retired if forward_from else None,
            forward_from,
            _admit_above(ask),
            None if ask.mode == "lexical" else ask.cross_floor,
        )
        found = got + list((retired or {}).values())
        held = embedder.ready_held() if ask.mode == "hybrid" and isinstance(embedder, QueryOnce) else None
        gates = (ask.gate, ask.cross_gate, ask.cross_floor)
        weigh(index, ask.query, found, ask.mode, ask.floor, settings.corroborate_margin, gates, held)
    except (ValueError, KeyError, NotSeeded):
        raise
    except index_failures() as e:
        raise RecallError(f"index unavailable: {e}") from e
    s = settings  # a record whose cited code moved on weighs less (docs/drift.md)
    drift = factors(index.catalog, s.drift_weight, s.missing_weight)
    ranked = rank(got, ask.floor, weights, ask.k, ask.mode, s.lexical_weight, s.corroborate_margin, drift)
    return got, ranked


def find(
    index: Index,
    embedder: Any,
    allowed: ViewMap,
    settings: Settings,
    weights: dict[str, dict[str, float]],
    ask: Ask,
    may_fall_back: bool,
    admitted: dict[str, str] | None = None,
) -> Found:
    """The answer's results for `ask`, falling back to proposed records when none in force passes the floor
    and the caller allows it; never "no match" from an index that lost vectors (RecallError instead).
    With the fallback allowed, the `admitted` proposed records (recall/fallback.py `unmapped_majority`)
    answer beside the in-force ones, marked as fallback results."""
    # the fallback search asks for the same query's vector; recall hands one whose embedding already started
    embedder = once = embedder if isinstance(embedder, QueryOnce) else QueryOnce(embedder)
    if ask.mode == "hybrid" and (terms := fts_terms(ask.query)):  # corroboration's holders, beside the FTS query
        once.prefetch = partial(index.catalog.prefetch_holders, terms, once.held)
    retired: dict[str, Hit] = {}
    first_allowed, first_ask = allowed, ask
    if may_fall_back and admitted:  # only the admitted proposed records join the in-force ones
        first_allowed = {c: v for c, v in allowed.items() if v[2] not in FALLBACK_STATUSES or v[0] in admitted}
        first_ask = replace(ask, statuses=[*ask.statuses, *FALLBACK_STATUSES])
    got, ranked = search(index, embedder, first_allowed, settings, weights, first_ask, retired)
    if retired:  # a retired record that matched leads to its replacement (recall/forwarding.py)
        ranked = _forward(index, embedder, first_allowed, settings, weights, first_ask, got, ranked, retired)
    pick = gate_pick([*got, *retired.values()], first_ask.gate) if not ranked and first_ask.mode == "hybrid" else None
    if pick is not None and pick.record_id in retired:  # nothing passed the floor: the gate's one record
        ranked = _forward(index, embedder, first_allowed, settings, weights, first_ask, got, [], retired, pick)
    elif pick is not None:  # (recall/lexical_gate.py), itself when in force, through its replacement when retired
        drift = factors(index.catalog, settings.drift_weight, settings.missing_weight)  # as every result
        ranked = rank([pick], ask.floor, weights, ask.k, ask.mode, settings.lexical_weight, 0.0, drift, first_ask.gate)
    if not ranked and pick is None and first_ask.mode == "hybrid" and first_ask.cross_gate is not None:
        ranked = _across(index, settings, weights, first_ask, first_allowed)
    results, rows = shape(index.catalog, ranked)
    fell_back = None
    beside = [r for r in results if r.status in FALLBACK_STATUSES and r.id in (admitted or {})]
    if beside:
        ids = {r.id for r in beside}
        results = [mark([r])[0] if r.id in ids else r for r in results]
        fell_back = FALLBACK
    if not results and may_fall_back:
        fallback_ask = replace(ask, statuses=list(FALLBACK_STATUSES))
        more, ranked = search(index, embedder, allowed, settings, weights, fallback_ask)
        got += more  # an empty answer's `why` names the best of both
        results, rows = shape(index.catalog, ranked)
        fell_back = FALLBACK if results else None
        results = mark(results)
    lost = lost_vectors(index)
    if lost and not results:  # never "no match" from an index that lost vectors
        raise RecallError("; ".join([lost, *settings.notices()]))  # e.g. they went to a refused server
    cat = index.catalog
    evidence = evidence_by_id(cat, [r.id for r in results])  # whether the code each result cites moved on
    results = [replace(r, evidence=evidence[r.id], read_instead=_replacing(cat, r, rows.get(r.id))) for r in results]
    words = sorted({(admitted or {})[r.id] for r in beside})
    return Found(results, got, fell_back, lost or None, rows, words)


def _forward(
    index: Index,
    embedder: Any,  # find's QueryOnce: the query's vector is the search's, not embedded again
    allowed: ViewMap,
    settings: Settings,
    weights: dict[str, dict[str, float]],
    ask: Ask,
    got: list[Hit],
    ranked: list[Hit],
    retired: dict[str, Hit],
    picked: Hit | None = None,
) -> list[Hit]:
    """`ranked` with the replacements of the retired records that pass the same admission, in score order;
    with `picked` (the lexical gate's one record, retired), the replacement of that record alone."""
    s = settings
    if ask.mode == "lexical":  # lexical mode shows lexical evidence alone; a forwarded record has none of its own
        return ranked
    gate, found = (ask.gate, [picked]) if picked is not None else (None, list(retired.values()))
    # the sources' words are weighed against the best lexical match of the in-force pool, as the pool's are,
    # so a replacement reached through its retired record competes on the same scale as the records found
    top = max((h.lexical for h in got if h.cut is None and h.lexical), default=0.0)
    sources = rank(
        found, ask.floor, weights, ask.k, ask.mode, s.lexical_weight, s.corroborate_margin, gate=gate, lexical_top=top
    )
    if not sources:
        return ranked
    drift = factors(index.catalog, s.drift_weight, s.missing_weight)
    cat, vec, qvec = index.catalog, index.vectors, embedder.embed_query(ask.query)
    more = forwarded_hits(
        cat, vec, allowed, qvec, sources, got, ask.statuses, ask.kinds, weights, drift, embedder.spec.similarity
    )
    return sorted(ranked + more, key=lambda h: (-h.score, -h.cos, h.record_id))[: ask.k]


def _across(
    index: Index, settings: Settings, weights: dict[str, dict[str, float]], ask: Ask, allowed: ViewMap
) -> list[Hit]:
    """Nothing passed the floor: the one record in the other language the cross-language gate admits."""
    assert ask.cross_gate is not None
    hit = cross_language.pick(index.catalog, ask.query, ask.cross_gate, allowed, ask)
    if hit is None:
        return []
    s = settings
    drift = factors(index.catalog, s.drift_weight, s.missing_weight).get(hit.record_id, 1.0)
    return [cross_language.admit(hit, ask.cross_gate, weights, s.lexical_weight, drift)]


def _replacing(cat: Any, result: ResultRow, row: Any) -> list[dict[str, Any]] | None:
    """What a retired record says to read instead, whichever side wrote the link (None when in force)."""
    return read_instead(cat, row) if result.status in RETIRED and row is not None else None
