"""Where each question's expected record was lost, for one seeded repository and one question set: prints JSON.

    python bench/recall_misses.py REPO QUESTIONS.yaml [--all] [--out FILE]

Per question (misses only unless --all): the question's language and the floor it is held to (value, which
probes measured it), then for the expected record and for the top three records by cosine: the cosine on the
model's common scale and raw, its dense rank among the records the default statuses allow, its bm25, its
IDF mass of the question's words (corroboration), and the rule that cut it (`floor`, `corroboration`, or
none; the lexical gate below the floor counted); and what recall returned. Reads the store as recall does
(`Recaller.hits`, `rank`), asks nothing new.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def raw_cosine(spec, scaled: float) -> float:
    """The model's own cosine from the common scale (similarity_origin o: scaled = (raw - o) / (1 - o))."""
    o = spec.similarity_origin or 0.0
    return o + scaled * (1 - o)


def diagnose(repo: Path, qfile: Path, everything: bool) -> dict:
    import yaml

    from jupiter_git_memory.recall import retrieval
    from jupiter_git_memory.recall.ranking import DEFAULT_STATUSES, rank
    from jupiter_git_memory.recall.service import Recaller
    from jupiter_git_memory.records.language import language_of

    questions = yaml.safe_load(qfile.read_text("utf-8"))["questions"]
    rc = Recaller(repo)
    out = []
    try:
        index = rc.ensure_seeded()
        margin = rc.settings.corroborate_margin
        spec = rc.embedder.spec
        for q in questions:
            info = rc.floor_info(q["query"])
            floor = info.value
            got = rc.hits(index, q["query"], list(DEFAULT_STATUSES), None, 200, True)
            retrieval.corroborate(index, q["query"], got, -1.0, 2.0)  # mass for every hit, not only the band
            judged = [copy.copy(h) for h in got]  # the verdict rank records on each hit (its `cut`)
            rank(
                judged,
                floor,
                rc.weights,
                len(judged) or 1,
                "hybrid",
                rc.settings.lexical_weight,
                margin,
                gate=info.gate,
            )
            verdict = {h.record_id: h.cut for h in judged}
            by_cos = sorted(got, key=lambda h: -h.cos)
            rank_of = {h.record_id: i + 1 for i, h in enumerate(by_cos)}
            answer = rc.recall(q["query"], k=3, store=False)
            returned = [r["id"] if isinstance(r, dict) else r.id for r in answer.results]
            ok = any(e in returned for e in q["expect"]) if q["expect"] else not returned
            if ok and not everything:
                continue

            def row(h):
                return {
                    "id": h.record_id,
                    "cos": round(h.cos, 3),
                    "raw": round(raw_cosine(spec, h.cos), 4),
                    "dense_rank": rank_of[h.record_id],
                    "bm25": round(h.lexical, 2),
                    "mass": None if h.corroboration is None else round(h.corroboration, 2),
                    "cut": verdict[h.record_id],
                }

            hit = {h.record_id: h for h in got}
            out.append(
                {
                    "id": q["id"],
                    "lang": q.get("lang"),
                    "detected": language_of(q["query"]),
                    "floor": floor,
                    "floor_language": info.provenance.get("language"),
                    "gate": info.gate,
                    "ok": ok,
                    "returned": returned,
                    "expected": [row(hit[e]) if e in hit else {"id": e, "dense_rank": None} for e in q["expect"]],
                    "top": [row(h) for h in by_cos[:3]],
                }
            )
    finally:
        rc.close()
    return {"repo": str(repo), "questions": str(qfile), "margin": margin, "rows": out}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("repo", type=Path)
    ap.add_argument("questions", type=Path)
    ap.add_argument("--all", action="store_true", help="every question, not only the misses")
    ap.add_argument("--out", type=Path)
    a = ap.parse_args()
    text = json.dumps(diagnose(a.repo, a.questions, a.all), indent=1, ensure_ascii=False)
    print(text)
    if a.out is not None:  # the same JSON, kept
        a.out.write_text(f"{text}\n", "utf-8")


if __name__ == "__main__":
    main()
