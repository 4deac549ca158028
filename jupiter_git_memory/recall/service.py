"""Recall: query → dense (Chroma) + lexical (FTS5) evidence → contract ranking → results + receipt."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..base import error_codes as E
from ..base.errors import JgmError
from ..base.store import LockTimeout, workspace_dir, workspace_lock
from ..config import Settings, load_settings
from ..embedding.registry import load_embedder
from ..embedding.specs import identity_hash
from ..index.handle import Index, open_index, vector_identity
from ..index.migrations import CatalogNeedsMigration
from ..index.recovery import CatalogCorrupt
from ..index.view_query import lost_vectors, view_query
from ..index.views import at_view, fingerprint, resolve_commit, worktree_view
from ..index.workspace import BareRepository, Workspace, find_workspace
from ..records.kinds import ALL_EFFECTIVE, KINDS, STATUS_ALIASES
from .fallback import FALLBACK, FALLBACK_STATUSES, fallback_warning, mark, mostly_proposed
from .floors import FloorInfo, floor_for
from .ranking import (
    DEFAULT_STATUSES,
    Hit,
    check_mode,
    discriminating,
    fts_match,
    fts_terms,
    idf_mass,
    merge_weights,
    no_answer_reason,
    rank,
)
from .receipts import make_receipt, store_receipt
from .replacements import name_replacements
from .results import RecallResult, as_result

_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="jgm-lexical")
LEXICAL_PRUNE_FROM = 2000  # chunks; below this every query term is matched (cheap on a small index)
DENSE_POOL = 30  # chunks asked of Chroma per recall (at least 6 per result wanted)
REFRESH_WAIT = 30.0  # seconds a read waits for the write lock to refresh a stale view before answering anyway


class RecallError(JgmError, RuntimeError):
    """Recall could not run (model or index unavailable): never to be reported as 'no matches'."""

    entry = E.MEMORY_RETRIEVAL_FAILED


class NotSeeded(JgmError, RuntimeError):
    """The store holds no records for this workspace, so an empty answer would mean nothing: only a
    seeded, non-empty workspace can answer 'no match'. The message names the store and the fix."""

    entry = E.MEMORY_NOT_SEEDED


def validate_filters(kinds: list[str] | None, statuses: list[str] | None) -> list[str] | None:
    """Check the filters; returns the statuses with aliases resolved (`false` → `invalidated`)."""
    for k in kinds or []:
        if k not in KINDS:
            raise ValueError(f"unknown kind {k!r}; use one of {', '.join(KINDS)}")
    resolved = [STATUS_ALIASES.get(s, s) for s in statuses] if statuses else statuses
    for s in resolved or []:
        if s not in ALL_EFFECTIVE:
            raise ValueError(f"unknown status {s!r}; use one of {', '.join(ALL_EFFECTIVE)}")
    return resolved


class Recaller:
    """One worktree's recall, from its view (or an `--at` view). Long-lived holders (API, MCP) reopen the
    index when a writer bumped the catalog generation, so they never serve from a stale Chroma segment;
    a view whose git state moved since it was built is refreshed before it answers (views.fingerprint)."""

    def __init__(
        self,
        repo: Path | str | None = None,
        settings: Settings | None = None,
        workspace: Workspace | None = None,
        store_root: Path | None = None,
    ):
        self.workspace = workspace or find_workspace(repo, bare_ok=True)  # a bare repository answers with --at
        self.settings = settings or load_settings(self.workspace.repo_root)
        self.store_root = store_root  # the store ($JGM_HOME when None); the repo is self.workspace.repo_root
        try:
            self.embedder = load_embedder(self.settings.model)
        except Exception as e:
            raise RecallError(f"model unavailable: {e}") from e
        self.identity = vector_identity(self.embedder.spec)
        self.weights = merge_weights(self.settings.weights)
        self.wsdir = workspace_dir(self.workspace.id, store_root, create=False)  # a reader creates nothing
        self._index: Index | None = None
        self._generation = -1
        self._floor_warned = False
        self._seeder = None
        self._map: tuple[tuple, dict] = ((), {})

    def index(self) -> Index:
        if self._index is None:
            try:
                self._index = open_index(
                    self.workspace, self.identity, self.settings.chroma_url, store_root=self.store_root
                )  # reads only
            except CatalogCorrupt as e:
                raise RecallError(str(e)) from None
            self._generation = self._index.catalog.generation()
        elif (
            self._index.catalog.replaced()
            or self._index.catalog.generation() != self._generation
            or self._written_since(self._index)
        ):  # reopen
            self.close()
            return self.index()
        return self._index

    @staticmethod
    def _written_since(index: Index) -> bool:
        """An index opened before anything was written reads an empty catalog in memory: a writer has made
        the file since."""
        path = index.catalog.path
        return index.catalog.blank and path.exists() and path.stat().st_size > 0

    def seeder(self):
        from ..seed.seeder import Seeder
        from .calibrate import after_seed

        if self._seeder is None:
            self._seeder = Seeder(
                self.workspace.repo_root, self.settings, self.store_root, embedder=self.embedder, calibrate=after_seed
            )
        return self._seeder

    def prepare(self, at: str | None = None) -> tuple[str, list[str]]:
        """The view to answer from, built or refreshed first when needed; returns (view name, warnings)."""
        if self.workspace.bare and not at:
            raise BareRepository(self.workspace.repo_root)
        if not (self.wsdir / "catalog.sqlite").exists():  # never seeded: ensure_seeded says so
            return worktree_view(self.workspace.repo_root), []
        try:
            cat = self.index().catalog
        except CatalogNeedsMigration:  # a reader never migrates: the seed that refreshes the view does
            self.seeder().seed(lock_timeout=REFRESH_WAIT)
            cat = self.index().catalog
        if at:
            commit = resolve_commit(self.workspace.repo_root, at)
            name = at_view(commit)
            if cat.get_view(name) is None:  # read from Git objects; embeds only chunks no view has
                self.seeder().seed(rev=commit)
            else:
                cat.touch_view(name)  # LRU
            return name, []
        name = worktree_view(self.workspace.repo_root)
        row = cat.get_view(name)
        if row is not None and row["fingerprint"] == fingerprint(self.workspace.repo_root):
            return name, []
        if row is None and not cat.get_meta("last_seed_at"):
            return name, []  # never seeded: recall says so
        try:
            self.seeder().seed(lock_timeout=REFRESH_WAIT)
        except LockTimeout:
            return name, [
                f"the view of {self.workspace.repo_root} may be stale (its git state moved since it was built) "
                "and another jgm process holds the index lock; run `jgm seed` to refresh it"
            ]
        return name, []

    def close(self) -> None:
        """Forget the index before closing it, so a close that fails never leaves a closed one in use."""
        index, self._index = self._index, None
        self._map = ((), {})  # keyed by generation, which a replaced catalog may repeat
        if index is not None:
            index.close()

    def floor_info(self) -> FloorInfo:
        return floor_for(self.workspace.id, self.identity, self.embedder.spec, self.settings.floor, self.store_root)

    def floor(self) -> tuple[float, str, list[str]]:
        info = self.floor_info()
        return info.value, info.source, info.warnings

    def corroborate(self, index: Index, query: str, hits: list[Hit], floor: float) -> None:
        """Set `corroboration` on the hits in the band just above the floor (the only ones it decides)."""
        band = [h for h in hits if floor < h.cos <= floor + self.settings.corroborate_margin]
        if not band:
            return
        terms = fts_terms(query)
        mass = idf_mass(terms, index.catalog.term_records(terms), index.catalog.record_count()) if terms else {}
        for h in band:
            h.corroboration = mass.get(h.record_id, 0.0)

    def _floor_warnings(self, source: str, warnings: list[str]) -> list[str]:
        """Warn about the floor once per Recaller, and only where it matters: a shipped default that was
        measured (MiniLM's) is a sound floor, an unmeasured one (BGE, a local model) is not."""
        if self._floor_warned or (source == "shipped-default" and self.embedder.spec.floor_measured):
            return []
        self._floor_warned = bool(warnings)
        return list(warnings)

    def ensure_seeded(self) -> Index:
        """The index, or NotSeeded naming the store and the command that fixes it. Call under the lock."""
        from ..base.home import seed_command
        from ..base.store import store_root

        store = self.store_root or store_root()
        where = f"workspace {self.workspace.id} ({self.workspace.repo_root})"
        if not (self.wsdir / "catalog.sqlite").exists():  # do not create a catalog just to find it empty
            raise NotSeeded(
                f"{where} has never been seeded in store {store}: run `{seed_command(self.workspace.repo_root, store)}`"
            )
        index = self.index()
        if index.catalog.is_empty():
            if not index.catalog.get_meta("last_seed_at"):
                raise NotSeeded(
                    f"{where} has never been seeded in store {store}: run `{seed_command(self.workspace.repo_root, store)}`"
                )
            roots = ", ".join(f"{r}/" for r in self.settings.roots)
            raise NotSeeded(
                f"{where} in store {store} holds no records: {roots} in {self.workspace.repo_root} had "
                f"none when it was seeded. Add records (docs/records.md), then run "
                f"`{seed_command(self.workspace.repo_root, store)}`"
            )
        return index

    def index_state(self, index: Index, floor: float) -> dict:
        """The receipt's view of the index: which view (worktree or `--at`), its commit and dirty flag."""
        cat = index.catalog
        v = cat.get_view() or {}
        return {
            "view": cat.view,
            "worktree": str(self.workspace.repo_root),
            "at": v.get("rev"),
            "commit": v.get("commit_sha"),
            "dirty": bool(v.get("dirty")),
            "identity": identity_hash(self.identity),
            "floor": floor,
            "generation": cat.generation(),
        }

    def _effective(self, index: Index) -> list[str]:
        """Each record's effective status in the current view."""
        return list({rid: eff for rid, _kind, eff in self.view_map(index).values()}.values())

    def view_map(self, index: Index) -> dict[str, tuple[str, str, str]]:
        """chunk id -> (record id, kind, effective status) of the current view, cached per generation."""
        key = (index.catalog.view, index.catalog.generation())
        if self._map[0] != key:
            self._map = (key, index.catalog.view_chunk_map())
        return self._map[1]

    def _lexical(
        self, index: Index, allowed: dict, query: str, statuses: list[str], kinds: list[str] | None, n: int
    ) -> list:
        terms = fts_terms(query)
        total = index.vectors.count()
        if terms and total >= LEXICAL_PRUNE_FROM:
            terms = discriminating(terms, index.catalog.term_chunk_counts(terms), total)
        window = 200 * min(10, max(1, -(-total // max(len(allowed), 1))))  # other views' chunks share the FTS
        return index.catalog.lexical(fts_match(terms), allowed, statuses, kinds, n, window) if terms else []

    def hits(
        self, index: Index, query: str, statuses: list[str], kinds: list[str] | None, n: int, use_lexical: bool
    ) -> list[Hit]:
        """Best evidence per record: dense top-n chunks plus lexical matches (their cosine computed too).

        The lexical query runs in a worker thread while the query is embedded and Chroma searched: SQLite,
        onnxruntime and Chroma's Rust core all release the GIL, so the two cores work at once."""
        allowed = self.view_map(index)
        lex_job = _POOL.submit(self._lexical, index, allowed, query, statuses, kinds, n) if use_lexical else None
        try:
            qvec = self.embedder.embed_query(query)
            best: dict[str, Hit] = {}

            def keep(cid: str) -> bool:
                got = allowed.get(cid)
                return got is not None and got[2] in statuses and (not kinds or got[1] in kinds)

            seen: dict[str, list[float]] = {}
            for cid, cos in view_query(index.vectors, qvec, n, keep):
                rid, kind, effective = allowed[cid]
                seen.setdefault(rid, []).append(cos)
                if rid not in best or cos > best[rid].cos:
                    best[rid] = Hit(rid, kind, effective, cos, cid)
            for rid, cosines in seen.items():  # a record matching in two places is a safer answer
                if len(cosines) > 1:
                    top2 = sorted(cosines, reverse=True)[:2]
                    best[rid].cos2 = sum(top2) / 2
        finally:
            lex = lex_job.result() if lex_job else []
        missing = [cid for rid, cid, _, _, _ in lex if rid not in best]
        vecs = index.vectors.vectors(missing)
        for rid, cid, kind, effective, score in lex:
            if rid not in best and cid in vecs:
                best[rid] = Hit(rid, kind, effective, float(vecs[cid] @ qvec), cid)
            if rid in best:
                best[rid].lexical = score
        return list(best.values())

    def _search(
        self, index: Index, query: str, statuses: list[str], kinds: list[str] | None, k: int, mode: str, floor: float
    ) -> tuple[list[Hit], list[Hit]]:
        """(every hit, the ranked ones that pass the floor) for these statuses."""
        try:
            hits = self.hits(index, query, statuses, kinds, max(DENSE_POOL, k * 6), mode != "dense")
            if mode == "hybrid":
                self.corroborate(index, query, hits, floor)
        except (ValueError, KeyError, NotSeeded):
            raise
        except Exception as e:
            raise RecallError(f"index unavailable: {e}") from e
        from .evidence import factors  # a record whose cited code moved on weighs less (docs/drift.md)

        s = self.settings
        drift = factors(index.catalog, s.drift_weight, s.missing_weight)
        return hits, rank(hits, floor, self.weights, k, mode, s.lexical_weight, s.corroborate_margin, drift)

    def _shape(self, index: Index, ranked: list[Hit]) -> tuple[list[dict], dict]:
        """The answer's results (and their catalog rows) for the ranked hits."""
        rows = index.catalog.records_by_ids([h.record_id for h in ranked])
        chunks = index.catalog.chunks_by_id([h.chunk_id for h in ranked])
        results = []
        for h in ranked:
            row = rows.get(h.record_id)
            if row is None:  # vector without catalog row: a crash leftover the next seed removes
                continue
            body = chunks[h.chunk_id].body if h.chunk_id in chunks else ""
            results.append(as_result(row, body, round(h.score, 4), h.why))
        return results, rows

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
        statuses = validate_filters(kinds, statuses)
        mode = check_mode(mode or ("hybrid" if self.settings.hybrid else "dense"))  # before any work
        asked = statuses
        statuses = list(statuses or DEFAULT_STATUSES)
        may_fall_back = asked is None and (self.settings.proposed_fallback if fallback is None else fallback)
        info = self.floor_info()
        floor, floor_source, floor_warnings = info.value, info.source, list(info.warnings)
        view, stale = self.prepare(at)
        with workspace_lock(self.wsdir, exclusive=False), self.index().catalog.viewing(view):
            from .evidence import attach

            index = self.ensure_seeded()
            fell_back = None
            hits, ranked = self._search(index, query, statuses, kinds, k, mode, floor)
            results, rows = self._shape(index, ranked)
            if not results and may_fall_back:
                more, ranked = self._search(index, query, list(FALLBACK_STATUSES), kinds, k, mode, floor)
                hits += more  # an empty answer's `why` names the best of both
                results, rows = self._shape(index, ranked)
                fell_back = FALLBACK if results else None
                mark(results)
            lost = lost_vectors(index)
            if lost and not results:  # never "no match" from an index that lost vectors
                raise RecallError("; ".join([lost, *self.settings.notices()]))  # e.g. they went to a refused server
            attach(index.catalog, results)  # each result says whether the code it cites moved on
            name_replacements(index.catalog, results, rows)  # a retired record says what to read instead
            receipt = make_receipt(
                query,
                [r["id"] for r in results],
                self.workspace.id,
                self.index_state(index, floor),
                {"kinds": kinds or [], "statuses": statuses, "asked_statuses": asked, "fallback": fell_back},
                k,
                mode,
            )
            receipt["record_hashes"] = {r["id"]: r["content_hash"] for r in results}
            if store:
                store_receipt(index, receipt)
            left_out = (
                mostly_proposed(self._effective(index)) if not results and not asked and not may_fall_back else []
            )
        warnings = (
            self.settings.notices()
            + self._floor_warnings(floor_source, floor_warnings)
            + stale
            + ([f"{lost}; this answer may miss records"] if lost else [])
        )
        if not index.catalog.get_meta("last_seed_at") and not self.workspace.bare:  # candidates only: says so
            warnings.append(
                f"workspace {self.workspace.id} has never been seeded in store "
                f"{self.store_root or self.wsdir.parent.parent}: run `jgm seed`"
            )
        why = None if results else no_answer_reason(hits, floor, mode, self.settings.corroborate_margin)
        warnings += left_out + ([fallback_warning(query)] if fell_back else [])
        return RecallResult(results, receipt, floor, floor_source, warnings, why, info.provenance, fell_back)
