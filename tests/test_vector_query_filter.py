"""view_query filters an unfiltered over-fetch by the view's chunks (Chroma holds every view's vectors,
and its own filtered search is much slower locally); the answer must equal filtering a full search, on a
real index and the real model, for common filters (served by the first over-fetch) and rare ones (widened)."""

from jupiter_git_memory.index.view_query import OVERFETCH, view_query
from jupiter_git_memory.recall.service import Recaller
from jupiter_git_memory.seed.seeder import Seeder

STATUSES = ["accepted"] * 6 + ["proposed", "rejected", "deprecated"]


def test_view_query_equals_filtering_a_full_search(repo, embedder):
    for i in range(45):
        kind = "fact" if i % 5 == 0 else "decision"
        status = ("verified" if i % 2 else "false") if kind == "fact" else STATUSES[i % len(STATUSES)]
        repo.record(
            f"r-{i:02d}",
            kind=kind,
            status=status,
            title=f"Rule {i} for the cache and retry layer",
            body=f"Record {i}: the cache layer retries {i % 7} times under load, then gives up.",
        )
    repo.commit()
    Seeder(repo.path).seed()
    r = Recaller(repo.path)
    try:
        idx = r.index()
        allowed = r.view_map(idx)
        v = embedder.embed_query("how many times does the cache layer retry")
        everything = idx.vectors.query(v, idx.vectors.count())
        filters = [
            lambda c: allowed[c][2] in ("accepted", "verified", "unverified"),  # common
            lambda c: allowed[c][2] == "rejected",  # rare: the search is widened
            lambda c: allowed[c][1] == "fact" and allowed[c][2] == "invalidated",
        ]
        for keep in filters:
            for n in (3, 10, 100):
                want = [c for c, _ in everything if keep(c)][:n]
                assert [c for c, _ in view_query(idx.vectors, v, n, keep)] == want
        rejected = {f"r-{i:02d}" for i in range(45) if i % 5 and STATUSES[i % len(STATUSES)] == "rejected"}
        assert {allowed[c][0] for c, _ in view_query(idx.vectors, v, 100, filters[1])} == rejected
        assert OVERFETCH >= 2
    finally:
        r.close()
