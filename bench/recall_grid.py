"""Replay the recall contract over evidence dumps to compare no-answer rules across corpora, on a split.

    python bench/recall_grid.py OUT.json NAME=EVIDENCE.json [...] --select NAME,NAME [--top 8]

Each EVIDENCE.json comes from bench/recall_evidence.py (seed the corpus first). For every variant of the
floor statistic (median + k·MAD of the workspace's own probe cosines), the corroboration band's width and
the IDF mass it asks for, the contract's own `ranking.rank` orders every record of the corpus and the
eval figures are computed per corpus. Variants are ranked by their errors on the `--select` corpora only
(answerable misses + in-domain questions answered + 5 × (off-topic answered + leaks)); the other corpora
confirm or refute the choice. Differences from a live recall: every record is a candidate (live recall
takes Chroma's 30 nearest chunks plus the lexical matches), so figures can differ by a question or so.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from jupiter_git_memory.recall import ranking
from jupiter_git_memory.recall.eval import summarize
from jupiter_git_memory.recall.floors import round_up

MAD_KS = (1.0, 1.5, 2.0, 2.5, 3.0)
MARGINS = (0.0, 0.05, 0.10, 0.15, 0.20)
MASSES = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0)
SHIPPED = (2.0, 0.10, 1.0)  # calibrate.MAD_K, settings.corroborate_margin, ranking.CORROBORATION_MIN


def prepare(ev: dict) -> list[tuple[dict, dict, dict]]:
    """Per question: (question, its candidate records, their IDF mass); the same for every variant."""
    out = []
    for it in ev["items"]:
        if it["kind"] == "probe":
            continue
        statuses = it["status"] or list(ranking.DEFAULT_STATUSES)
        recs = {rid: r for rid, r in it["records"].items() if r["status"] in statuses}
        record_terms = {t: {rid for rid, r in it["records"].items() if t in r["terms"]} for t in it["df"]}
        out.append((it, recs, ranking.idf_mass(list(it["df"]), record_terms, ev["n_records"])))
    return out


def replay(ev: dict, prepared: list, mad_k: float, margin: float, mass_min: float, lexical_weight: float = 0.3) -> dict:
    """The eval figures of one corpus under one variant (k = 3, hybrid)."""
    prov = ev["floor_provenance"]
    floor = round_up(prov["median_cos"] + mad_k * prov["mad_cos"] + 1e-9)
    weights = ranking.merge_weights(None)
    saved, ranking.CORROBORATION_MIN = ranking.CORROBORATION_MIN, mass_min
    rows = []
    try:
        for it, recs, mass in prepared:
            hits = [
                ranking.Hit(
                    rid,
                    r["kind"],
                    r["status"],
                    r["cos"],
                    "",
                    lexical=r["bm25"],
                    cos2=r["cos2"],
                    corroboration=mass.get(rid, 0.0),
                )
                for rid, r in recs.items()
                if r["cos"] > floor
            ]
            ids = [h.record_id for h in ranking.rank(hits, floor, weights, 3, "hybrid", lexical_weight, margin)]
            rank = next((i + 1 for i, rid in enumerate(ids) if rid in it["expect"]), None)
            rows.append(
                {
                    "expect": it["expect"],
                    "returned": ids,
                    "rank": rank,
                    "kind": it["kind"],
                    "leaked": [rid for rid in ids if rid in it["forbid"]],
                }
            )
    finally:
        ranking.CORROBORATION_MIN = saved
    out = summarize(rows)
    out["floor"] = floor
    out["errors"] = (
        sum(1 for r in rows if r["expect"] and not r["rank"])
        + sum(1 for r in rows if not r["expect"] and r["kind"] == "in-domain" and r["returned"])
        + 5
        * (
            sum(1 for r in rows if not r["expect"] and r["kind"] == "off-topic" and r["returned"])
            + out["forbidden_leaks"]
        )
    )
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("corpora", nargs="+")
    ap.add_argument("--select", required=True, help="comma-separated corpus names the variants are chosen on")
    ap.add_argument("--top", type=int, default=8)
    a = ap.parse_args()
    evs = {n: json.loads(Path(p).read_text("utf-8")) for n, p in (c.split("=", 1) for c in a.corpora)}
    prepared = {n: prepare(ev) for n, ev in evs.items()}
    select = a.select.split(",")
    variants = []
    for k, m, c in itertools.product(MAD_KS, MARGINS, MASSES):
        per = {n: replay(ev, prepared[n], k, m, c) for n, ev in evs.items()}
        variants.append(
            {
                "mad_k": k,
                "margin": m,
                "mass_min": c,
                "shipped": (k, m, c) == SHIPPED,
                "selection_errors": sum(per[n]["errors"] for n in select),
                "confirm_errors": sum(p["errors"] for n, p in per.items() if n not in select),
                "corpora": per,
            }
        )
    variants.sort(key=lambda v: v["selection_errors"])  # chosen on the selection corpora only (stable: grid order)
    shown = variants[: a.top] + [v for v in variants[a.top :] if v["shipped"]]
    print(f"chosen on {select}; figures: recall@3 / in-domain empty / off-topic empty / leaks (errors)")
    for v in shown:
        cells = "  ".join(
            f"{n} {p['floor']:.2f}: {p['recall_at_k']:.3f}/{p['in_domain_empty_rate']:.2f}/"
            f"{p['off_topic_empty_rate']:.2f}/{p['forbidden_leaks']} ({p['errors']})"
            for n, p in v["corpora"].items()
        )
        print(
            f"{'shipped ' if v['shipped'] else ''}k={v['mad_k']} margin={v['margin']:.2f} mass>={v['mass_min']}: "
            f"selection {v['selection_errors']}, confirm {v['confirm_errors']} | {cells}"
        )
    Path(a.out).write_text(json.dumps({"select": select, "variants": shown}, indent=1), "utf-8")


if __name__ == "__main__":
    main()
