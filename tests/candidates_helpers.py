"""Helpers for the candidate-flow tests: a seeded repo with a few accepted records, inputs, store scans."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from conftest import Repo

JGM = str(Path(sys.executable).parent / "jgm")

RETRY_RECORD = (
    "dec-s3-retry",
    "Retry uploads with exponential backoff",
    "Uploads to S3 are retried with exponential backoff up to 5 times because the API throttles bursts.",
)
TOKENS_RECORD = (
    "fact-token-ttl",
    "API tokens expire after 24 hours",
    "Access tokens issued by the auth service expire after 24 hours; refresh tokens last 30 days.",
)
# paraphrase of RETRY_RECORD measured at cos 0.957 with the shipped model
RETRY_PARAPHRASE = (
    "S3 uploads use exponential backoff retries",
    "We retry S3 uploads up to five times with exponential backoff, since bursts get throttled by the API.",
)
CACHE_FACT = (
    "The CI cache key includes the lockfile hash",
    "The CI cache key is derived from the hash of poetry.lock, so dependency changes invalidate the cache.",
)
# paraphrase of CACHE_FACT measured at cos 0.886
CACHE_PARAPHRASE = (
    "CI cache keyed on poetry.lock hash",
    "Our CI cache key is computed from poetry.lock's hash; changing dependencies busts the cache.",
)


def seed_repo(repo: Repo) -> str:
    """Accepted decision + verified fact, committed and seeded; returns the commit."""
    rid, title, body = RETRY_RECORD
    repo.record(rid, rel=f"knowledge/decisions/{rid}.md", title=title, body=body, source="src/upload.py")
    rid, title, body = TOKENS_RECORD
    repo.record(
        rid,
        rel=f"knowledge/facts/{rid}.md",
        kind="fact",
        status="verified",
        title=title,
        body=body,
        source="auth/config.yaml",
    )
    repo.write("src/app.py", "print('hello')\n")
    sha = repo.commit("knowledge")
    from jupiter_git_memory.seed.seeder import Seeder

    report = Seeder(repo.path).seed()
    assert not report.errors, report.errors
    return sha


def service(repo: Repo):
    from jupiter_git_memory.candidates.service import CandidateService

    return CandidateService(repo.path)


def fact(title: str, body: str, **kw):
    from jupiter_git_memory.candidates.model import CandidateInput

    kw.setdefault("source", "ci/pipeline.yml")
    kw.setdefault("agent", "agent-1")
    return CandidateInput("fact", title, body, **kw)


def candidate_rows(repo: Repo) -> dict:
    from jupiter_git_memory.base.store import workspace_dir
    from jupiter_git_memory.git.workspace import find_workspace
    from jupiter_git_memory.index.catalog import Catalog

    cat = Catalog(workspace_dir(find_workspace(repo.path).id) / "catalog.sqlite")
    try:
        return cat.records(origin="candidate")
    finally:
        cat.close()


def catalog_generation(repo: Repo) -> int:
    from jupiter_git_memory.base.store import workspace_dir
    from jupiter_git_memory.git.workspace import find_workspace
    from jupiter_git_memory.index.catalog import Catalog

    cat = Catalog(workspace_dir(find_workspace(repo.path).id) / "catalog.sqlite")
    try:
        return cat.generation()
    finally:
        cat.close()


def recall_ids(repo: Repo, query: str, statuses=None) -> list[str]:
    from jupiter_git_memory.index.vectors import reset_clients
    from jupiter_git_memory.recall.service import Recaller

    reset_clients()  # a fresh reader, as a new process would be (a `jgm seed` subprocess may have written)
    r = Recaller(repo.path)
    try:
        return [x["id"] for x in r.recall(query, k=10, statuses=statuses).results]
    finally:
        r.close()


from helpers import jgm, jgm_json  # noqa: E402,F401 - the candidate tests import them from here


def files_containing(root: Path, needle: str) -> list[str]:
    """Every file under `root` (SQLite db + WAL, Chroma dir, logs, tokens ...) whose bytes contain `needle`."""
    hits = []
    data = needle.encode("utf-8")
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            p = Path(dirpath) / f
            try:
                if data in p.read_bytes():
                    hits.append(str(p))
            except OSError:
                pass
    return hits


def store_file_count(root: Path) -> int:
    return sum(len(files) for _d, _s, files in os.walk(root))
