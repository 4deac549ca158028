"""Which embedding model a workspace uses: chosen once, from the languages its records are written in.

Why per workspace: the English-only MiniLM is fast and, on English records, as good as the multilingual
e5 at telling an answer from no answer (dec-model-per-workspace-language), while e5 costs about four
times the CPU per chunk; on Chinese records MiniLM finds half of what e5 finds. So the first seed of a
workspace looks at its records and picks, and the choice is stored with the workspace (the store's
`model.json`, never the user's files) so later seeds, recalls and the daemon agree on it without looking
again. What decides, in order:

1. `model` set in the environment (JGM_MODEL) or the project's settings file: the user's word;
2. the stored choice (the first seed's, or `jgm model use NAME`);
3. an index seeded before choices were stored: the model its vectors came from (an upgrade re-embeds nothing);
4. at a first seed: the records' languages (records/language.py); elsewhere the shipped default.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..base.environment import MODEL
from ..base.files import atomic_write
from ..base.store import private_dir, workspace_dir
from ..config import Settings
from ..embedding import registry
from ..embedding.specs import DEFAULT_MODEL, E5_SMALL_Q4, shipped_name
from ..git.workspace import Workspace
from ..records.language import languages, needs_multilingual

if TYPE_CHECKING:
    from .sources import SourceFile

CHOICE_FILE = "model.json"
MULTILINGUAL = E5_SMALL_Q4.name
SCAN_LIMIT = 5000  # records read to tell a corpus's languages: enough to see a mix, bounded for huge trees


@dataclass(frozen=True)
class ModelChoice:
    """The model a workspace uses, who chose it (env | settings | workspace | index | default) and why."""

    model: str
    source: str
    reason: str
    languages: dict[str, int] = field(default_factory=dict)
    chosen_at: float | None = None
    warnings: tuple[str, ...] = ()
    decided_now: bool = False  # this call made the choice (a first seed): `jgm seed` says which and why

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["warnings"] = list(self.warnings)
        return d


def choice_path(wsdir: Path) -> Path:
    return wsdir / CHOICE_FILE


def read_choice(wsdir: Path) -> dict[str, Any] | None:
    """The stored choice, or None (absent, or unreadable: a damaged file is decided again, never trusted)."""
    try:
        data = json.loads(choice_path(wsdir).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("model"), str) else None


def save_choice(wsid: str, store_root: Path | None, choice: ModelChoice) -> None:
    wsdir = private_dir(workspace_dir(wsid, store_root, create=True))
    atomic_write(choice_path(wsdir), json.dumps(choice.to_dict(), indent=2, sort_keys=True))


def _indexed_model(wsdir: Path) -> str | None:
    """The shipped model whose vectors an existing catalog holds (read-only; None when there is none)."""
    db_path = wsdir / "catalog.sqlite"
    if not db_path.is_file():
        return None
    try:
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=5)
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'identity'").fetchone()
        finally:
            db.close()
        stored = json.loads(row[0]) if row else None
    except (sqlite3.Error, ValueError):
        return None
    return shipped_name(stored.get("model")) if isinstance(stored, dict) else None


def decide(counts: dict[str, int], multilingual_ok: bool, why_not: str = "") -> tuple[str, str, tuple[str, ...]]:
    """(model, reason, warnings) for a corpus with these language counts: pure, so the rule is tested alone."""
    shown = ", ".join(f"{n} {lang}" for lang, n in counts.items()) or "no records yet"
    if not needs_multilingual(counts):
        return DEFAULT_MODEL, f"records are in English ({shown}): the fast English model", ()
    if multilingual_ok:
        return MULTILINGUAL, f"records in several languages ({shown}): the multilingual model", ()
    warn = (
        f"records in several languages ({shown}) need {MULTILINGUAL}, which is not available here ({why_not}); "
        f"using {DEFAULT_MODEL}, which finds English text only"
    )
    return DEFAULT_MODEL, f"records in several languages ({shown}), multilingual model unavailable", (warn,)


def corpus_languages(workspace: Workspace, settings: Settings) -> dict[str, int]:
    """The languages of the worktree's record files (a bare repository has none to read: empty)."""
    if workspace.bare:
        return {}
    from .sources import read_worktree  # reading the tree is a first seed's work: not on every import

    files, _ = read_worktree(workspace.repo_root, settings)
    return file_languages(files)


def file_languages(files: Sequence[SourceFile]) -> dict[str, int]:
    """The languages of record files already read (a seed's or doctor's read; at most SCAN_LIMIT of them)."""
    texts = [f.data.decode("utf-8", "replace") for f in files[:SCAN_LIMIT] if f.data is not None]
    return languages(texts)


def resolve(
    settings: Settings, workspace: Workspace, store_root: Path | None = None, deciding: bool = False
) -> ModelChoice:
    """The workspace's model (see the module docstring). `deciding` (a seed) may make the first choice, marked
    `decided_now`; the seed stores it (`save_choice`) when it writes, so a reader leaves the store as it was."""
    if "model" in settings.model_fields_set:
        if MODEL.get():
            return ModelChoice(settings.model, "env", f"{MODEL.name} is set")
        return ModelChoice(settings.model, "settings", f"`model` in {settings.source or 'the settings'}")
    wsdir = workspace_dir(workspace.id, store_root, create=False)
    stored = read_choice(wsdir)
    if stored:
        return ModelChoice(  # decided_now stays False: a later seed reports the choice, it does not make it
            stored["model"],
            "workspace",
            str(stored.get("reason", "")),
            dict(stored.get("languages") or {}),
            stored.get("chosen_at"),
        )
    indexed = _indexed_model(wsdir)
    if indexed:
        return ModelChoice(
            indexed, "index", "the model the existing index was built with", {}, time.time(), (), deciding
        )
    if not deciding:
        return ModelChoice(DEFAULT_MODEL, "default", "not seeded yet: the first seed chooses")
    counts = corpus_languages(workspace, settings)
    ok, where = registry.available(MULTILINGUAL)
    model, reason, warnings = decide(counts, ok, where)
    return ModelChoice(model, "workspace", f"first seed: {reason}", counts, time.time(), warnings, True)
