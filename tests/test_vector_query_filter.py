"""VectorIndex.query filters an unfiltered over-fetch itself (Chroma's filtered search is much slower
locally); the answer must be the one Chroma's own `where` gives, on a real index and the real model."""

from jupiter_git_memory.index.vectors import OVERFETCH, _matcher
from jupiter_git_memory.seed.seeder import Seeder

STATUSES = ["accepted"] * 6 + ["proposed", "rejected", "deprecated"]


def test_filtered_query_equals_chromas_where(repo, embedder):
    for i in range(45):
        kind = "fact" if i % 5 == 0 else "decision"
        status = ("verified" if i % 2 else "false") if kind == "fact" else STATUSES[i % len(STATUSES)]
        repo.record(f"r-{i:02d}", kind=kind, status=status, title=f"Rule {i} for the cache and retry layer",
                    body=f"Record {i}: the cache layer retries {i % 7} times under load, then gives up.")
    repo.commit()
    s = Seeder(repo.path)
    s.seed()
    idx = s.open()
    try:
        v = embedder.embed_query("how many times does the cache layer retry")
        wheres = [
            {"status": {"$in": ["accepted", "verified", "unverified"]}},  # common: served from the over-fetch
            {"status": {"$in": ["rejected"]}},  # rare: falls back to Chroma's filter
            {"$and": [{"status": {"$in": ["accepted", "invalidated"]}}, {"kind": {"$in": ["decision", "fact"]}}]},
            {"$or": [{"kind": "fact"}, {"status": {"$ne": "accepted"}}]},
        ]
        for where in wheres:
            for n in (3, 10, 100):
                ours = idx.vectors.query(v, n, where)
                chroma = idx.vectors._query(v, n, where)
                assert [c for c, _, _ in ours] == [c for c, _, _ in chroma], (where, n)
                assert all(_matcher(where)(m) for _, _, m in ours)
        rejected = {f"r-{i:02d}" for i in range(45) if i % 5 and STATUSES[i % len(STATUSES)] == "rejected"}
        assert {m["record_id"] for _, _, m in idx.vectors.query(v, 100, wheres[1])} == rejected
    finally:
        idx.close()


def test_matcher_declines_what_it_does_not_know():
    assert _matcher({"status": {"$gt": 1}}) is None
    assert _matcher({"$and": [{"status": {"$in": ["a"]}}, {"x": {"$contains": "y"}}]}) is None
    assert _matcher({"a": 1, "b": 2}) is None
    m = _matcher({"$and": [{"status": {"$in": ["a", "b"]}}, {"kind": {"$nin": ["k"]}}]})
    assert m({"status": "a", "kind": "j"}) and not m({"status": "a", "kind": "k"}) and not m({"status": "c"})
    assert OVERFETCH >= 2
