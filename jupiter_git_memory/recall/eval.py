"""`jgm eval`: recall@k, MRR, no-answer emptiness (in-domain and off-topic apart) and forbidden leaks.

The report carries the eval file's sha256, the model identity and the floor with its provenance, so an
edited or stale eval file can never pass as the old one. Questions may carry `split` (dev | heldout: what
was looked at while tuning and what was not) and, when unanswerable, `kind` (in-domain | off-topic): a
floor that only rejects cooking questions is not a no-answer decision. The lint flags questions that copy
a run of their expected record's words.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..embedding.specs import identity_hash
from .eval_lint import shared_run
from .service import Recaller

NO_ANSWER_KINDS = ("in-domain", "off-topic")


@dataclass
class Question:
    id: str
    query: str
    expect: list[str]
    forbid: list[str] = field(default_factory=list)
    status: list[str] | None = None
    split: str = "dev"
    kind: str = "answerable"


def _question(path: Path, n: int, q) -> Question:
    if not isinstance(q, dict) or not isinstance(q.get("query"), str) or not isinstance(q.get("expect"), list):
        raise ValueError(f"{path}: question {n} needs `query` (text) and `expect` (a list, [] for no answer)")
    expect = [str(x) for x in q["expect"]]
    kind = str(q.get("kind") or ("answerable" if expect else "off-topic"))
    if not expect and kind not in NO_ANSWER_KINDS:
        raise ValueError(f"{path}: question {n} has no answer; its `kind` must be in-domain or off-topic")
    split = str(q.get("split") or "dev")
    if split not in ("dev", "heldout"):
        raise ValueError(f"{path}: question {n}: `split` must be dev or heldout, not {split!r}")
    return Question(
        str(q.get("id") or f"q{n}"),
        q["query"],
        expect,
        [str(x) for x in q.get("forbid") or []],
        [str(x) for x in q["status"]] if q.get("status") else None,
        split,
        kind,
    )


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
        question = _question(path, n, q)
        if question.id in seen:
            raise ValueError(f"{path}: duplicate question id {question.id!r}")
        seen.add(question.id)
        out.append(question)
    return out, hashlib.sha256(raw).hexdigest()


def _rate(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def summarize(rows: list[dict]) -> dict:
    """Figures over per-question rows (see `evaluate`)."""
    ans = [r for r in rows if r["expect"]]
    empty = {
        kind: [not r["returned"] for r in rows if not r["expect"] and r["kind"] == kind] for kind in NO_ANSWER_KINDS
    }
    noans = empty["in-domain"] + empty["off-topic"]
    return {
        "questions": len(rows),
        "answerable": len(ans),
        "no_answer": len(noans),
        "recall_at_k": _rate(sum(r["rank"] is not None for r in ans), len(ans)),
        "mrr": round(sum(1.0 / r["rank"] for r in ans if r["rank"]) / len(ans), 4) if ans else None,
        "no_answer_empty_rate": _rate(sum(noans), len(noans)),
        "in_domain_empty_rate": _rate(sum(empty["in-domain"]), len(empty["in-domain"])),
        "off_topic_empty_rate": _rate(sum(empty["off-topic"]), len(empty["off-topic"])),
        "forbidden_leaks": sum(len(r["leaked"]) for r in rows),
    }


def evaluate(recaller: Recaller, questions: list[Question], k: int = 3, mode: str = "hybrid") -> dict:
    rows = []
    for q in questions:
        res = recaller.recall(q.query, k=k, statuses=q.status, mode=mode, store=False)
        ids = [r["id"] for r in res.results]
        rank = next((i + 1 for i, rid in enumerate(ids) if rid in q.expect), None)
        leaked = [rid for rid in ids if rid in q.forbid]
        why = res.results[0]["why"] if res.results else res.why
        rows.append(
            {
                "id": q.id,
                "query": q.query,
                "expect": q.expect,
                "returned": ids,
                "rank": rank,
                "leaked": leaked,
                "split": q.split,
                "kind": q.kind,
                "why": why,
                "ok": (rank is not None if q.expect else not ids) and not leaked,
            }
        )
    report = {"mode": mode, "k": k, **summarize(rows)}
    splits = sorted({r["split"] for r in rows})
    if len(splits) > 1:
        report["splits"] = {s: summarize([r for r in rows if r["split"] == s]) for s in splits}
    report["per_question"] = rows
    return report


def lint(recaller: Recaller, questions: list[Question]) -> list[dict]:
    """Answerable questions sharing a run of more than 3 content words with an expected record."""
    catalog = recaller.index().catalog
    wanted = {rid for q in questions for rid in q.expect}
    texts: dict[str, str] = {rid: row.title for rid, row in catalog.records_by_ids(wanted).items()}
    for chunk in catalog.chunks(wanted).values():
        texts[chunk.record_id] = texts.get(chunk.record_id, "") + "\n" + chunk.body
    out = []
    for q in questions:
        for rid in q.expect:
            run = shared_run(q.query, texts.get(rid, ""))
            if run:
                out.append({"id": q.id, "record": rid, "run": run})
                break
    return out


def run_eval(
    recaller: Recaller, path: Path, k: int = 3, modes: list[str] | None = None, split: str | None = None
) -> dict:
    questions, digest = load_questions(path)
    if split:
        questions = [q for q in questions if q.split == split]
        if not questions:
            raise ValueError(f"{path}: no question in split {split!r}")
    floor = recaller.floor_info()
    reports = {m: evaluate(recaller, questions, k, m) for m in (modes or ["hybrid"])}
    return {
        "eval_file": str(path),
        "eval_sha256": digest,
        "split": split or "all",
        "model": recaller.embedder.spec.name,
        "identity": identity_hash(recaller.identity),
        "floor": floor.value,
        "floor_source": floor.source,
        "floor_provenance": floor.provenance,
        "workspace": recaller.workspace.id,
        "warnings": floor.warnings,
        "lint": lint(recaller, questions),
        "modes": reports,
    }


def gate(
    report: dict,
    mode: str,
    k: int,
    min_recall: float | None = None,
    min_no_answer: float | None = None,
    min_in_domain: float | None = None,
    min_off_topic: float | None = None,
) -> dict:
    """The eval gate over `report`'s `mode`: every threshold given must be met, and no forbidden id may leak.
    Here, not in the CLI, so the suite's gate over our knowledge base and `jgm eval` are the same rule."""
    main = report["modes"][mode]
    problems = []
    if min_recall is not None and (main["recall_at_k"] or 0) < min_recall:
        problems.append(f"recall@{k} {main['recall_at_k']} < {min_recall}")
    for flag, key, name in (
        (min_no_answer, "no_answer_empty_rate", "no-answer-empty"),
        (min_in_domain, "in_domain_empty_rate", "in-domain empty"),
        (min_off_topic, "off_topic_empty_rate", "off-topic empty"),
    ):
        if flag is not None and main[key] is not None and main[key] < flag:
            problems.append(f"{name} {main[key]} < {flag}")
    if main["forbidden_leaks"]:
        problems.append(f"{main['forbidden_leaks']} forbidden leaks")
    return {"mode": mode, "passed": not problems, "problems": problems}
