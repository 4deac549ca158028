"""Recall: query → fresh view (freshness.py) → dense + lexical evidence, ranking and the proposed fallback
(retrieval.py) → shaped results (results.py) + a receipt (receipts.py). `Recaller` coordinates them."""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from ..base.store import workspace_dir, workspace_lock
from ..config import Settings, load_settings
from ..embedding.onnx_embedder import ModelError
from ..embedding.registry import load_embedder
from ..git.workspace import Workspace, find_workspace
from ..index.handle import Index, vector_identity
from ..seed import model_choice
from . import query_once, retrieval
from .calibrate import calibrating_seeder
from .errors import NotSeeded, RecallError
from .fallback import fallback_warning, mostly_proposed, unmapped_warning
from .floors import FloorInfo
from .freshness import ViewMap, Views
from .query_once import QueryOnce
from .ranking import DEFAULT_STATUSES, Hit, check_mode, merge_weights, no_answer_reason
from .receipts import answer_receipt, store_receipt
from .results import RecallResult
from .retrieval import validate_filters

__all__ = ["NotSeeded", "RecallError", "Recaller", "validate_filters"]


class Recaller:
    """One worktree's recall, from its view (or an `--at` view): the loaded model, the settings, and the
    views (freshness.Views) it answers from. Long-lived holders (API, MCP) keep one per workspace."""

    def __init__(
        self,
        repo: Path | str | None = None,
        settings: Settings | None = None,
        workspace: Workspace | None = None,
        store_root: Path | None = None,
    ) -> None:
        self.workspace = workspace or find_workspace(repo, bare_ok=True)  # a bare repository answers with --at
        settings = settings or load_settings(self.workspace.repo_root)
        self.store_root = store_root  # the store ($JGM_HOME when None); the repo is self.workspace.repo_root
        self.model_choice = model_choice.resolve(settings, self.workspace, store_root)  # the seed's choice
        try:
            self.embedder = load_embedder(self.model_choice.model)
        except (ModelError, OSError, ValueError, ImportError) as e:  # missing, damaged or unloadable files
            raise RecallError(f"model unavailable: {e}") from e
        self.identity = vector_identity(self.embedder.spec)
        self.weights = merge_weights(settings.weights)
        self.wsdir = workspace_dir(self.workspace.id, store_root, create=False)  # a reader creates nothing
        self.views = Views(
            self.workspace, settings, store_root, self.identity, self.embedder, self.wsdir, calibrating_seeder
        )
        self._floor_warned = False
        self._ahead: dict[str, Future[Any]] = {}  # questions asked next, their embedding begun (embed_ahead)

    @property
    def settings(self) -> Settings:
        return self.views.settings

    def use_settings(self, settings: Settings) -> None:
        """Answer with new settings from now on (same model and Chroma URL; otherwise build a new Recaller)."""
        self.views.use_settings(settings)
        self.weights = merge_weights(settings.weights)

    def index(self) -> Index:
        return self.views.index()

    def embed_ahead(self, queries: Iterable[str]) -> None:
        """Begin embedding the questions this reader asks next, in turn (a task's goal, concerns and errors):
        two embed at once beside the recalls that use them, so each recall waits only for what is left of its
        own vector. The vectors are the embedder's, so answers are the same; a question not asked costs only
        its embedding. Replaces what an earlier call began."""
        self._ahead = {q: query_once.embed_ahead(self.embedder, q) for q in dict.fromkeys(queries)}

    def prepare(self, at: str | None = None) -> tuple[str, list[str]]:
        return self.views.prepare(at)

    def ensure_seeded(self) -> Index:
        return self.views.ensure_seeded()

    def view_map(self, index: Index) -> ViewMap:
        return self.views.view_map(index)

    def close(self) -> None:
        self.views.close()

    @property
    def floor_identity(self) -> dict[str, Any]:
        return self.views.floor_identity

    def floor_info(self, query: str | None = None, records: int | None = None) -> FloorInfo:
        return self.views.floor_info(query, records)

    def floor(self, query: str | None = None) -> tuple[float, str, list[str]]:
        info = self.floor_info(query)
        return info.value, info.source, info.warnings

    def hits(
        self,
        index: Index,
        query: str,
        statuses: list[str],
        kinds: list[str] | None,
        n: int,
        use_lexical: bool,
        pair_floor: float | None = None,
    ) -> list[Hit]:
        allowed = self.view_map(index)
        return retrieval.hits(
            index, self.embedder, allowed, query, statuses, kinds, n, use_lexical, pair_floor=pair_floor
        )

    def weigh(self, index: Index, query: str, hits: list[Hit], mode: str, info: FloorInfo) -> None:
        """Hold `hits` to their floors and measure their words as recall's search does (`retrieval.weigh`)."""
        gates = (info.gate, info.cross_gate, info.cross_floor)
        retrieval.weigh(index, query, hits, mode, info.value, self.settings.corroborate_margin, gates)

    def _floor_warnings(self, info: FloorInfo) -> list[str]:
        """Warn about the floor once per Recaller, and only where it matters: a shipped default that was
        measured (MiniLM's) is a sound floor, an unmeasured one (BGE, a local model) is not."""
        if info.provenance.get("language") == "strictest":  # every such answer says so
            return list(info.warnings)
        if self._floor_warned or (info.source == "shipped-default" and self.embedder.spec.floor_measured):
            return []
        self._floor_warned = bool(info.warnings)
        return list(info.warnings)

    def recall(
        self,
        query: str,
        k: int = 5,
        kinds: list[str] | None = None,
        statuses: list[str] | None = None,
        mode: str | None = None,
        store: bool = True,
        at: str | None = None,
        fallback: bool | None = None,
    ) -> RecallResult:
        """Recall from this worktree's view, or with `at` (a sha, tag or branch) from the records as they
        were at that commit, lifecycle included. Without `statuses`, when no in-force record passes the floor,
        the proposed ones that do are returned marked (recall/fallback.py); `fallback` overrides the setting
        `proposed_fallback`."""
        if not query or not query.strip():
            raise ValueError("the query is empty")
        asked = validate_filters(kinds, statuses)
        s = self.settings
        mode = check_mode(mode or ("hybrid" if s.hybrid else "dense"))  # before any work
        may_fall_back = asked is None and (s.proposed_fallback if fallback is None else fallback)
        # the question's vector is on every answer's critical path: it is embedded while the view is readied
        embedder = QueryOnce(self.embedder, early=query, started=self._ahead.pop(query, None))
        info = self.floor_info(query)
        ask = retrieval.Ask(
            query,
            list(asked or DEFAULT_STATUSES),
            kinds,
            k,
            mode,
            info.value,
            info.gate,
            info.cross_gate,
            info.cross_floor,
        )
        view, stale = self.prepare(at)
        with workspace_lock(self.wsdir, exclusive=False), self.index().catalog.viewing(view):
            index = self.ensure_seeded()
            if info.source == "shipped-default":  # why it holds depends on this view's records: one COUNT
                info = self.floor_info(query, self.views.in_force(index))
            admitted = self.views.unmapped_admitted(index) if may_fall_back else {}
            allowed = self.view_map(index)
            found = retrieval.find(index, embedder, allowed, s, self.weights, ask, may_fall_back, admitted)
            filters = {
                "kinds": kinds or [],
                "statuses": ask.statuses,
                "asked_statuses": asked,
                "fallback": found.fallback,
            }
            state = self.views.state(index, ask.floor)
            results = [r.to_json() for r in found.results]  # the typed rows become what surfaces print
            receipt = answer_receipt(query, results, self.workspace.id, state, filters, k, mode)
            if store:
                store_receipt(index, receipt)
            quiet = not found.results and not asked and not may_fall_back
            left_out = mostly_proposed(self.views.effective(index)) if quiet else []
        lost = [f"{found.lost}; this answer may miss records"] if found.lost else []
        warnings = s.notices() + self._floor_warnings(info) + stale + lost + self.views.never_seeded(index)
        why = None
        if not found.results:
            why = no_answer_reason(found.hits, ask.floor, mode, s.corroborate_margin, ask.gate, ask.cross_gate)
        if found.unmapped:  # proposed records answered beside in-force ones
            warnings += left_out + [unmapped_warning(found.unmapped)]
        else:
            warnings += left_out + ([fallback_warning(query)] if found.fallback else [])
        return RecallResult(results, receipt, ask.floor, info.source, warnings, why, info.provenance, found.fallback)
