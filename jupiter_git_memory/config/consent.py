"""Settings that send data off this machine need the user's consent, not just a file in the checked-out tree.

`jgm.toml` comes with whatever branch is checked out, and the git hooks seed right after a checkout: a branch
that sets `chroma_url` would otherwise have every record (store-only candidates included) embedded and sent to
the server it names, before anyone read the file. Of all settings, only `chroma_url` sends data elsewhere
(`model` names a model in the local store, `global` shares within the local store, the rest shape reading).

So a `chroma_url` from the repository's file is used only when the user approved that exact value in git
config, which no checkout can write: `git config jgm.trust-chroma-url URL` (per repository; `--global` for
every one; repeatable). `JGM_CHROMA_URL` in the environment is the user's own and is always used. Without
consent the local index is used and every seed, hook run and recall says why, naming the file, the setting
and the command.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from ..git.config import get_all
from ..records.model import Issue
from ..records.text import escape_nonprintable

TRUST_KEY = "jgm.trust-chroma-url"


def approved_urls(repo: Path) -> tuple[str, ...]:
    """Every `jgm.trust-chroma-url` in the git config `repo` sees (local, global, system); none on any error."""
    return get_all(repo, TRUST_KEY)


@dataclass(frozen=True)
class Refusal:
    """A setting from the repository's file that was not used because the user has not approved it."""

    key: str
    value: str
    source: str  # the file (and table) it came from
    repo: Path

    @property
    def command(self) -> str:
        return f"git -C {shlex.quote(str(self.repo))} config {TRUST_KEY} {shlex.quote(self.value)}"

    def message(self) -> str:
        shown = escape_nonprintable(self.value)
        return (
            f"{self.source} sets `{self.key}` = {shown!r}, which would send this repository's records and vectors "
            f"to that server; a setting from the checked-out files needs your approval, so the local index is used. "
            f"To approve this exact URL: {self.command}"
        )

    def issue(self) -> Issue:
        return Issue(
            self.source.split(" [", 1)[0],
            f"`{self.key}` = {escape_nonprintable(self.value)!r} is not used without your approval "
            "(it would send records and vectors to that server); the local index is used",
            f"approve this exact URL: {self.command} (or set JGM_CHROMA_URL)",
            severity="warning",
        )


def chroma_url(repo: Path, env_url: str | None, file_url: str | None, source: str | None) -> tuple[str | None, tuple]:
    """(the Chroma URL to use, the refusals): the environment's, else the file's when approved, else none."""
    if env_url or not file_url:
        return env_url, ()
    if file_url in approved_urls(repo):
        return file_url, ()
    return None, (Refusal("chroma_url", file_url, source or "settings", repo),)
