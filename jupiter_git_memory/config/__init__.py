"""Project settings from `jgm.toml` or `[tool.jgm]` in pyproject.toml, with environment overrides.

config/schema.py is the one settings model (every key, default and expected form); config/resolve.py
reads the file and the environment and derives what is in force (`load_settings`).
"""

from .resolve import CONFIG_FILES, load_settings, read_file_settings
from .schema import DEFAULT_IGNORE, DEFAULT_ROOTS, ConfigError, Settings

__all__ = [
    "CONFIG_FILES",
    "DEFAULT_IGNORE",
    "DEFAULT_ROOTS",
    "ConfigError",
    "Settings",
    "load_settings",
    "read_file_settings",
]
