"""The real ONNX model's vectors, remembered per loaded model for the test session (a pytest plugin, loaded by
conftest.py).

Why: many tests seed the same fixture texts again (each kill of a crash test reseeds the same records, each
test of a module seeds its module's records), and on two shared cores the model's inference was most of the
suite's CPU. A text the model has embedded once in this process is not run through onnxruntime again: its
vector is the one the model computed. Nothing else changes:

- the model still loads (sha256 checks, onnxruntime session) wherever it did, and every text is embedded by the
  real model the first time a worker sees it, so every code path still runs on real vectors;
- the vector is exactly the model's: an ONNX embedding does not depend on its batch-mates, their order or the
  thread count (tests/test_embed_memo.py checks this bit for bit), so a remembered vector equals a recomputed one;
- it lives on the embedder instance, so two models (or one file under two specs) never share vectors;
- only this process: a `jgm` subprocess, a daemon, a server or a crash child computes its own vectors, as before;
- a test that counts the model's batches (tests/crash_child.py) runs in a child, where this plugin is not loaded.
"""

from __future__ import annotations

import numpy as np
import pytest

_MEMO = "_test_vectors"


def remembering(real):
    """`OnnxEmbedder.embed` that runs `real` on the texts this embedder has not embedded yet."""

    def embed(self, texts: list[str]) -> np.ndarray:
        memo: dict[str, np.ndarray] | None = self.__dict__.get(_MEMO)
        if memo is None:
            memo = self.__dict__.setdefault(_MEMO, {})
        missing = [t for t in dict.fromkeys(texts) if t not in memo]
        if missing or not texts:
            fresh = real(self, missing)
            memo.update(zip(missing, fresh))
            if not texts:
                return fresh
        return np.stack([memo[t] for t in texts])

    embed.__wrapped__ = real  # type: ignore[attr-defined]
    return embed


@pytest.hookimpl
def pytest_configure(config: pytest.Config) -> None:
    from jupiter_git_memory.embedding.onnx_embedder import OnnxEmbedder

    if not hasattr(OnnxEmbedder.embed, "__wrapped__"):
        OnnxEmbedder.embed = remembering(OnnxEmbedder.embed)  # type: ignore[method-assign]
