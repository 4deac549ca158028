"""A deterministic fake embedder for tests of plumbing (seed, index, catalog, surfaces), not of ranking.

Why it exists: a test that checks that a record reaches the index, a receipt is written or a command answers
spends most of its time in the real model, and needs none of its meaning. This one hashes words into a
fixed-size vector (feature hashing, signed), so equal texts get equal vectors, texts that share words point
the same way, and it costs microseconds. It goes through the real registry (`registry.locate` and
`load_embedder`) with a spec of its own: its identity differs from every real model's, so the index's
model-identity check refuses to mix its vectors with real ones, as it would for any other model.

It is offered only when JGM_TEST_EMBEDDERS=1 (tests/conftest.py's `fake_model` fixture sets it with
JGM_MODEL): never listed, never the default, and an unknown model to a user.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np

from ..base.environment import TEST_EMBEDDERS
from .specs import ModelSpec

TEST_EMBEDDERS_ENV = TEST_EMBEDDERS.name
BACKEND = "fake-hash"

FAKE_HASH = ModelSpec(
    name="fake-hash-384",
    model_id="jgm-tests/fake-hash",
    revision="1",
    dimension=384,
    pooling="mean",
    normalize=True,
    max_tokens=256,
    # Texts sharing a word or two sit at 0.15-0.5, unrelated ones near 0 (+-0.05, hash collisions): a floor
    # between the two keeps "nothing matches" meaningful for plumbing tests. Not measured: nothing ranks on it.
    default_floor=0.12,
    floor_measured=True,
    backend=BACKEND,
    languages=("en", "zh", "ja", "ko", "multilingual"),  # words are words: no language is out of reach
    description="tests only: words hashed into 384 dimensions (deterministic, no model files).",
)

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_STOP = frozenset(
    "a an and are as at be by do does for from has how in is it of on or that the this to was what which who why with".split()
)


def enabled() -> bool:
    return TEST_EMBEDDERS.get() == "1"


def _tokens(text: str) -> list[str]:
    """Lowercased words, a CJK character each (those scripts write no spaces), plural `s` folded."""
    out: list[str] = []
    for w in _WORD.findall(text.lower()):
        if _CJK.search(w):
            out.extend(_CJK.findall(w))
        elif w not in _STOP:
            out.append(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w)
    return out


class FakeHashEmbedder:
    """The OnnxEmbedder interface (embed, embed_passages, embed_query, count_tokens) over feature hashing."""

    def __init__(self, spec: ModelSpec = FAKE_HASH):
        self.spec = spec
        self.batch_size = 64

    def count_tokens(self, text: str) -> int:
        words = _WORD.findall(text)
        return sum(len(_CJK.findall(w)) or 1 for w in words) + 2  # a CJK character each; [CLS] ... [SEP]

    def _vector(self, text: str) -> np.ndarray:
        v = np.zeros(self.spec.dimension, dtype=np.float32)
        for tok in _tokens(text)[: self.spec.max_tokens]:
            h = int.from_bytes(hashlib.blake2b(tok.encode(), digest_size=8).digest(), "little")
            v[h % self.spec.dimension] += 1.0 if (h >> 32) & 1 else -1.0
        n = float(np.linalg.norm(v))
        if n == 0.0:  # no words: a fixed direction, so no zero vector reaches the index
            v[0], n = 1.0, 1.0
        return v / n

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.spec.dimension), dtype=np.float32)
        return np.stack([self._vector(t) for t in texts])

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return self.embed(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self._vector(text)
