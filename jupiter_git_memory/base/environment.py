"""Every `JGM_*` environment variable jgm reads, defined once: its name, form, default and meaning.

Code reads a variable only through its entry here (`HOME.get()`), so this table is complete by
construction; `.ci/env_reference.py` generates the table in docs/configuration.md from it and
tests/test_environment.py fails on a `JGM_*` name the source reads that is missing here. Two are settings
as well (`setting=True`: config/schema.py's `FROM_ENV` fields, read by pydantic-settings with the `JGM_`
prefix); the rest belong to the process, not the project settings, so a stray `JGM_FLOOR` changes nothing.

Import-light on purpose (no typing, no dataclasses): the thin client reads JGM_HOME and JGM_NO_DAEMON on
every warm call.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not typing's: see above
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import TypeVar

    T = TypeVar("T")

PREFIX = "JGM_"


class EnvVar:
    """One variable: `get` reads it (from `env`, default ours) as os.environ.get does, `get_or` with a default."""

    __slots__ = ("name", "form", "default", "meaning", "setting")

    def __init__(self, name: str, form: str, default: str, meaning: str, setting: bool = False) -> None:
        self.name, self.form, self.default, self.meaning, self.setting = name, form, default, meaning, setting
        VARIABLES[name] = self

    def get(self, env: Mapping[str, str] | None = None) -> str | None:
        return (os.environ if env is None else env).get(self.name)

    def get_or(self, default: T, env: Mapping[str, str] | None = None) -> str | T:
        return (os.environ if env is None else env).get(self.name, default)

    def __repr__(self) -> str:
        return f"EnvVar({self.name})"


VARIABLES: dict[str, EnvVar] = {}

HOME = EnvVar(
    "JGM_HOME",
    "path",
    "the repository's `git config jgm.home`, else the platform's user data dir",
    "The store (every workspace's catalog and vectors, the log, tokens); `--home` wins over it",
)
MODEL = EnvVar(
    "JGM_MODEL",
    "model name",
    "`model` in jgm.toml, else the workspace's stored choice (made from its records' languages)",
    "The embedding model; overrides `model` in the project settings",
    setting=True,
)
CHROMA_URL = EnvVar(
    "JGM_CHROMA_URL",
    "http(s) URL",
    "`chroma_url` in jgm.toml once approved, else the local index",
    "A Chroma server to keep the vectors in; yours, so always used (no approval needed)",
    setting=True,
)
CHROMA_TOKEN = EnvVar(
    "JGM_CHROMA_TOKEN",
    "token",
    "the store's `chroma-token` file, else none",
    "The token sent to the Chroma server (`Authorization: Bearer`); never read from the repository",
)
THREADS = EnvVar(
    "JGM_THREADS",
    "integer",
    "0: the runtime's choice (every core for ONNX)",
    "Threads the embedding model may use",
)
NO_DAEMON = EnvVar(
    "JGM_NO_DAEMON",
    "flag (set, not `0`)",
    "unset: the daemon answers",
    "Answer every command in process instead of through the warm daemon",
)
DAEMON_TIMEOUT = EnvVar(
    "JGM_DAEMON_TIMEOUT",
    "seconds",
    "120",
    "How long a command waits for the daemon's answer before answering in process",
)
HOOK_DEADLINE = EnvVar(
    "JGM_HOOK_DEADLINE",
    "seconds",
    "20",
    "How long an agent hook (`jgm agent hook`) may take before it answers with nothing",
)
HOOK_SKIP = EnvVar("JGM_HOOK_SKIP", "`1`", "unset", "Git hooks do nothing (no reseed)")
HOOK_SYNC = EnvVar(
    "JGM_HOOK_SYNC",
    "`1`",
    "unset: in the background",
    "Git hooks reseed in the foreground, so git waits and errors print",
)
AGENT = EnvVar("JGM_AGENT", "name", "none", "Who observed a candidate (`jgm remember --agent`)")
SESSION = EnvVar("JGM_SESSION", "text", "none", "The agent session a candidate came from (`--session`)")
TEST_EMBEDDERS = EnvVar(
    "JGM_TEST_EMBEDDERS",
    "`1`",
    "unset",
    "Offer the deterministic fake embedder `fake-hash-384` (the test suite's plumbing tests; never for real use)",
)
