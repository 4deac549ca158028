"""The tests' fake embedder (embedding/fake_embedder.py): deterministic, offered by the real registry only to
tests, with an identity of its own that the index's model check keeps apart from the real model's."""

from __future__ import annotations

import numpy as np
import pytest

from jupiter_git_memory.embedding import registry
from jupiter_git_memory.embedding.fake_embedder import FAKE_HASH, TEST_EMBEDDERS_ENV, FakeHashEmbedder
from jupiter_git_memory.embedding.onnx_embedder import ModelError
from jupiter_git_memory.embedding.specs import MINILM_INT8, SHIPPED, identity_hash


@pytest.mark.unit
def test_vectors_are_deterministic_unit_length_and_follow_shared_words():
    e = FakeHashEmbedder()
    texts = ["The API gateway listens on port 8443", "Gateway ports: the API listens on 8443", "Bake bread at dawn"]
    a, b = e.embed_passages(texts), FakeHashEmbedder().embed_passages(texts)
    assert a.shape == (3, FAKE_HASH.dimension) and a.dtype == np.float32
    assert np.array_equal(a, b)  # another instance, the same vectors: nothing random, nothing learned
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0)
    q = e.embed_query("which port does the API gateway listen on?")
    near, far = float(a[0] @ q), float(a[2] @ q)
    assert near > FAKE_HASH.default_floor > far, (near, far)
    assert np.allclose(np.linalg.norm(e.embed([""]), axis=1), 1.0)  # no words: still a unit vector
    assert e.embed([]).shape == (0, FAKE_HASH.dimension)
    assert e.count_tokens("two words") == 4 and e.count_tokens("記憶") == 4  # a CJK character is a token


@pytest.mark.unit
def test_the_registry_offers_it_only_to_tests_and_never_lists_it(monkeypatch):
    monkeypatch.delenv(TEST_EMBEDDERS_ENV, raising=False)
    with pytest.raises(ModelError, match="unknown model 'fake-hash-384'"):
        registry.locate(FAKE_HASH.name)
    monkeypatch.setenv(TEST_EMBEDDERS_ENV, "1")
    spec, _, tokenizer = registry.locate(FAKE_HASH.name)
    assert spec == FAKE_HASH and tokenizer is None
    assert isinstance(registry.load_embedder(FAKE_HASH.name), FakeHashEmbedder)
    assert FAKE_HASH.name not in SHIPPED and FAKE_HASH.name not in [m["name"] for m in registry.list_models()]
    assert identity_hash(FAKE_HASH.identity()) != identity_hash(MINILM_INT8.identity())
    assert FAKE_HASH.identity()["backend"] == "fake-hash"


def test_a_seed_and_recall_through_it_and_the_index_refuses_the_real_model_beside_it(repo, fake_model, monkeypatch):
    from jupiter_git_memory.recall.service import Recaller
    from jupiter_git_memory.seed.seeder import Seeder

    repo.record("fact-port", kind="fact", status="verified", title="The API gateway listens on port 8443")
    repo.record("dec-bread", title="Bake bread at dawn", body="The bakery opens at six.")
    repo.commit()
    s = Seeder(repo.path)
    assert s.embedder.spec.name == fake_model == "fake-hash-384"
    report = s.seed()
    assert sorted(report.added) == ["dec-bread", "fact-port"] and report.embedded_chunks == 2
    res = Recaller(repo.path).recall("Which port does the API gateway listen on?", k=1)
    assert [r["id"] for r in res.results] == ["fact-port"]
    monkeypatch.setenv("JGM_MODEL", MINILM_INT8.name)  # the real model against the fake's vectors: refused
    with pytest.raises(Exception, match="another embedding identity"):
        Recaller(repo.path).recall("Which port does the API gateway listen on?", k=1)
