"""The team's vectors on a `chroma run` server: one content-addressed collection per vector identity.

Why: every clone used to embed every chunk again. On a server, a chunk's vector is also kept under
`sha256(identity hash, chunk text)` in `jgm-content-<identity hash>`, so another store (a second clone, CI, a
repository holding the same text) fetches it instead of embedding it. The collection is append-only: jgm
never deletes from it or replaces a vector with another text's, so concurrent writers cannot hurt each other
(an upsert of an id can only carry the same text's vector by the same model). What each store recalls from
stays its own collection (index.handle: named with the store's owner tag), so catalogs, views, rebuilds and
repairs stay per store (dec-team-vectors-by-content).
"""

from __future__ import annotations

import hashlib
import json

import numpy as np

from ..embedding.specs import identity_hash
from .vectors import VectorIndex, is_server

CONTENT_PREFIX = "jgm-content-"
_PAGE = 500  # ids per get/upsert request: a page of 1,024-dimension vectors is ~2 MB of JSON


def content_collection(identity: dict) -> str:
    return CONTENT_PREFIX + identity_hash(identity)


def content_id(identity: dict, text: str) -> str:
    """The id of `text`'s vector under `identity`: the same text by the same model in any store or repository."""
    key = json.dumps(identity, sort_keys=True) + "\n" + text
    return hashlib.sha256(key.encode()).hexdigest()


class ContentVectors:
    """The content collection of one identity on a server (opened with the store's collection; see open_index)."""

    def __init__(self, location: str, identity: dict, write: bool):
        self.identity = identity
        self.vectors = VectorIndex(location, content_collection(identity), identity, write=write)

    def close(self) -> None:
        self.vectors.close()

    def fetch(self, texts: list[str]) -> dict[int, np.ndarray]:
        """{position in `texts`: vector} for every text whose vector the server already holds."""
        ids = [content_id(self.identity, t) for t in texts]
        where: dict[str, list[int]] = {}
        for i, cid in enumerate(ids):
            where.setdefault(cid, []).append(i)
        out: dict[int, np.ndarray] = {}
        unique = list(where)
        for i in range(0, len(unique), _PAGE):
            for cid, vec in self.vectors.vectors(unique[i : i + _PAGE]).items():
                for pos in where.get(cid, []):
                    out[pos] = vec
        return out

    def publish(self, texts: list[str], vectors: np.ndarray) -> None:
        """Add the vectors of `texts` (embedded by this store) for the others; an id already there gets the same
        text's vector again, so a race between two writers of one text is harmless."""
        if not texts:
            return
        ids, keep = [], []
        seen: set[str] = set()
        for i, t in enumerate(texts):
            cid = content_id(self.identity, t)
            if cid not in seen:
                seen.add(cid)
                ids.append(cid)
                keep.append(i)
        self.vectors.add(ids, np.asarray(vectors)[keep], [{"chars": len(texts[i])} for i in keep])


def open_content(location: str, identity: dict, write: bool) -> ContentVectors | None:
    """The team's content collection when `location` is a server, else None (an embedded store shares nothing)."""
    return ContentVectors(location, identity, write) if is_server(location) else None


def take_fetched(content: ContentVectors | None, plan) -> np.ndarray | None:
    """Fetch what the server already holds of `plan.embed` (a WritePlan): those entries move to the front and
    `plan.fetched` counts them; the vectors returned are theirs, in order. The rest is for the caller to embed,
    and `join` puts both together in plan order (an interrupted embedding keeps a prefix: seed.interrupt)."""
    if content is None or not plan.embed:
        return None
    got = content.fetch([c.text for c, _ in plan.embed])
    if not got:
        return None
    order = sorted(range(len(plan.embed)), key=lambda i: i not in got)  # stable: fetched first, each in order
    plan.embed = [plan.embed[i] for i in order]
    plan.fetched = len(got)
    return np.stack([got[i] for i in order[: len(got)]])


def join(fetched: np.ndarray | None, embedded: np.ndarray | None) -> np.ndarray | None:
    parts = [p for p in (fetched, embedded) if p is not None and len(p)]
    return np.concatenate(parts) if parts else None
