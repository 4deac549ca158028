"""`jgm eval`: recall@k, MRR, no-answer emptiness and forbidden leaks on a YAML question set.

The report carries the eval file's sha256, the model identity and the floor, so an edited or stale
eval file can never pass as the old one.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..embedding.specs import identity_hash
from .service import Recaller


@dataclass
class Question:
    id: str
    query: str
    expect: list[str]
    forbid: list[str] = field(default_factory=list)
    status: list[str] | None = None


def load_questions(path: Path) -> tuple[list[Question], str]:
    raw = Path(path).read_bytes()
    try:
        data = yaml.safe_load(raw.decode("utf-8"))
    except yaml.YAMLError as e:
        raise ValueError(f"{path}: invalid YAML: {e}") from e
    items = data.get("questions") if isinstance(data, dict) else None
    if not isinstance(items, list) or not items:
        raise ValueError(f"{path}: expected `questions: [{{id, query, expect: [ids]}}, ...]`")
    out, seen = [], set()
    for n, q in enumerate(items, 1):
        if not isinstance(q, dict) or not isinstance(q.get("query"), str) or not isinstance(q.get("expect"), list):
            raise ValueError(f"{path}: question {n} needs `query` (text) and `expect` (a list, [] for no answer)")
        qid = str(q.get("id") or f"q{n}")
        if qid in seen:
            raise ValueError(f"{path}: duplicate question id {qid!r}")
        seen.add(qid)
        out.append(Question(qid, q["query"], [str(x) for x in q["expect"]], [str(x) for x in q.get("forbid") or []],
                            [str(x) for x in q["status"]] if q.get("status") else None))
    return out, hashlib.sha256(raw).hexdigest()


def evaluate(recaller: Recaller, questions: list[Question], k: int = 3, mode: str = "hybrid") -> dict:
    rows = []
    hits = rr_sum = answerable = noans = noans_empty = leaks = 0
    for q in questions:
        res = recaller.recall(q.query, k=k, statuses=q.status, mode=mode, store=False)
        ids = [r["id"] for r in res.results]
        rank = next((i + 1 for i, rid in enumerate(ids) if rid in q.expect), None)
        leaked = [rid for rid in ids if rid in q.forbid]
        leaks += len(leaked)
        if q.expect:
            answerable += 1
            hits += rank is not None
            rr_sum += 1.0 / rank if rank else 0.0
        else:
            noans += 1
            noans_empty += not ids
        rows.append({"id": q.id, "query": q.query, "expect": q.expect, "returned": ids, "rank": rank,
                     "leaked": leaked, "ok": (rank is not None if q.expect else not ids) and not leaked})
    return {
        "mode": mode, "k": k, "questions": len(questions), "answerable": answerable, "no_answer": noans,
        "recall_at_k": round(hits / answerable, 4) if answerable else None,
        "mrr": round(rr_sum / answerable, 4) if answerable else None,
        "no_answer_empty_rate": round(noans_empty / noans, 4) if noans else None,
        "forbidden_leaks": leaks, "per_question": rows,
    }


def run_eval(recaller: Recaller, path: Path, k: int = 3, modes: list[str] | None = None) -> dict:
    questions, digest = load_questions(path)
    floor, floor_source, warnings = recaller.floor()
    reports = {m: evaluate(recaller, questions, k, m) for m in (modes or ["hybrid"])}
    return {"eval_file": str(path), "eval_sha256": digest, "model": recaller.embedder.spec.name,
            "identity": identity_hash(recaller.identity), "floor": floor, "floor_source": floor_source,
            "workspace": recaller.workspace.id, "warnings": warnings, "modes": reports}
