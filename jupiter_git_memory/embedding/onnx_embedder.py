"""Run a model spec on onnxruntime + tokenizers.

Texts are sorted by length before batching so padding is small, threads follow the machine's
cores, and vectors are pooled (CLS or mean) and L2-normalised as the spec says.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np

from ..base import error_codes as E
from ..base.environment import THREADS
from ..base.errors import JgmError
from .specs import ModelSpec


class ModelError(JgmError, RuntimeError):
    """The model cannot be used: missing, corrupt (sha256 mismatch) or unreachable."""

    entry = E.MODEL_UNAVAILABLE


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def verify_file(path: Path, expected: str, role: str, spec_name: str) -> None:
    if not path.is_file():
        raise ModelError(f"{spec_name}: {role} file {path} is missing")
    if expected and sha256_file(path) != expected:
        raise ModelError(
            f"{spec_name}: {role} file {path} does not match its sha256 {expected[:12]}…; "
            f"reinstall the package or re-add the model"
        )


def ort_failures() -> tuple[type[BaseException], ...]:
    """What onnxruntime raises for a model it cannot load or run: its own classes (Fail, InvalidGraph,
    NoSuchFile, ..., which derive from Exception directly and vary by version), and the built-in ones it maps
    to. A bug in our code is none of them, and is never reported as an unusable model."""
    from onnxruntime.capi import onnxruntime_pybind11_state as state

    own = [v for v in vars(state).values() if isinstance(v, type) and issubclass(v, Exception)]
    return (RuntimeError, OSError, ValueError, *own)


class OnnxEmbedder:
    """Embeds passages and queries for one spec. Construct through `embedding.registry.load_embedder`."""

    # 8, not 32: on CPU the cost per text is the same (measured, bench/run.py), but onnxruntime's arena keeps
    # the peak of one batch: 32 x 256 tokens held ~1.4 GB, 8 holds ~0.5 GB (fact-bench-embed-batch-memory)
    def __init__(
        self, spec: ModelSpec, model_path: Path, tokenizer_path: Path, batch_size: int = 8, threads: int | None = None
    ):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        verify_file(model_path, spec.files["model"][1], "model", spec.name)
        verify_file(tokenizer_path, spec.files["tokenizer"][1], "tokenizer", spec.name)
        self.spec = spec
        self.batch_size = batch_size
        self.tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self.tokenizer.enable_truncation(max_length=spec.max_tokens)
        self.tokenizer.no_padding()
        self._counter = Tokenizer.from_file(str(tokenizer_path))  # untruncated, unpadded: chunk budgets
        self._counter.no_padding()
        self._counter.no_truncation()
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads or int(THREADS.get_or(0)) or (os.cpu_count() or 1)
        opts.inter_op_num_threads = 1
        # idle workers sleep instead of spinning: a spinning worker took the core a recall's lexical worker and
        # the Chroma server were waiting for (a query embedding 9.8 → 5.8 ms with the other core busy), and a
        # seed embeds as fast without it (measured: 20.8 texts/s either way, 10% less CPU)
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        try:
            self.session = ort.InferenceSession(str(model_path), sess_options=opts, providers=["CPUExecutionProvider"])
        except ort_failures() as e:  # a missing, damaged or unsupported model file
            raise ModelError(f"{spec.name}: onnxruntime cannot load {model_path}: {e}") from e
        self._inputs = {i.name for i in self.session.get_inputs()}

    def count_tokens(self, text: str) -> int:
        """Tokens including special tokens, as the model will see them (before truncation)."""
        return len(self._counter.encode(text).ids)

    def _run(self, texts: list[str]) -> np.ndarray:
        encs = self.tokenizer.encode_batch(texts)
        width = max(len(e.ids) for e in encs)
        ids = np.zeros((len(encs), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for i, e in enumerate(encs):
            ids[i, : len(e.ids)] = e.ids
            mask[i, : len(e.ids)] = 1
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = self.session.run(None, feed)[0]
        if self.spec.pooling == "cls":
            vecs = hidden[:, 0, :]
        else:
            m = mask[:, :, None].astype(hidden.dtype)
            vecs = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
        if self.spec.normalize:
            vecs = vecs / np.clip(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12, None)
        return vecs.astype(np.float32)

    def embed(self, texts: list[str]) -> np.ndarray:
        """Embed raw texts (no instruction), preserving input order."""
        if not texts:
            return np.zeros((0, self.spec.dimension), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = None
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            vecs = self._run([texts[i] for i in idx])
            if out is None:  # sized from the model's output, so a wrong spec dimension is detectable
                out = np.zeros((len(texts), vecs.shape[1]), dtype=np.float32)
            out[idx] = vecs
        return out

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        pre = self.spec.passage_instruction
        return self.embed([pre + t for t in texts] if pre else texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([self.spec.query_instruction + text])[0]
