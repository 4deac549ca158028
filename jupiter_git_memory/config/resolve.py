"""Settings in force for a repository: read the file and the environment, check each, derive the rest once.

Settings live in the repo so every clone and CI run indexes the same way. Precedence: the environment
(`JGM_MODEL`, `JGM_CHROMA_URL`) > `jgm.toml` > `[tool.jgm]` (a `jgm.toml` replaces `[tool.jgm]` entirely;
the two are never merged). The file and the environment are checked apart so that every problem is one
line naming its origin: the file, the key and the expected form, or the variable. A file's `chroma_url` is
used only once the user approved it (config/consent.py): checking out a branch must not send the index
elsewhere.
"""

from __future__ import annotations

import difflib
import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pydantic_settings import TomlConfigSettingsSource

from ..records.text import escape_nonprintable
from .consent import chroma_url as consented_chroma_url
from .schema import (
    DEFAULT_IGNORE,
    DEFAULT_ROOTS,
    DERIVED_KEYS,
    ENV_PREFIX,
    FILE_KEYS,
    ConfigError,
    EnvSource,
    Settings,
    SettingsModel,
)

CONFIG_FILES = ("jgm.toml", "pyproject.toml")  # at the repo's top: where settings are read from
PYPROJECT_TABLE = ("tool", "jgm")


def _key(loc: tuple[Any, ...]) -> str:
    """The key path as printable text: a key is the user's text and may hold escapes (`"\\u001b]0;x"`)."""
    return escape_nonprintable(".".join(str(p) for p in loc if not isinstance(p, int))) or "(file)"


def _known() -> list[str]:
    return [Settings.model_fields[n].alias or n for n in FILE_KEYS]


def _describe(loc: tuple[Any, ...]) -> str:
    fields = Settings.model_fields
    top = fields.get(str(loc[0])) if loc and str(loc[0]) in FILE_KEYS else None
    if top is None and loc:
        top = next((fields[n] for n in FILE_KEYS if fields[n].alias == loc[0]), None)
    return top.description if top and top.description else ""


def _unknown(where: str, loc: tuple[Any, ...]) -> str:
    close = difflib.get_close_matches(str(loc[0]), _known(), n=1)
    hint = f"did you mean `{close[0]}`? " if close else ""
    return f"{where}: unknown key `{_key(loc)}`: {hint}known keys: {', '.join(_known())}"


def _problems(where: str, e: ValidationError) -> tuple[list[str], set[str]]:
    """One line per value error, and the unknown keys (pydantic reports them after the values)."""
    lines, unknown = [], set()
    for err in e.errors():
        loc = err["loc"]
        if err["type"] == "extra_forbidden":
            unknown.add(str(loc[0]))
            continue
        got = err.get("input")
        shown = f" (got {got!r}: {type(got).__name__})" if not isinstance(got, dict) else ""
        msg = err["msg"].removeprefix("Value error, ")
        lines.append(f"{where}: `{_key(loc)}`: {msg}{shown}; expected {_describe(loc)}")
    return lines, unknown


def _document(path: Path) -> dict[str, Any]:
    """The TOML file at `path`, read by pydantic-settings' TOML source; errors name the file."""
    try:
        return TomlConfigSettingsSource(Settings, toml_file=path).toml_data
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from e
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read it ({e})") from e


def read_file_settings(repo: Path) -> tuple[dict[str, Any], str | None]:
    """The raw table and where it came from: `jgm.toml` if present, else pyproject's `[tool.jgm]`."""
    jgm_toml, pyproject = repo / CONFIG_FILES[0], repo / CONFIG_FILES[1]
    if jgm_toml.is_file():
        return _document(jgm_toml), str(jgm_toml)
    if not pyproject.is_file():
        return {}, None
    data: Any = _document(pyproject)
    for key in PYPROJECT_TABLE:
        data = data.get(key) if isinstance(data, dict) else None
    if data is None:
        return {}, None
    if not isinstance(data, dict):
        raise ConfigError(f"{pyproject} [tool.jgm]: must be a table; expected [tool.jgm] with keys like roots = [...]")
    return data, f"{pyproject} [tool.jgm]"


def _check_file(data: dict[str, Any], where: str) -> SettingsModel:
    """The file's values alone (no environment), every problem one line naming the file and the key. A
    derived field is no file key: it is an unknown key like any other."""
    lines: list[str] = []
    unknown: set[str] = set()
    checked = None
    try:
        checked = SettingsModel.model_validate({k: v for k, v in data.items() if k not in DERIVED_KEYS})
    except ValidationError as e:
        lines, unknown = _problems(where, e)
    lines += [_unknown(where, (k,)) for k in data if k in unknown or k in DERIVED_KEYS]
    if lines or checked is None:
        raise ConfigError("\n".join(lines))
    return checked


def _check_env() -> dict[str, Any]:
    """The environment's settings, checked with the file's own constraints."""
    env = EnvSource(Settings)()
    try:
        SettingsModel.model_validate(env)
    except ValidationError as e:
        raise ConfigError(
            "; ".join(f"environment {ENV_PREFIX}{_key(x['loc']).upper()}: {x['msg']}" for x in e.errors())
        ) from None
    return env


def load_settings(repo: Path) -> Settings:
    """Read and validate settings for `repo`. Raises ConfigError naming the file, the key and the fix."""
    data, source = read_file_settings(repo)
    file = _check_file(data, source or "settings")
    env = _check_env()
    given = file.model_fields_set
    configured = "roots" in given
    if configured:
        missing = [r for r in file.roots if not (repo / r).is_dir()]
        if missing:
            raise ConfigError(
                f"{source}: `roots`: {', '.join(repr(m) for m in missing)} does not exist in {repo}; "
                "create the folder or fix `roots`"
            )
    roots = file.roots
    shallow: tuple[str, ...] = ()
    discovered: dict[str, Any] = {}
    if not configured:  # no `roots`: knowledge/, conventional ADR folders, and decision collections found
        from .discover import discover

        found = discover(repo, DEFAULT_ROOTS)
        roots, shallow = found.roots, found.shallow
        discovered = {"collections": found.collections, "near_misses": found.near_misses}
    url, refused = consented_chroma_url(repo, env.get("chroma_url"), file.chroma_url, source)
    values: dict[str, Any] = {k: getattr(file, k) for k in given}  # the rest are the defaults
    values.update(
        roots=roots,
        ignore=DEFAULT_IGNORE + file.ignore if "ignore" in given else DEFAULT_IGNORE,
        chroma_url=url,
        source=source,
        roots_configured=configured,
        shallow_roots=shallow,
        discovered=discovered,
        refused=refused,
    )
    return Settings(**values)  # the environment wins over these (Settings.settings_customise_sources)
