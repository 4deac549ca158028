"""View freshness for recall: the index opened (and reopened when a writer moved it on), the view to answer
from built or refreshed first (a seed), and the check that there is anything to answer from at all.

Why one owner: a long-lived holder (API, MCP) keeps one of these per workspace. It reopens the index when
the catalog generation moved, the catalog file was replaced, or a writer created it after an empty open, so
it never serves from a stale Chroma segment; a view whose git state moved since it was built is refreshed
before it answers (git/state.fingerprint).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from ..base.store import LockTimeout
from ..config import Settings
from ..embedding.specs import identity_hash
from ..git.revisions import resolve_commit
from ..git.state import fingerprint
from ..git.workspace import BareRepository, Workspace
from ..index.handle import Index, open_index
from ..index.migrations import CatalogNeedsMigration
from ..index.recovery import CatalogCorrupt
from ..index.views import at_view, worktree_view
from ..records.language import language_of
from ..seed.stale_watch import QuietSince
from .errors import NotSeeded, RecallError
from .fallback import unmapped_majority
from .floors import FloorInfo, floor_for, floor_identity
from .ranking import DEFAULT_STATUSES

if TYPE_CHECKING:
    from ..seed.seeder import Seeder

REFRESH_WAIT = 30.0  # seconds a read waits for the write lock to refresh a stale view before answering anyway
STALE = "record files changed since the last seed are not in this answer"  # how the warning starts
RESEED_WAIT = 2.0  # seconds a read waits for the write lock to index a few edited record files, else it warns
ViewMap = dict[str, tuple[str, str, str]]  # chunk id -> (record id, kind, effective status)
T = TypeVar("T")


class Views:
    """One worktree's index, views and floor, as a reader sees them (it creates and migrates nothing
    itself: the seed it runs to refresh a view does). `new_seeder` makes that seed's Seeder: handed in
    (recall.calibrate.calibrating_seeder), so refreshing a view calibrates as `jgm seed` does without this
    module importing the calibration that reads through it."""

    def __init__(
        self,
        workspace: Workspace,
        settings: Settings,
        store_root: Path | None,
        identity: dict[str, Any],
        embedder: Any,
        wsdir: Path,
        new_seeder: Callable[..., Seeder],
    ) -> None:
        self.workspace = workspace
        self.settings = settings
        self.store_root = store_root
        self.identity = identity
        self.embedder = embedder  # handed to the seeder, so a refresh loads no second model
        self.wsdir = wsdir
        self._new_seeder = new_seeder
        self._index: Index | None = None
        self._generation = -1
        self._seeder: Seeder | None = None
        # what is read once per view and catalog generation (`_per_generation`): name -> (key, value)
        self._kept: dict[str, tuple[tuple[str | None, int], Any]] = {}
        self._quiet = QuietSince()

    def use_settings(self, settings: Settings) -> None:
        """New settings (same model and Chroma URL): the next refresh builds its seeder with them."""
        self.settings = settings
        self._seeder = None
        self._kept.pop("admitted", None)  # the roots may have changed

    def index(self) -> Index:
        """The open index, reopened first when a writer moved it on."""
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
            or _written_since(self._index)
        ):  # reopen
            self.close()
            return self.index()
        return self._index

    def close(self) -> None:
        """Forget the index before closing it, so a close that fails never leaves a closed one in use."""
        index, self._index = self._index, None
        self._kept.clear()  # keyed by generation, which a replaced catalog may repeat
        if index is not None:
            index.close()

    def seeder(self) -> Seeder:
        if self._seeder is None:
            self._seeder = self._new_seeder(
                self.workspace.repo_root, self.settings, self.store_root, embedder=self.embedder
            )
        return self._seeder

    @property
    def floor_identity(self) -> dict[str, Any]:
        """floors.floor_identity of this model."""
        return floor_identity(self.identity, self.embedder.spec)

    def floor_info(self, query: str | None = None, records: int | None = None) -> FloorInfo:
        """The floor for a question (its language picks the probes' floor; without one, English's);
        `records`, when known, says why a shipped default holds."""
        lang = language_of(query) if query else "en"
        s, spec = self.settings, self.embedder.spec
        return floor_for(
            self.workspace.id, self.floor_identity, spec, s.floor, self.store_root, lang, s.auto_calibrate, records
        )

    def prepare(self, at: str | None = None) -> tuple[str, list[str]]:
        """The view to answer from, built or refreshed first when needed; returns (view name, warnings)."""
        root = self.workspace.repo_root
        if self.workspace.bare and not at:
            raise BareRepository(root)
        if not (self.wsdir / "catalog.sqlite").exists():  # never seeded: ensure_seeded says so
            return worktree_view(root), []
        try:
            cat = self.index().catalog
        except CatalogNeedsMigration:  # a reader never migrates: the seed that refreshes the view does
            self.seeder().seed(lock_timeout=REFRESH_WAIT)
            cat = self.index().catalog
        if at:
            commit = resolve_commit(root, at)
            name = at_view(commit)
            if cat.get_view(name) is None:  # read from Git objects; embeds only chunks no view has
                self.seeder().seed(rev=commit)
            else:
                cat.touch_view(name)  # LRU
            return name, []
        name = worktree_view(root)
        row = cat.get_view(name)
        if row is not None and row["fingerprint"] == fingerprint(root):
            return name, self._unseeded_edits(name)
        if row is None and not cat.get_meta("last_seed_at"):
            return name, []  # never seeded: recall says so
        try:
            self.seeder().seed(lock_timeout=REFRESH_WAIT)
        except LockTimeout:
            return name, [
                f"the view of {root} may be stale (its git state moved since it was built) "
                "and another jgm process holds the index lock; run `jgm seed` to refresh it"
            ]
        return name, []

    def _unseeded_edits(self, view: str) -> list[str]:
        """Record files edited, added or deleted since the view's last seed with no git state moving (an
        unstaged edit; seed/stale.py): reseeded first when they are few (`reseed_on_recall`) and the index
        lock is free within RESEED_WAIT, else named in a warning with the command that indexes them. The
        reseed is the normal one (Seeder.seed: the one write path, under the workspace's write lock)."""
        from ..base.errors import JgmError
        from ..seed import stale

        root, s, wsdir = self.workspace.repo_root, self.settings, self.wsdir
        found = self._quiet.check(  # a resident reader stats only after an event (seed/stale_watch.py)
            stale.look_key(wsdir, s, view),
            root,
            s,
            lambda: stale.kept_files(wsdir, view),
            lambda: stale.changes(wsdir, root, s, view),
        )
        if not found:
            return []
        limit = self.settings.reseed_on_recall
        if len(found) > limit:
            why = f"{len(found)} files, more than the {limit} a recall reseeds first (`reseed_on_recall`)"
        else:
            try:
                self.seeder().seed(lock_timeout=RESEED_WAIT)
                return []
            except LockTimeout:
                why = "another jgm process holds the index lock"
            except JgmError as e:  # a broken jgm.toml, a model that cannot load: the answer still comes, marked
                why = f"the reseed failed: {str(e).splitlines()[0][:200]}"
        return [stale_warning(found.named(), why, root, self.store_root)]

    def ensure_seeded(self) -> Index:
        """The index, or NotSeeded naming the store and the command that fixes it. Call under the lock."""
        from ..base.store import store_root
        from ..git.home import seed_command

        root = self.workspace.repo_root
        store = self.store_root or store_root()
        where = f"workspace {self.workspace.id} ({root})"

        def never() -> str:  # only when it is said: the command asks git for the repository's store
            return f"{where} has never been seeded in store {store}: run `{seed_command(root, store)}`"

        if not (self.wsdir / "catalog.sqlite").exists():  # do not create a catalog just to find it empty
            raise NotSeeded(never())
        index = self.index()
        if index.catalog.is_empty():
            if not index.catalog.get_meta("last_seed_at"):
                raise NotSeeded(never())
            roots = ", ".join(f"{r}/" for r in self.settings.roots)
            raise NotSeeded(
                f"{where} in store {store} holds no records: {roots} in {root} had "
                f"none when it was seeded. Add records (docs/records.md), then run `{seed_command(root, store)}`"
            )
        return index

    def never_seeded(self, index: Index) -> list[str]:
        """The warning of an answer from a store that holds only candidates (no seed ever ran)."""
        if index.catalog.get_meta("last_seed_at") or self.workspace.bare:
            return []
        store = self.store_root or self.wsdir.parent.parent
        return [f"workspace {self.workspace.id} has never been seeded in store {store}: run `jgm seed`"]

    def state(self, index: Index, floor: float) -> dict[str, Any]:
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

    def _per_generation(self, name: str, index: Index, read: Callable[[], T]) -> T:
        """`read()` once per view and catalog generation: what only a write to the catalog can change."""
        key = (index.catalog.view, index.catalog.generation())
        kept = self._kept.get(name)
        if kept is None or kept[0] != key:
            kept = self._kept[name] = (key, read())
        return cast(T, kept[1])

    def view_map(self, index: Index) -> ViewMap:
        """chunk id -> (record id, kind, effective status) of the current view, cached per generation."""
        return self._per_generation("map", index, index.catalog.view_chunk_map)

    def in_force(self, index: Index) -> int:
        """How many of the current view's records are in force: why a shipped floor holds depends on it (below
        MIN_RECORDS the seed does not calibrate). A COUNT over the view costs 3 ms at 7,000 records, on the
        path of every recall with a shipped floor, so it is counted once per generation like the view map."""
        return self._per_generation("in_force", index, lambda: index.catalog.count_in(DEFAULT_STATUSES))

    def unmapped_admitted(self, index: Index) -> dict[str, str]:
        """record id -> unmapped word, of the proposed records of collections most of whose records carry
        that word (recall/fallback.py `unmapped_majority`), cached per generation like the view map. Roots as
        seed/reading.py `status_notes` reports the words; a record without a path (a candidate) has none."""
        from ..seed.sources import root_of

        def read() -> dict[str, str]:
            rows = index.catalog.status_words()
            roots = [
                (rid, (root_of(path, self.settings) or ".") if path else None, eff, w) for rid, path, eff, w in rows
            ]
            return unmapped_majority(roots)

        return self._per_generation("admitted", index, read)

    def effective(self, index: Index) -> list[str]:
        """Each record's effective status in the current view."""
        return list({rid: eff for rid, _kind, eff in self.view_map(index).values()}.values())


def stale_warning(named: str, why: str, root: Path, store: Path | None) -> str:
    """The warning of an answer served from an index that lacks record files changed since its last seed."""
    from ..git.home import seed_command

    return f"{STALE}: {named} ({why}); run `{seed_command(root, store)}` to index them"


def _written_since(index: Index) -> bool:
    """An index opened before anything was written reads an empty catalog in memory: a writer has made the
    file since."""
    path = index.catalog.path
    return bool(index.catalog.blank and path.exists() and path.stat().st_size > 0)
