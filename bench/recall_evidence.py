"""Dump the raw recall evidence for an eval set, so no-answer rules and rankings can be compared offline.

    python bench/recall_evidence.py REPO QUESTIONS.yaml OUT.json [--probes PROBES.yaml]

Per question (and per calibration probe): for every record its best chunk cosine, the mean of its two
best chunk cosines, its title cosine, its bm25, the query terms it contains with their document
frequency, plus the query's background (mean, std of the cosine over all chunks) and the workspace's floor
with its provenance. Seed REPO first; bench/recall_grid.py replays the contract's ranking over these dumps.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from jupiter_git_memory.index.queries import best_lexical
from jupiter_git_memory.recall.calibrate import load_probes
from jupiter_git_memory.recall.eval import load_questions
from jupiter_git_memory.recall.ranking import fts_match, fts_terms
from jupiter_git_memory.recall.service import Recaller

DEFAULT_PROBES = Path(__file__).resolve().parents[1] / "jupiter_git_memory/recall/probes/default.yaml"


def term_records(catalog, term: str) -> set[str]:
    return catalog.term_records([term])[term]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("repo")
    ap.add_argument("questions")
    ap.add_argument("out")
    ap.add_argument("--probes", default=str(DEFAULT_PROBES))
    a = ap.parse_args()
    rc = Recaller(a.repo)
    index = rc.index()
    cat = index.catalog
    records = cat.records()
    chunks = cat.chunks()
    ids = sorted(chunks)
    vecs = index.vectors.vectors(ids)
    ids = [c for c in ids if c in vecs]
    M = np.stack([vecs[c] for c in ids])
    owner = [chunks[c].record_id for c in ids]
    rids = sorted(records)
    titles = rc.embedder.embed_passages([records[r].title for r in rids])
    n_records = len(rids)
    questions, _ = load_questions(Path(a.questions))
    probes, _ = load_probes(Path(a.probes))
    items = [
        dict(id=q.id, query=q.query, expect=q.expect, forbid=q.forbid, status=q.status, split=q.split, kind=q.kind)
        for q in questions
    ]
    items += [
        dict(id=f"probe-{i}", query=p, expect=[], forbid=[], status=None, split="probe", kind="probe")
        for i, p in enumerate(probes)
    ]
    df_cache: dict[str, set[str]] = {}
    allowed = rc.view_map(index)
    statuses = sorted({r.effective_status for r in records.values()})
    out = []
    for it in items:
        qv = rc.embedder.embed_query(it["query"])
        cos = M @ qv
        per: dict[str, list[float]] = {}
        for c, o in zip(cos.tolist(), owner):
            per.setdefault(o, []).append(c)
        tcos = dict(zip(rids, (titles @ qv).tolist()))
        terms = fts_terms(it["query"])
        lex = (
            {
                rid: s
                for rid, _, _, _, s in best_lexical(
                    cat.lexical_rows(fts_match(terms), 10 * len(ids)), allowed, statuses, None, 10_000
                )
            }
            if terms
            else {}
        )
        for t in terms:
            if t not in df_cache:
                df_cache[t] = term_records(cat, t)
        recs = {}
        for rid, cs in per.items():
            cs = sorted(cs, reverse=True)
            recs[rid] = {
                "cos": round(cs[0], 5),
                "cos2": round(sum(cs[:2]) / min(2, len(cs)), 5),
                "title": round(tcos.get(rid, 0.0), 5),
                "bm25": round(lex.get(rid, 0.0), 4),
                "terms": [t for t in terms if rid in df_cache[t]],
                "kind": records[rid].kind,
                "status": records[rid].effective_status,
            }
        out.append(
            {
                **it,
                "bg_mean": float(cos.mean()),
                "bg_std": float(cos.std()),
                "df": {t: len(df_cache[t]) for t in terms},
                "records": recs,
            }
        )
    floor = rc.floor_info()
    Path(a.out).write_text(
        json.dumps(
            {
                "repo": a.repo,
                "n_records": n_records,
                "n_chunks": len(ids),
                "floor": floor.value,
                "floor_provenance": floor.provenance,
                "items": out,
            }
        ),
        "utf-8",
    )
    print(f"{len(out)} queries, {n_records} records, {len(ids)} chunks -> {a.out}")


if __name__ == "__main__":
    main()
