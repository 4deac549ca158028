"""The real offline model: verification, pooling paths, ordering, model registry commands."""

import json
import subprocess
import sys

import numpy as np
import pytest

from jupiter_git_memory.embedding import registry
from jupiter_git_memory.embedding.onnx_embedder import ModelError, OnnxEmbedder
from jupiter_git_memory.embedding.specs import BGE_QUERY_INSTRUCTION, SHIPPED

pytestmark = pytest.mark.integration


def test_default_model_embeds_normalised_and_semantic(embedder):
    v = embedder.embed_passages(
        ["The cat sat on the mat.", "A kitten is sitting on a rug.", "Quarterly tax filing deadlines."]
    )
    assert v.shape == (3, 384)
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert v[0] @ v[1] > v[0] @ v[2] + 0.2


IDLE_CPU = """
import json, time
from jupiter_git_memory.embedding import registry
from jupiter_git_memory.embedding.onnx_embedder import OnnxEmbedder
spec, model, tok = registry.locate(registry.DEFAULT_MODEL)
e = OnnxEmbedder(spec, model, tok, threads=2)
burnt = []
for _ in range(5):
    e.embed_query("which cache do sessions use")
    cpu = time.process_time()
    time.sleep(0.05)
    burnt.append(time.process_time() - cpu)
print(json.dumps(burnt))
"""


@pytest.mark.e2e
def test_an_idle_embedder_burns_no_cpu_after_a_query():
    """onnxruntime's intra-op workers spin after each run by default: ~40 ms of CPU per 50 ms idle on this
    machine, taken from a recall's lexical worker and Chroma server (issue 39). Ours sleep. Measured in a
    process of its own, as `jgm serve` runs it (under pytest the workers spun only after the first run)."""
    out = subprocess.run([sys.executable, "-c", IDLE_CPU], capture_output=True, text=True, timeout=120, check=True)
    burnt = json.loads(out.stdout)
    assert sorted(burnt)[2] < 0.005, burnt


def test_order_preserved_despite_length_sorting(embedder):
    texts = ["short", "a much longer sentence about databases and indexes " * 3, "mid length text here"]
    batch = embedder.embed(texts)
    single = np.stack([embedder.embed([t])[0] for t in texts])
    assert np.allclose(batch, single, atol=1e-4)


def test_sha256_mismatch_refused(tmp_path):
    spec, model, tok = registry.locate("minilm-l6-v2-int8")
    bad = tmp_path / "model.onnx"
    data = bytearray(model.read_bytes())
    data[-1] ^= 0xFF
    bad.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="does not match its sha256"):
        OnnxEmbedder(spec, bad, tok)


def test_bge_specs_shipped_with_cls_and_instruction():
    for name in ("bge-small-en-v1.5", "bge-base-en-v1.5"):
        s = SHIPPED[name]
        assert s.pooling == "cls" and s.normalize and s.query_instruction == BGE_QUERY_INSTRUCTION
        assert s.passage_instruction == ""


def test_bge_not_installed_says_how_to_get_it():
    with pytest.raises(ModelError, match="jgm model pull bge-small-en-v1.5"):
        registry.locate("bge-small-en-v1.5")


def test_pull_unreachable_hub_is_clear_error(monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    with pytest.raises(
        ModelError, match=r"cannot download .*Connection refused.*`jgm model add bge-small-en-v1.5 --dir DIR`"
    ):
        registry.pull_model("bge-small-en-v1.5", timeout=3)


def test_add_local_dir_with_cls_pooling_and_instruction(minilm_dir, embedder):
    """The BGE code path (CLS pooling + query instruction) on real weights registered from a folder."""
    spec = registry.add_model(
        "local-cls", minilm_dir, pooling="cls", dimension=384, query_instruction=BGE_QUERY_INSTRUCTION
    )
    assert spec.files["model"][1] and len(spec.files["model"][1]) == 64
    e = registry.load_embedder("local-cls")
    q = e.embed_query("where are vectors stored")
    raw = e.embed([BGE_QUERY_INSTRUCTION + "where are vectors stored"])[0]
    assert np.allclose(q, raw) and not np.allclose(q, e.embed(["where are vectors stored"])[0])
    p = e.embed_passages(["vectors are stored in chroma"])[0]
    assert not np.allclose(p, embedder.embed_passages(["vectors are stored in chroma"])[0])  # cls != mean
    names = {m["name"]: m for m in registry.list_models()}
    assert names["local-cls"]["available"] and not names["bge-base-en-v1.5"]["available"]


def test_add_shipped_name_checks_pinned_hash(minilm_dir):
    with pytest.raises(ModelError, match="tokenizer sha256 .* does not match the spec's d241a60d5e8f"):
        registry.add_model("bge-base-en-v1.5", minilm_dir)  # MiniLM's files are not BGE base's
    assert not (registry.models_dir() / "bge-base-en-v1.5").exists()


def test_add_checks_dimension(minilm_dir):
    with pytest.raises(ModelError, match="gives 384-dimensional vectors, the spec says 768"):
        registry.add_model("wrong-dim", minilm_dir, pooling="cls", dimension=768)
    assert not (registry.models_dir() / "wrong-dim").exists()


def test_add_requires_files(tmp_path):
    with pytest.raises(ModelError, match="needs model.onnx"):
        registry.add_model("x", tmp_path, pooling="mean", dimension=384)


def test_token_counting_and_truncation(embedder):
    assert embedder.count_tokens("hello world") == 4  # [CLS] hello world [SEP]
    long = "word " * 1000
    assert embedder.count_tokens(long) > 256
    assert embedder.embed([long]).shape == (1, 384)  # truncated, not failing


def _serve_hub(files: dict[str, bytes], revision: str):
    """A hub on 127.0.0.1 that answers as huggingface.co does for `resolve/<rev>/<path>`: HEAD with the
    commit and ETag headers the hub library reads, GET with the bytes."""
    import hashlib
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Hub(BaseHTTPRequestHandler):
        def _answer(self, body: bool) -> None:
            data = files.get(self.path)
            if data is None:
                self.send_response(404)
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("X-Repo-Commit", revision)
            self.send_header("ETag", '"' + hashlib.sha256(data).hexdigest() + '"')
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if body:
                self.wfile.write(data)

        def do_HEAD(self) -> None:
            self._answer(False)

        def do_GET(self) -> None:
            self._answer(True)

        def log_message(self, *a) -> None:
            pass

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Hub)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


@pytest.mark.e2e
@pytest.mark.parametrize("tamper", [False, True])
def test_pull_downloads_through_the_hub_library_and_checks_the_pinned_hash(monkeypatch, tamper):
    """A pull of a shipped spec from a hub (a real HTTP server here, the real MiniLM bytes): installed and
    runnable when the bytes match the pinned sha256; refused, and nothing installed, when the hub serves
    other bytes."""
    import dataclasses

    from jupiter_git_memory.embedding.onnx_embedder import sha256_file

    base, model, tok = registry.locate("minilm-l6-v2-int8")
    rev = "0" * 40
    spec = dataclasses.replace(
        base,
        name="hub-test",
        model_id="org/hub-test",
        revision=rev,
        files={"model": ("onnx/model.onnx", sha256_file(model)), "tokenizer": ("tokenizer.json", "")},
    )
    monkeypatch.setitem(SHIPPED, "hub-test", spec)
    served = bytearray(model.read_bytes())
    if tamper:
        served[-1] ^= 0xFF
    srv = _serve_hub(
        {
            f"/org/hub-test/resolve/{rev}/onnx/model.onnx": bytes(served),
            f"/org/hub-test/resolve/{rev}/tokenizer.json": tok.read_bytes(),
        },
        rev,
    )
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{srv.server_address[1]}")
    try:
        if tamper:
            with pytest.raises(ModelError, match="sha256"):
                registry.pull_model("hub-test", timeout=5)
            assert not (registry.models_dir() / "hub-test").exists()
        else:
            got = registry.pull_model("hub-test", timeout=5)
            assert got.files["tokenizer"][1]  # recorded on first pull
            e = registry.load_embedder("hub-test")
            assert e.embed_query("where are vectors stored").shape == (384,)
    finally:
        srv.shutdown()
