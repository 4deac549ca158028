"""What a seed did (`SeedReport`) and the one-line summary every surface prints."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from ..index.plan import SeedCounts


def summarize(counts: dict, detail: bool = False) -> str:
    """The one-line seed summary every surface prints (CLI, watcher, hooks, doctor --repair)."""
    parts = [f"{counts['added']} added", f"{counts['updated']} updated", f"{counts['removed']} removed"]
    if detail:
        parts += [f"{counts['unchanged']} unchanged", f"{counts['embedded_chunks']} chunks embedded"]
    return ", ".join(parts)


@dataclass(kw_only=True)
class SeedReport(SeedCounts):
    """What one seed did: the plan's counts plus where, what went wrong and how long it took."""

    workspace: str
    commit: str | None
    dirty: bool
    rev: str | None
    errors: list[dict] = field(default_factory=list)
    warnings: list[dict] = field(default_factory=list)
    skipped: list[dict] = field(default_factory=list)
    inventory: list[dict] = field(default_factory=list)  # per root: found, indexed per format, skipped by reason
    records: int = 0
    chunks: int = 0
    seconds: float = 0.0
    generation: int = 0
    view: str | None = None
    floor: dict | None = None  # what the post-seed floor calibration did, and why
    model: dict | None = None  # the workspace's model: name, who chose it and why (seed/model_choice.py)
    recovered_from: str | None = None  # a corrupt catalog moved aside before this seed rebuilt it

    def summary(self, detail: bool = False) -> str:
        return summarize(self.to_json()["counts"], detail)

    def to_json(self) -> dict:
        d = asdict(self)
        d["counts"] = {
            "added": len(self.added),
            "updated": len(self.updated),
            "removed": len(self.removed),
            "unchanged": self.unchanged,
            "errors": len(self.errors),
            "embedded_chunks": self.embedded_chunks,
            "fetched_chunks": self.fetched_chunks,
        }
        return d
