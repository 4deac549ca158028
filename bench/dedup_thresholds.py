"""Measure the candidate near-duplicate threshold on the shipped model (MiniLM int8).

Paraphrase groups (same statement reworded) vs. statements on the same topic that say something else,
plus "corrections" (same sentence, other numbers, or negated) that a cosine alone cannot separate.
Run: python bench/dedup_thresholds.py  — the result is recorded in
knowledge/facts/fact-candidates-dedup-thresholds.md and used in jupiter_git_memory/candidates/dedup.py.
"""

from __future__ import annotations

import itertools
import json

from jupiter_git_memory.candidates.dedup import DUPLICATE_COS, disagreement
from jupiter_git_memory.embedding.registry import load_embedder


def t(title: str, body: str) -> str:
    return f"{title}\n\n{body}"


GROUPS = {
    "pg": [
        t(
            "Use PostgreSQL for the main database",
            "We chose PostgreSQL because we need transactional DDL and JSONB indexes.",
        ),
        t(
            "Main database is PostgreSQL",
            "PostgreSQL was picked since it gives us JSONB indexing and transactional schema changes.",
        ),
        t(
            "PostgreSQL is our primary database",
            "The primary store is PostgreSQL; we rely on its JSONB indexes and transactional DDL.",
        ),
    ],
    "mysql": [
        t("Use MySQL for the main database", "We chose MySQL because the hosting provider only offers managed MySQL.")
    ],
    "sqlite": [
        t(
            "Use SQLite for the local cache",
            "The CLI keeps its cache in SQLite because it needs no server and ships with Python.",
        )
    ],
    "s3up": [
        t(
            "Retry uploads with exponential backoff",
            "Uploads to S3 are retried with exponential backoff up to 5 times because the API throttles bursts.",
        ),
        t(
            "S3 uploads use exponential backoff retries",
            "We retry S3 uploads up to five times with exponential backoff, since bursts get throttled by the API.",
        ),
        t(
            "Backoff on S3 upload failures",
            "Failed S3 uploads are retried (max 5 attempts) with exponential backoff because S3 throttles bursty clients.",
        ),
    ],
    "s3down": [
        t(
            "Downloads from S3 are not retried",
            "Downloads from S3 fail fast without retries so the caller can fall back to the CDN.",
        )
    ],
    "cache": [
        t(
            "The CI cache key includes the lockfile hash",
            "The CI cache key is derived from the hash of poetry.lock, so dependency changes invalidate the cache.",
        ),
        t(
            "CI cache keyed on poetry.lock hash",
            "Our CI cache key is computed from poetry.lock's hash; changing dependencies busts the cache.",
        ),
    ],
    "cacheoff": [
        t(
            "The CI cache is disabled on release branches",
            "Release builds run without the CI cache so artifacts are always built from scratch.",
        )
    ],
    "home": [
        t(
            "Tests must not share a Chroma directory",
            "Each test gets its own JGM_HOME because Chroma's local client is not safe across processes.",
        ),
        t(
            "Every test uses its own JGM_HOME",
            "Tests never share a Chroma dir: the local Chroma client cannot be shared by several processes.",
        ),
    ],
    "model": [
        t(
            "Tests share one embedding model per session",
            "The MiniLM model is loaded once per test session because loading it takes a second.",
        )
    ],
    "login": [
        t(
            "The flaky login test fails on slow CI runners",
            "test_login times out on 2-core CI runners because the session fixture waits 5 seconds for the server.",
        ),
        t(
            "test_login flakes on slow CI machines",
            "On 2-core runners test_login hits its timeout since the session fixture gives the server only 5 seconds.",
        ),
    ],
    "upload": [
        t(
            "The flaky upload test fails on slow CI runners",
            "test_upload times out on 2-core CI runners because the S3 mock starts slowly.",
        )
    ],
    "tok": [
        t(
            "API tokens expire after 24 hours",
            "Access tokens issued by the auth service expire after 24 hours; refresh tokens last 30 days.",
        ),
        t(
            "Auth access tokens live 24h",
            "The auth service issues access tokens valid for 24 hours, and refresh tokens valid for 30 days.",
        ),
    ],
    "lock": [
        t(
            "Writers hold an exclusive flock on the workspace",
            "Every index write takes an exclusive flock on the workspace lock file because Chroma is not multi-process safe.",
        ),
        t(
            "Index writes are serialised with a workspace flock",
            "All writes to the index are done under an exclusive file lock per workspace, since Chroma's local mode is not safe for several processes.",
        ),
    ],
    "lockread": [
        t(
            "Readers take a shared lock on the workspace",
            "Recall holds a shared flock so it never reads a half-written index.",
        )
    ],
    "fmt": [
        t(
            "Format Python with ruff",
            "We format all Python code with ruff format because it is fast and replaces black.",
        ),
        t(
            "ruff format is the Python formatter",
            "Python code is formatted by `ruff format`; it replaced black because it is much faster.",
        ),
    ],
    "lint": [
        t(
            "Lint Python with ruff",
            "We lint with ruff check in CI because it bundles flake8, isort and pyupgrade rules.",
        )
    ],
    "pg-dup": [
        t(
            "Use PostgreSQL for the main database",
            "We chose PostgreSQL because we need transactional DDL and JSONB indexes. Seen again in run 42.",
        )
    ],
}
# (original, correction): same wording, different claim
CORRECTIONS = [
    (
        GROUPS["tok"][0],
        t(
            "API tokens expire after 1 hour",
            "Access tokens issued by the auth service expire after 1 hour; refresh tokens last 7 days.",
        ),
    ),
    (
        GROUPS["pg"][0],
        t(
            "Do not use PostgreSQL for the main database",
            "We rejected PostgreSQL because transactional DDL and JSONB indexes are not needed.",
        ),
    ),
    (
        GROUPS["s3up"][0],
        t(
            "Retry uploads with exponential backoff",
            "Uploads to S3 are retried with exponential backoff up to 3 times because the API throttles bursts.",
        ),
    ),
    (
        GROUPS["home"][0],
        t(
            "Tests may share a Chroma directory",
            "Tests can share one JGM_HOME because Chroma's local client is safe across processes.",
        ),
    ),
]


def main() -> None:
    e = load_embedder()
    names, texts = [], []
    for g, ts in GROUPS.items():
        for x in ts:
            names.append(g.split("-")[0])
            texts.append(x)
    v = e.embed_passages(texts)
    sim = v @ v.T
    para, diff = [], []
    for i, j in itertools.combinations(range(len(texts)), 2):
        (para if names[i] == names[j] else diff).append((float(sim[i, j]), i, j))
    para.sort()
    diff.sort(reverse=True)
    thresholds = {}
    for th in (0.8, 0.85, 0.9):
        hit = [p for p in para if p[0] >= th]
        thresholds[str(th)] = {
            "paraphrases_caught": len(hit),
            "caught_after_guard": sum(not disagreement(texts[i], texts[j]) for _, i, j in hit),
            "different_statements_over": sum(s >= th for s, _, _ in diff),
        }
    cv = e.embed_passages([x for pair in CORRECTIONS for x in pair])
    corrections = []
    for k, (a, b) in enumerate(CORRECTIONS):
        cos = float(cv[2 * k] @ cv[2 * k + 1])
        corrections.append(
            {"cos": round(cos, 3), "over_duplicate_cos": cos >= DUPLICATE_COS, "guard": disagreement(a, b)}
        )
    print(
        json.dumps(
            {
                "model": e.spec.name,
                "duplicate_cos": DUPLICATE_COS,
                "paraphrase_pairs": len(para),
                "paraphrase_cos": [round(s, 3) for s, _, _ in para],
                "different_pairs": len(diff),
                "different_top_cos": [round(s, 3) for s, _, _ in diff[:5]],
                "thresholds": thresholds,
                "corrections": corrections,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
