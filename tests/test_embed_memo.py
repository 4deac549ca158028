"""tests/embed_memo.py gives a test the vector the real model computes, bit for bit: an ONNX embedding does not
depend on its batch-mates, their order or the thread count, and a remembered text skips onnxruntime."""

from __future__ import annotations

import numpy as np
import pytest

from jupiter_git_memory.embedding.onnx_embedder import OnnxEmbedder
from jupiter_git_memory.embedding.registry import locate

pytestmark = pytest.mark.integration

TEXTS = [
    "We cache sessions in Redis because lookups are hot.",
    "Orders live in PostgreSQL 16 for reporting.",
    "short",
    "Record 3 explains how the cache layer behaves. It was measured on staging. " * 12,  # past max_tokens
    "我們使用 Redis 作為快取",
]


def _fresh(threads: int) -> OnnxEmbedder:
    spec, model, tok = locate("minilm-l6-v2-int8")
    assert tok is not None
    return OnnxEmbedder(spec, model, tok, threads=threads)


def test_a_remembered_vector_is_the_one_the_model_computes():
    real = OnnxEmbedder.embed.__wrapped__  # type: ignore[attr-defined]
    one, two = _fresh(1), _fresh(2)
    batched = real(two, TEXTS)
    alone = np.stack([real(one, [t])[0] for t in TEXTS])
    reversed_ = real(one, TEXTS[::-1])[::-1]
    assert np.array_equal(batched, alone) and np.array_equal(batched, reversed_)

    calls = []
    run = one.session.run
    one.session = type("Counted", (), {"run": lambda _s, *a: calls.append(1) or run(*a)})()
    first = one.embed(TEXTS[:2])
    assert calls and np.array_equal(first, batched[:2])
    calls.clear()
    again = one.embed([TEXTS[1], *TEXTS, TEXTS[0]])
    assert np.array_equal(again, np.concatenate([batched[1:2], batched, batched[:1]]))
    assert len(calls) == 1  # only the three texts not seen yet went to the model, in one batch
    calls.clear()
    assert np.array_equal(one.embed(TEXTS), batched) and calls == []
    assert one.embed([]).shape == (0, 384)
    assert np.array_equal(_fresh(1).embed_passages(TEXTS[:1]), batched[:1])  # a new model instance computes its own
