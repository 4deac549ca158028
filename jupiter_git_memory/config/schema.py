"""The settings model: every key of `jgm.toml` / `[tool.jgm]`, its default and its expected form, once.

`SettingsModel` holds both what a file may say and what is in force: a file key's field carries the value
in force (`roots` after discovery, `ignore` with the defaults before the file's, `chroma_url` after
consent), and the fields marked `DERIVED` are computed by config/resolve.py and are no file key.
`Settings` is the same model with its pydantic-settings sources; the plain model checks a file's values
without reading the environment. Validation is strict because TOML already has types:
`ignore = "**/drafts/**"` once became single-character patterns that ignored every record. Only the fields
marked `FROM_ENV` are read from the environment (`JGM_MODEL`, `JGM_CHROMA_URL`): the other `JGM_*`
variables are the process's, not settings, and a stray `JGM_FLOOR` must not change ranking.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError
from pydantic_settings import BaseSettings, EnvSettingsSource, PydanticBaseSettingsSource, SettingsConfigDict

from ..base import error_codes as E
from ..base.environment import PREFIX
from ..base.errors import JgmError
from ..embedding.specs import DEFAULT_MODEL
from ..records.kinds import ADR_STATUSES, ALL_EFFECTIVE, KINDS

if TYPE_CHECKING:
    from ..records.formats import AdapterOptions

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
ENV_PREFIX = PREFIX


class ConfigError(JgmError, ValueError):
    entry = E.CONFIG_INVALID  # 422 on the API: the request was fine, the repo's config is not


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


FROM_ENV = _Marker("FROM_ENV")  # also read from the environment as JGM_<NAME>, which wins over the file
DERIVED = _Marker("DERIVED")  # computed by config/resolve.py from the repository; no source sets it


def _listed(value: object) -> object:
    """A TOML array as a tuple (settings are immutable); anything else is the error a list field gives."""
    if isinstance(value, list):
        return tuple(value)
    if isinstance(value, tuple):
        return value
    raise PydanticCustomError("list_type", "Input should be a valid list")


def _listed_nonempty(value: object) -> object:
    if isinstance(value, list | tuple) and not value:
        raise PydanticCustomError("too_short", "List should have at least 1 item after validation, not 0")
    return _listed(value)


Unit = Annotated[float, Field(ge=0.0, le=1.0)]
Patterns = Annotated[tuple[str, ...], BeforeValidator(_listed)]


class SettingsModel(BaseModel):
    """The settings in force, as a plain model: checking a file's values with it reads nothing else.
    Descriptions are the expected form that file errors show."""

    model_config = ConfigDict(frozen=True, strict=True, extra="forbid", populate_by_name=True)

    # The file's keys, in the order errors list them.
    roots: Annotated[tuple[str, ...], BeforeValidator(_listed_nonempty)] = Field(
        DEFAULT_ROOTS,
        description='a non-empty list of folders relative to the repo, e.g. roots = ["knowledge"]',
    )  # without `roots` in the file: knowledge/, conventional ADR folders and collections found (discover)
    ignore: Patterns = Field(
        DEFAULT_IGNORE, description='a list of glob patterns, e.g. ignore = ["**/drafts/**"]'
    )  # DEFAULT_IGNORE, then the file's patterns
    model: Annotated[str, Field(min_length=1), FROM_ENV] = Field(
        DEFAULT_MODEL, description='a model name, e.g. model = "minilm-l6-v2-int8"'
    )
    chroma_url: Annotated[str | None, Field(pattern=r"^https?://\S+$"), FROM_ENV] = Field(
        None, description='an http(s) URL, e.g. chroma_url = "http://127.0.0.1:8000"'
    )  # the environment's always; the file's only once approved (config/consent.py)
    weights: dict[str, dict[str, Annotated[float, Field(ge=0.0)]]] = Field(
        {}, description="tables per kind of status = weight >= 0, e.g. [weights.fact] unverified = 0.9"
    )  # kind -> status -> weight
    floor: Annotated[float, Field(ge=0.0, lt=1.0)] | None = Field(
        None, description="a number in [0, 1), e.g. floor = 0.3"
    )  # overrides the calibrated/shipped floor when set
    hybrid: bool = Field(True, description="true or false")
    lexical_weight: Unit = Field(0.3, description="a number in [0, 1], e.g. lexical_weight = 0.3")
    corroborate_margin: Annotated[float, Field(ge=0.0, lt=1.0)] = Field(
        0.10, description="a number in [0, 1), e.g. corroborate_margin = 0.10"
    )  # hybrid: records this close above the floor need IDF-weighted lexical evidence
    auto_calibrate: bool = Field(True, description="true or false")  # `jgm seed` measures this workspace's floor
    drift_weight: Unit = Field(
        0.8, description="a number in [0, 1]: recall weight factor of a record whose cited code changed since"
    )  # evidence drift (dec-drift-weight)
    missing_weight: Unit = Field(
        0.5, description="a number in [0, 1]: recall weight factor of a record whose cited path is gone"
    )
    global_workspace: bool = Field(
        False, alias="global", description="true or false"
    )  # share this workspace's records with global recall
    at_views: int = Field(
        20, ge=0, description="a whole number >= 0: `recall --at` views kept, e.g. at_views = 20"
    )  # the least recently used are evicted
    reseed_on_recall: int = Field(
        5,
        ge=0,
        le=1000,
        description="a whole number >= 0: record files changed since the last seed that a recall indexes "
        "first (more: it warns instead; 0: always warn), e.g. reseed_on_recall = 5",
    )  # seed/stale.py, dec-stale-reseed-or-warn
    brief_budget: int = Field(
        400, ge=128, le=8000, description="tokens in [128, 8000] for a client's session brief, e.g. brief_budget = 400"
    )
    prompt_budget: int = Field(
        300,
        ge=32,
        le=8000,
        description="tokens in [32, 8000] recalled per prompt by the hook, e.g. prompt_budget = 300",
    )
    edit_budget: int = Field(
        250,
        ge=128,
        le=4000,
        description="tokens in [128, 4000] the edit hook adds once per file and session, e.g. edit_budget = 250",
    )  # the records governing a file the agent is about to change (surfaces/agent/edit.py)
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
    )  # a source's status word (or "folder/") -> one of ours
    adr_missing_status: Literal["accepted", "proposed", "error"] = Field(
        "proposed", description='"accepted", "proposed" or "error"'
    )  # an ADR without a status
    proposed_fallback: bool = Field(True, description="true or false")  # no in-force match: the proposed, marked
    formats: dict[str, str] = Field(
        {},
        description="a table of root folder = format name (jgm, nygard, madr2, "
        'madr3, log4brains, plain), e.g. [formats] "docs/adr" = "nygard"',
    )  # root folder -> record format name

    # Derived from the repository (config/resolve.py), never from a source.
    source: Annotated[str | None, DERIVED] = None  # the file these settings came from
    roots_configured: Annotated[bool, DERIVED] = False  # `roots` was written in the file
    shallow_roots: Annotated[tuple[str, ...], DERIVED] = ()  # roots read without their subfolders (repo root)
    discovered: Annotated[dict[str, Any], DERIVED] = {}  # without `roots`: collections found and why, near misses
    refused: Annotated[tuple[Any, ...], DERIVED] = ()  # consent.Refusal: file settings not used without approval

    @field_validator("roots")
    @classmethod
    def _relative(cls, roots: tuple[str, ...]) -> tuple[str, ...]:
        for r in roots:
            if not r.strip() or Path(r).is_absolute() or ".." in Path(r).parts:
                raise ValueError(f"root {r!r} must be a relative path inside the repo")
        return roots

    @field_validator("weights")
    @classmethod
    def _known_weights(cls, weights: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
        for kind, table in weights.items():
            if kind not in KINDS:
                raise ValueError(f"unknown kind {kind!r} (kinds: {', '.join(KINDS)})")
            for status in table:
                if status not in ALL_EFFECTIVE:
                    raise ValueError(f"unknown status {status!r} under {kind} (statuses: {', '.join(ALL_EFFECTIVE)})")
        return weights

    @field_validator("status_map")
    @classmethod
    def _known_statuses(cls, mapping: dict[str, str]) -> dict[str, str]:
        for src, ours in mapping.items():
            whole = src in ("/", "./")  # the whole repository
            if src.endswith("/") and not whole and (Path(src).is_absolute() or ".." in Path(src).parts):
                raise ValueError(f"folder {src!r} must be a relative path inside the repo")
            if ours not in ADR_STATUSES:
                raise ValueError(f"{src!r} maps to {ours!r}, which is not an ADR status ({', '.join(ADR_STATUSES)})")
        return mapping

    @field_validator("formats")
    @classmethod
    def _known_formats(cls, mapping: dict[str, str]) -> dict[str, str]:
        from ..records.formats import FORMATS

        for root, fmt in mapping.items():
            if fmt not in FORMATS:
                raise ValueError(f"{root!r} names format {fmt!r}; formats: {', '.join(FORMATS)}")
        return mapping

    def notices(self) -> list[str]:
        """What every seed, hook run and recall says about settings it did not use."""
        return [r.message() for r in self.refused]

    def adapter_options(self) -> AdapterOptions:
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


class Settings(SettingsModel, BaseSettings):
    """The settings model with its sources: what resolve.py passes in, under the environment."""

    model_config = SettingsConfigDict(
        case_sensitive=True,  # file keys as written: `Floor` is an unknown key
        env_prefix=ENV_PREFIX,
        validate_default=False,  # defaults are trusted, as in the plain model
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """The environment wins over what resolve.py passes in (the file's values and the derived ones); no
        dotenv or secrets files: settings live in the repository."""
        return EnvSource(settings_cls), init_settings


def _marked(marker: _Marker) -> frozenset[str]:
    return frozenset(n for n, f in SettingsModel.model_fields.items() if marker in f.metadata)


ENV_KEYS = _marked(FROM_ENV)
DERIVED_KEYS = _marked(DERIVED)
FILE_KEYS = tuple(n for n in SettingsModel.model_fields if n not in DERIVED_KEYS)  # field names, in file order


class EnvSource(EnvSettingsSource):
    """The environment, for the `FROM_ENV` fields only; names are matched in any case (`jgm_model` too)."""

    def __init__(self, settings_cls: type[BaseSettings]) -> None:
        super().__init__(settings_cls, case_sensitive=False, env_prefix=ENV_PREFIX)

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        if field_name not in ENV_KEYS:
            return None, field_name, False
        return super().get_field_value(field, field_name)
