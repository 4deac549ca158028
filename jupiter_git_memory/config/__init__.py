"""Project settings from `jgm.toml` or `[tool.jgm]` in pyproject.toml, with environment overrides.

Settings live in the repo so every clone and CI run indexes the same way. The file is validated
against a schema (pydantic, strict: TOML already has types) because a typo must not silently change
what is indexed: `ignore = "**/drafts/**"` once became single-character patterns that ignored every
record, and `root = [...]` indexed nothing. Every problem is one line naming the file, the key and the
expected form. Precedence: the environment (`JGM_MODEL`, `JGM_CHROMA_URL`) > `jgm.toml` > `[tool.jgm]`
(a `jgm.toml` replaces `[tool.jgm]` entirely; the two are never merged). A file's `chroma_url` is used only
once the user approved it (config/consent.py): checking out a branch must not send the index elsewhere.
"""

from __future__ import annotations

import difflib
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from ..base import error_codes as E
from ..base.errors import JgmError
from ..embedding.specs import DEFAULT_MODEL
from ..records.kinds import ADR_STATUSES, ALL_EFFECTIVE, KINDS
from ..records.text import escape_nonprintable
from .consent import chroma_url as consented_chroma_url

# README, index and ADR template files are never records (adr-tools, MADR and log4brains ship them).
DEFAULT_IGNORE = (
    "**/README.md",
    "**/.*",
    "**/_*",
    "**/index.md",
    "**/template.md",
    "**/adr-template.md",
    "**/0000-*template*",
)
DEFAULT_ROOTS = ("knowledge",)


class ConfigError(JgmError, ValueError):
    entry = E.CONFIG_INVALID  # 422 on the API: the request was fine, the repo's config is not


Unit = Annotated[float, Field(ge=0.0, le=1.0)]
# The constraints the file and the environment share (JGM_MODEL, JGM_CHROMA_URL), said once.
ModelName = Annotated[str, Field(min_length=1)]
ChromaUrl = Annotated[str, Field(pattern=r"^https?://\S+$")]


class FileSettings(BaseModel):
    """The schema of `jgm.toml` / `[tool.jgm]`. Descriptions are the expected form shown in errors."""

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)

    roots: Annotated[list[str], Field(min_length=1)] | None = Field(
        None, description='a non-empty list of folders relative to the repo, e.g. roots = ["knowledge"]'
    )
    ignore: list[str] = Field([], description='a list of glob patterns, e.g. ignore = ["**/drafts/**"]')
    model: ModelName = Field(DEFAULT_MODEL, description='a model name, e.g. model = "minilm-l6-v2-int8"')
    chroma_url: ChromaUrl | None = Field(None, description='an http(s) URL, e.g. chroma_url = "http://127.0.0.1:8000"')
    weights: dict[str, dict[str, Annotated[float, Field(ge=0.0)]]] = Field(
        {}, description="tables per kind of status = weight >= 0, e.g. [weights.fact] unverified = 0.9"
    )
    floor: Annotated[float, Field(ge=0.0, lt=1.0)] | None = Field(
        None, description="a number in [0, 1), e.g. floor = 0.3"
    )
    hybrid: bool = Field(True, description="true or false")
    lexical_weight: Unit = Field(0.3, description="a number in [0, 1], e.g. lexical_weight = 0.3")
    corroborate_margin: Annotated[float, Field(ge=0.0, lt=1.0)] = Field(
        0.10, description="a number in [0, 1), e.g. corroborate_margin = 0.10"
    )
    auto_calibrate: bool = Field(True, description="true or false")
    drift_weight: Unit = Field(
        0.8, description="a number in [0, 1]: recall weight factor of a record whose cited code changed since"
    )
    missing_weight: Unit = Field(
        0.5, description="a number in [0, 1]: recall weight factor of a record whose cited path is gone"
    )
    global_workspace: bool = Field(False, alias="global", description="true or false")
    at_views: int = Field(20, ge=0, description="a whole number >= 0: `recall --at` views kept, e.g. at_views = 20")
    brief_budget: int = Field(
        400, ge=128, le=8000, description="tokens in [128, 8000] for a client's session brief, e.g. brief_budget = 400"
    )
    prompt_budget: int = Field(
        300,
        ge=32,
        le=8000,
        description="tokens in [32, 8000] recalled per prompt by the hook, e.g. prompt_budget = 300",
    )
    daemon_idle_seconds: int = Field(
        300,
        ge=5,
        le=86400,
        description="seconds in [5, 86400] the resident recall process waits for a request before it exits, "
        "e.g. daemon_idle_seconds = 300",
    )
    status_map: dict[str, str] = Field(
        {},
        description=f"a table of ADR status word (or folder ending in `/`) = one of {', '.join(ADR_STATUSES)}, "
        'e.g. [status_map] "Under discussion" = "proposed", "text/" = "accepted"',
    )
    adr_missing_status: Literal["accepted", "proposed", "error"] = Field(
        "proposed", description='"accepted", "proposed" or "error"'
    )
    proposed_fallback: bool = Field(True, description="true or false")
    formats: dict[str, str] = Field(
        {},
        description="a table of root folder = format name (jgm, nygard, madr2, "
        'madr3, log4brains, plain), e.g. [formats] "docs/adr" = "nygard"',
    )

    @field_validator("roots")
    @classmethod
    def _relative(cls, roots):
        for r in roots or []:
            if not r.strip() or Path(r).is_absolute() or ".." in Path(r).parts:
                raise ValueError(f"root {r!r} must be a relative path inside the repo")
        return roots

    @field_validator("weights")
    @classmethod
    def _known_weights(cls, weights):
        for kind, table in weights.items():
            if kind not in KINDS:
                raise ValueError(f"unknown kind {kind!r} (kinds: {', '.join(KINDS)})")
            for status in table:
                if status not in ALL_EFFECTIVE:
                    raise ValueError(f"unknown status {status!r} under {kind} (statuses: {', '.join(ALL_EFFECTIVE)})")
        return weights

    @field_validator("status_map")
    @classmethod
    def _known_statuses(cls, mapping):
        for src, ours in mapping.items():
            whole = src in ("/", "./")  # the whole repository
            if src.endswith("/") and not whole and (Path(src).is_absolute() or ".." in Path(src).parts):
                raise ValueError(f"folder {src!r} must be a relative path inside the repo")
            if ours not in ADR_STATUSES:
                raise ValueError(f"{src!r} maps to {ours!r}, which is not an ADR status ({', '.join(ADR_STATUSES)})")
        return mapping

    @field_validator("formats")
    @classmethod
    def _known_formats(cls, mapping):
        from ..records.formats import FORMATS

        for root, fmt in mapping.items():
            if fmt not in FORMATS:
                raise ValueError(f"{root!r} names format {fmt!r}; formats: {', '.join(FORMATS)}")
        return mapping


class EnvSettings(BaseSettings):
    """Environment overrides (they win over the files)."""

    model_config = SettingsConfigDict(env_prefix="JGM_", extra="ignore")

    model: ModelName | None = None
    chroma_url: ChromaUrl | None = None


def _file_default(key: str):
    """A setting's default is its file key's (FileSettings), so it is written once."""
    return FileSettings.model_fields[key].get_default(call_default_factory=True)


@dataclass(frozen=True)
class Settings:
    """The settings in force. A field named like a file key has that key's default (FileSettings) and is
    copied from the file as is (`_FROM_FILE`); the others are derived in `load_settings`."""

    roots: tuple[str, ...] = DEFAULT_ROOTS
    ignore: tuple[str, ...] = DEFAULT_IGNORE
    model: str = _file_default("model")
    chroma_url: str | None = None
    weights: dict[str, dict[str, float]] = field(default_factory=dict)  # kind -> status -> weight
    floor: float | None = None  # overrides the calibrated/shipped floor when set
    hybrid: bool = _file_default("hybrid")
    lexical_weight: float = _file_default("lexical_weight")
    corroborate_margin: float = _file_default("corroborate_margin")  # hybrid: records this close above the
    # floor need IDF-weighted lexical evidence
    drift_weight: float = _file_default("drift_weight")  # evidence drift (dec-drift-weight): a drifted record's factor
    missing_weight: float = _file_default("missing_weight")  # ... and a record whose cited path is gone
    auto_calibrate: bool = _file_default("auto_calibrate")  # `jgm seed` measures this workspace's floor
    global_workspace: bool = _file_default("global_workspace")  # share this workspace's records with global recall
    at_views: int = _file_default("at_views")  # `recall --at` views kept; the least recently used are evicted
    brief_budget: int = _file_default("brief_budget")  # tokens: the session brief a client hook injects
    prompt_budget: int = _file_default("prompt_budget")  # tokens: what the prompt hook adds for one prompt
    daemon_idle_seconds: int = _file_default("daemon_idle_seconds")  # the resident recall process's idle exit
    source: str | None = None  # the file these settings came from
    roots_configured: bool = False  # `roots` was written in the file (else the defaults apply)
    status_map: dict[str, str] = field(default_factory=dict)  # a source's status word (or "folder/") -> one of ours
    adr_missing_status: str = _file_default(
        "adr_missing_status"
    )  # an ADR without a status: accepted | proposed | error
    proposed_fallback: bool = _file_default("proposed_fallback")  # no in-force match: the proposed ones, marked
    formats: dict[str, str] = field(default_factory=dict)  # root folder -> record format name
    shallow_roots: tuple[str, ...] = ()  # roots read without their subfolders (a discovered repository root)
    discovered: dict = field(default_factory=dict)  # without `roots`: collections found and why, near misses
    refused: tuple = ()  # consent.Refusal: file settings not used for want of the user's approval

    def notices(self) -> list[str]:
        """What every seed, hook run and recall says about settings it did not use."""
        return [r.message() for r in self.refused]

    def adapter_options(self):
        """How ADR files are read (records/formats): status words keyed like the files' first phrases, and
        keys ending in `/` as folder defaults."""
        from ..records.formats import AdapterOptions
        from ..records.formats.status import first_words

        words = {" ".join(first_words(k)): v for k, v in self.status_map.items() if not k.endswith("/")}
        folders = {k.strip("/").removeprefix("./").strip("/"): v for k, v in self.status_map.items() if k.endswith("/")}
        return AdapterOptions(
            {k: v for k, v in words.items() if k},
            self.adr_missing_status,
            {k.strip("/"): v for k, v in self.formats.items()},
            {"" if k == "." else k: v for k, v in folders.items()},
        )


# File keys that reach Settings unchanged; roots, ignore, model and chroma_url are derived (defaults,
# discovery, the environment, consent).
_FROM_FILE = tuple(
    k
    for k in FileSettings.model_fields
    if k in {x.name for x in fields(Settings)} - {"roots", "ignore", "model", "chroma_url"}
)


def _key(loc: tuple) -> str:
    """The key path as printable text: a key is the user's text and may hold escapes (`"\\u001b]0;x"`)."""
    return escape_nonprintable(".".join(str(p) for p in loc if not isinstance(p, int))) or "(file)"


def _describe(loc: tuple) -> str:
    top = FileSettings.model_fields.get(str(loc[0])) if loc else None
    if top is None and loc:
        top = next((f for f in FileSettings.model_fields.values() if f.alias == loc[0]), None)
    return top.description if top and top.description else ""


def _render(where: str, e: ValidationError, data: dict) -> str:
    lines = []
    known = [f.alias or n for n, f in FileSettings.model_fields.items()]
    for err in e.errors():
        loc = err["loc"]
        if err["type"] == "extra_forbidden":
            close = difflib.get_close_matches(str(loc[0]), known, n=1)
            hint = f"did you mean `{close[0]}`? " if close else ""
            lines.append(f"{where}: unknown key `{_key(loc)}`: {hint}known keys: {', '.join(known)}")
            continue
        got = err.get("input")
        shown = f" (got {got!r}: {type(got).__name__})" if not isinstance(got, dict) else ""
        msg = err["msg"].removeprefix("Value error, ")
        lines.append(f"{where}: `{_key(loc)}`: {msg}{shown}; expected {_describe(loc)}")
    return "\n".join(lines)


def read_file_settings(repo: Path) -> tuple[dict, str | None]:
    """The raw table and where it came from: `jgm.toml` if present, else pyproject's `[tool.jgm]`."""
    jgm_toml, pyproject = repo / "jgm.toml", repo / "pyproject.toml"
    path = jgm_toml if jgm_toml.is_file() else pyproject if pyproject.is_file() else None
    if path is None:
        return {}, None
    try:
        doc = tomllib.loads(path.read_text("utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from e
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read it ({e})") from e
    if path == jgm_toml:
        return doc, str(path)
    data = doc.get("tool", {}).get("jgm")
    if data is None:
        return {}, None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} [tool.jgm]: must be a table; expected [tool.jgm] with keys like roots = [...]")
    return data, f"{path} [tool.jgm]"


CONFIG_FILES = ("jgm.toml", "pyproject.toml")  # at the repo's top: where settings are read from


def load_settings(repo: Path) -> Settings:
    """Read and validate settings for `repo`. Raises ConfigError naming the file, the key and the fix."""
    data, source = read_file_settings(repo)
    try:
        f = FileSettings.model_validate(data)
    except ValidationError as e:
        raise ConfigError(_render(source or "settings", e, data)) from None
    try:
        env = EnvSettings()
    except ValidationError as e:
        raise ConfigError(
            "; ".join(f"environment JGM_{_key(x['loc']).upper()}: {x['msg']}" for x in e.errors())
        ) from None
    if f.roots:
        missing = [r for r in f.roots if not (repo / r).is_dir()]
        if missing:
            raise ConfigError(
                f"{source}: `roots`: {', '.join(repr(m) for m in missing)} does not exist in {repo}; "
                "create the folder or fix `roots`"
            )
    shallow: tuple[str, ...] = ()
    discovered: dict = {}
    if f.roots is None:  # no `roots`: knowledge/, conventional ADR folders, and decision collections found
        from .discover import discover

        found = discover(repo, DEFAULT_ROOTS)
        roots, shallow = found.roots, found.shallow
        discovered = {"collections": found.collections, "near_misses": found.near_misses}
    else:
        roots = tuple(f.roots)
    url, refused = consented_chroma_url(repo, env.chroma_url, f.chroma_url, source)
    return Settings(
        **{key: getattr(f, key) for key in _FROM_FILE},
        roots=roots,
        ignore=DEFAULT_IGNORE + tuple(f.ignore),
        model=env.model or f.model,
        chroma_url=url,
        source=source,
        roots_configured=f.roots is not None,
        refused=refused,
        shallow_roots=shallow,
        discovered=discovered,
    )
