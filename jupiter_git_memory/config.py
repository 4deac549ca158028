"""Project settings from `jgm.toml` or `[tool.jgm]` in pyproject.toml, with environment overrides.

Settings live in the repo so every clone and CI run indexes the same way.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .embedding.specs import DEFAULT_MODEL

DEFAULT_IGNORE = ("**/README.md", "**/.*", "**/_*")


class ConfigError(ValueError):
    pass


@dataclass(frozen=True)
class Settings:
    roots: tuple[str, ...] = ("knowledge",)
    ignore: tuple[str, ...] = DEFAULT_IGNORE
    model: str = DEFAULT_MODEL
    chroma_url: str | None = None
    weights: dict[str, dict[str, float]] = field(default_factory=dict)  # kind -> status -> weight
    floor: float | None = None  # overrides the calibrated/shipped floor when set
    hybrid: bool = True
    lexical_weight: float = 0.3
    corroborate_margin: float = 0.05  # hybrid: records this close above the floor need lexical evidence
    global_workspace: bool = False  # share this workspace's records with global recall
    source: str | None = None  # the file these settings came from


def load_settings(repo: Path) -> Settings:
    """Read settings for `repo`; `jgm.toml` wins over pyproject's `[tool.jgm]`."""
    data: dict = {}
    source = None
    jgm_toml = repo / "jgm.toml"
    pyproject = repo / "pyproject.toml"
    try:
        if jgm_toml.is_file():
            data, source = tomllib.loads(jgm_toml.read_text("utf-8")), str(jgm_toml)
        elif pyproject.is_file():
            data = tomllib.loads(pyproject.read_text("utf-8")).get("tool", {}).get("jgm", {})
            source = str(pyproject) if data else None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{source or jgm_toml}: invalid TOML: {e}") from e
    kw: dict = {"source": source}
    if "roots" in data:
        roots = data["roots"]
        if not isinstance(roots, list) or not roots or not all(isinstance(r, str) for r in roots):
            raise ConfigError(f"{source}: `roots` must be a non-empty list of folder names")
        for r in roots:
            if Path(r).is_absolute() or ".." in Path(r).parts:
                raise ConfigError(f"{source}: root {r!r} must be a relative path inside the repo")
        kw["roots"] = tuple(roots)
    if "ignore" in data:
        kw["ignore"] = tuple(DEFAULT_IGNORE) + tuple(data["ignore"])
    for key in ("model", "chroma_url"):
        if key in data:
            kw[key] = str(data[key])
    if "weights" in data:
        w = data["weights"]
        if not isinstance(w, dict) or not all(isinstance(v, dict) for v in w.values()):
            raise ConfigError(f"{source}: `[weights]` must be tables per kind, e.g. [weights.decision] accepted = 2.0")
        kw["weights"] = {k: {s: float(x) for s, x in v.items()} for k, v in w.items()}
    if "floor" in data:
        kw["floor"] = float(data["floor"])
    if "hybrid" in data:
        kw["hybrid"] = bool(data["hybrid"])
    if "lexical_weight" in data:
        kw["lexical_weight"] = float(data["lexical_weight"])
    if "corroborate_margin" in data:
        kw["corroborate_margin"] = float(data["corroborate_margin"])
    if "global" in data:
        kw["global_workspace"] = bool(data["global"])
    if os.environ.get("JGM_MODEL"):
        kw["model"] = os.environ["JGM_MODEL"]
    if os.environ.get("JGM_CHROMA_URL"):
        kw["chroma_url"] = os.environ["JGM_CHROMA_URL"]
    return Settings(**kw)
