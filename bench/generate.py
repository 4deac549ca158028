"""Generate a synthetic knowledge repo for benchmarks: a real git repo with N records of realistic size.

Why synthetic: the benchmark must be reproducible on any machine without shipping a corpus, and the
shape that matters for cost (record count, prose length 80-600 words, headings, kinds, statuses and
supersede chains) is controlled here. Deterministic by seed: the same (n, seed) gives the same bytes.

    python bench/generate.py OUT_DIR --records 1000 --seed 7
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
from pathlib import Path

SUBJECTS = [
    "the connection pool",
    "the retry policy",
    "the ingest worker",
    "the cache layer",
    "the schema migration",
    "the billing service",
    "the auth gateway",
    "the search indexer",
    "the event bus",
    "the feature flag system",
    "the CI pipeline",
    "the deploy script",
    "the rate limiter",
    "the session store",
    "the metrics exporter",
    "the job scheduler",
    "the object storage client",
    "the GraphQL resolver",
    "the websocket relay",
    "the config loader",
    "the audit log",
    "the payment webhook",
    "the image resizer",
    "the backup job",
    "the tokenizer",
    "the query planner",
    "the load balancer",
    "the DNS resolver",
    "the TLS terminator",
    "the notification fan-out",
    "the data warehouse export",
    "the mobile sync endpoint",
    "the CSV importer",
]
VERBS = [
    "times out under",
    "degrades when facing",
    "must be configured for",
    "was rewritten to handle",
    "depends on",
    "is the bottleneck for",
    "silently drops",
    "retries aggressively on",
    "serialises",
    "holds a lock during",
    "leaks file descriptors on",
    "caches the result of",
    "validates",
    "batches",
    "rejects",
    "logs every",
    "must never block on",
    "is measured against",
    "shards by",
    "throttles",
]
OBJECTS = [
    "bursty traffic",
    "large uploads",
    "cold starts",
    "partial network failures",
    "clock skew",
    "duplicate deliveries",
    "long-running transactions",
    "expired credentials",
    "schema drift",
    "out-of-order events",
    "hot partitions",
    "slow consumers",
    "unicode file names",
    "leap seconds",
    "IPv6-only hosts",
    "read replicas lagging",
    "a full disk",
    "memory pressure",
    "stale DNS entries",
    "tenant-specific overrides",
    "nightly batch windows",
    "cross-region replication",
    "idempotency keys",
]
REASONS = [
    "because the upstream SLA only guarantees 99.5% availability",
    "since p99 latency doubled after the upgrade",
    "as the incident review in March showed",
    "which the load test reproduced at 4,000 requests per second",
    "because the vendor library swallows the error",
    "since Postgres 15 changed the default",
    "which cost us two days of debugging",
    "as measured on the staging cluster",
    "because the queue is at-least-once",
    "since the kernel default is 1024",
    "because the mobile clients retry without backoff",
    "as documented in the runbook",
    "which only shows up with more than 64 tenants",
]
ACTIONS = [
    "We set the timeout to 30 seconds and alert on the 95th percentile.",
    "The fix is to use exponential backoff with jitter, capped at five attempts.",
    "Keep the batch size at 500; larger batches made memory spike.",
    "Do not raise the pool size above 20 without checking max_connections on the primary.",
    "Use the idempotency key from the request header, never a server-generated one.",
    "Run the migration in two phases: add the nullable column, backfill, then enforce NOT NULL.",
    "Prefer the streaming API; the buffered one loads the whole file in memory.",
    "Pin the client library to the 2.x line until the pagination bug is fixed upstream.",
    "Write the audit entry in the same transaction as the change it describes.",
    "Measure before tuning: the profiler showed JSON encoding, not the database, dominating.",
    "Drain the queue before deploying, otherwise in-flight jobs are retried twice.",
    "Shard keys must include the tenant id so that one tenant cannot create a hot partition.",
]
HEADINGS = [
    "Context",
    "Decision",
    "Consequences",
    "Evidence",
    "Alternatives considered",
    "How to verify",
    "Background",
    "Details",
    "Open questions",
    "Rollout",
]
CODE = [
    "```bash\nkubectl rollout restart deploy/ingest-worker\n```",
    "```python\nclient = Pool(max_size=20, timeout=30)\n```",
    "```sql\nALTER TABLE events ADD COLUMN tenant_id bigint;\n```",
    "```yaml\nretries: 5\nbackoff: exponential\n```",
]
TAGS = ["perf", "reliability", "security", "db", "infra", "api", "ops", "data", "frontend", "billing"]

# kind -> (weight, [(status, weight)])
KIND_MIX = {
    "decision": (35, [("accepted", 70), ("proposed", 12), ("rejected", 6), ("deprecated", 6), ("superseded", 6)]),
    "fact": (25, [("verified", 70), ("unverified", 22), ("false", 8)]),
    "finding": (20, [("verified", 55), ("unverified", 40), ("false", 5)]),
    "adr": (8, [("accepted", 75), ("proposed", 15), ("deprecated", 10)]),
    "history": (8, [("historical", 1)]),
    "candidate": (4, [("candidate", 1)]),
}
PREFIX = {"decision": "dec", "fact": "fact", "finding": "find", "adr": "adr", "history": "hist", "candidate": "cand"}


def _pick(rng: random.Random, weighted):
    items, weights = zip(*weighted)
    return rng.choices(items, weights=weights)[0]


def sentence(rng: random.Random) -> str:
    s = f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)}"
    if rng.random() < 0.6:
        s += f", {rng.choice(REASONS)}"
    return s[0].upper() + s[1:] + "."


def paragraph(rng: random.Random, words: int) -> str:
    out: list[str] = []
    n = 0
    while n < words:
        s = rng.choice(ACTIONS) if rng.random() < 0.2 else sentence(rng)
        if out and n + len(s.split()) > words:
            break
        out.append(s)
        n += len(s.split())
    return " ".join(out)


def body(rng: random.Random, words: int) -> str:
    """Prose of about `words` words; a third of the records are sectioned with headings."""
    sectioned = rng.random() < 0.35
    parts: list[str] = []
    left = words
    headings = rng.sample(HEADINGS, k=min(len(HEADINGS), max(2, words // 120))) if sectioned else []
    while left > 0:
        if headings and (not parts or rng.random() < 0.5):
            parts.append(f"## {headings.pop(0)}")
        size = min(left, rng.randint(40, 140))
        parts.append(paragraph(rng, size))
        left -= size
        if rng.random() < 0.08:
            parts.append(rng.choice(CODE))
    return "\n\n".join(parts)


def make_records(n: int, seed: int) -> list[dict]:
    """The records as dicts (id, kind, status, title, body, path, extra frontmatter); supersede chains
    link a later decision/fact to an earlier one of the same kind, at most 3 deep."""
    rng = random.Random(seed)
    kinds = [(k, w) for k, (w, _) in KIND_MIX.items()]
    records: list[dict] = []
    chain_heads: dict[str, list[str]] = {"decision": [], "fact": [], "adr": []}
    depth: dict[str, int] = {}
    for i in range(n):
        kind = _pick(rng, kinds)
        status = _pick(rng, KIND_MIX[kind][1])
        rid = f"{PREFIX[kind]}-{i:05d}"
        subject = rng.choice(SUBJECTS).removeprefix("the ")
        title = f"{subject.capitalize()} {rng.choice(VERBS)} {rng.choice(OBJECTS)}"
        words = int(min(570, max(105, rng.lognormvariate(5.6, 0.5))))  # headings and code add a few words
        rec = {
            "id": rid,
            "kind": kind,
            "status": status,
            "title": title,
            "body": body(rng, words),
            "path": f"knowledge/{kind}s/{rid}.md",
            "tags": rng.sample(TAGS, k=rng.randint(0, 3)),
            "date": f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        }
        heads = chain_heads.get(kind)
        if heads is not None and status in ("accepted", "verified") and heads and rng.random() < 0.15:
            old = heads.pop(rng.randrange(len(heads)))
            rec["supersedes"] = old
            depth[rid] = depth.get(old, 0) + 1
        if heads is not None and status in ("accepted", "verified") and depth.get(rid, 0) < 3:
            heads.append(rid)
        records.append(rec)
    return records


def render(rec: dict) -> str:
    lines = [
        "---",
        f"id: {rec['id']}",
        f"kind: {rec['kind']}",
        f"status: {rec['status']}",
        f"title: {json.dumps(rec['title'])}",
        f"date: {rec['date']}",
    ]
    if rec.get("tags"):
        lines.append(f"tags: [{', '.join(rec['tags'])}]")
    if rec.get("supersedes"):
        lines.append(f"supersedes: {rec['supersedes']}")
    lines.append("---")
    return "\n".join(lines) + "\n" + rec["body"] + "\n"


GIT_ENV = {
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_DATE": "2025-06-01T12:00:00Z",
    "GIT_COMMITTER_DATE": "2025-06-01T12:00:00Z",
}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=dict(os.environ, **GIT_ENV)
    ).stdout


def generate(out: Path, n: int, seed: int = 7, commits: int = 4) -> list[dict]:
    """Write `n` records into a fresh git repo at `out`, committed in `commits` batches."""
    out = Path(out)
    if out.exists() and any(out.iterdir()):
        raise SystemExit(f"{out} exists and is not empty; pick a new folder")
    out.mkdir(parents=True, exist_ok=True)
    git(out, "init", "-q", "-b", "main")
    git(out, "config", "commit.gpgsign", "false")
    records = make_records(n, seed)
    per = max(1, -(-n // commits))
    for start in range(0, n, per):
        for rec in records[start : start + per]:
            p = out / rec["path"]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(render(rec), encoding="utf-8")
        git(out, "add", "-A")
        git(out, "commit", "-q", "-m", f"records {start}-{min(n, start + per) - 1}")
    return records


def change_records(repo: Path, records: list[dict], count: int, seed: int = 11) -> list[str]:
    """Edit `count` records' bodies (append a paragraph) and commit; returns their ids."""
    rng = random.Random(seed)
    chosen = rng.sample(records, count)
    for rec in chosen:
        p = Path(repo) / rec["path"]
        p.write_text(p.read_text("utf-8") + "\n" + paragraph(rng, 60) + "\n", encoding="utf-8")
    git(Path(repo), "commit", "-q", "-am", f"edit {count} records")
    return [r["id"] for r in chosen]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--records", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    recs = generate(args.out, args.records, args.seed)
    words = [len(r["body"].split()) for r in recs]
    print(
        json.dumps(
            {
                "repo": str(args.out),
                "records": len(recs),
                "words_min": min(words),
                "words_max": max(words),
                "words_mean": round(sum(words) / len(words), 1),
                "with_headings": sum("\n## " in "\n" + r["body"] for r in recs),
                "supersedes": sum("supersedes" in r for r in recs),
            }
        )
    )


if __name__ == "__main__":
    main()
