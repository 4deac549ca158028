"""`jgm seed`: bring a workspace's index in line with its knowledge files, incrementally.

A no-op reseed only hashes files: unchanged files reuse their parsed record and chunks from the catalog,
and Git commit lookups cover only commits since the last seed.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from dataclasses import asdict, replace
from pathlib import Path

from ..base.store import workspace_dir, workspace_lock
from ..chunking.chunker import chunk_record
from ..config import Settings, load_settings
from ..embedding.registry import load_embedder
from ..git import drift as drift_git
from ..git import listing, revisions
from ..git.revisions import UnknownRevision, resolve_commit
from ..git.state import fingerprint
from ..git.workspace import BareRepository, Workspace, find_workspace
from ..index.handle import Index, open_index, vector_identity
from ..index.plan import plan_changes
from ..index.recovery import is_corruption, move_aside, salvage_candidates
from ..index.shared import join, take_fetched
from ..index.views import at_view, stale_views, worktree_view
from ..index.writer import apply_plan
from ..lifecycle.promote import mark_promotions
from ..records.formats.sidecar import content_hash
from ..records.model import Issue, Record
from ..records.row import RecordRow
from . import model_choice, sources, stale, unchanged
from .drift import view_drift
from .interrupt import Cut, keep_whole
from .reading import options_key, read_knowledge
from .report import SeedReport


def _file_row(r: Record, effective: str, commit: str | None, dirty: bool, error: str | None = None) -> RecordRow:
    return RecordRow(
        r.id, r.path, r.kind, r.status, effective, r.title, r.content_hash, commit, dirty, "file", r.to_dict(), error
    )


def _with_stored_parses(cat, files, previous: dict[str, RecordRow]) -> dict[str, RecordRow]:
    """`previous` plus the stored parse of every file whose bytes some view already holds (at its path here),
    so a new worktree or `--at` view parses only bytes no view has seen. Only our own format's parse moves
    to another path: an ADR adapter may read the id or status from the file name."""
    have = {(r.path, r.content_hash) for r in previous.values() if r.origin == "file" and not r.error}
    digests = {content_hash(f.data, f.sidecar): f.path for f in files if f.data is not None}
    out = dict(previous)
    for h, (rid, data) in cat.parsed_by_hash([h for h, p in digests.items() if (p, h) not in have]).items():
        path = digests[h]
        if data.get("format", "jgm") != "jgm" and data.get("path") != path:
            continue
        out[f"stored:{path}"] = RecordRow(
            rid,
            path,
            data.get("kind", ""),
            data.get("status", ""),
            "",
            "",
            h,
            None,
            False,
            "file",
            {**data, "path": path},
        )
    return out


def _digests(files: list[sources.SourceFile]) -> dict[str, str]:
    """What the no-op check compares a racy file by (seed/unchanged.py): the digest of the bytes read."""
    out = {f.path: unchanged.digest(f.data) for f in files if f.data is not None}
    out.update({f.sidecar.name: "sha256:" + f.sidecar.digest for f in files if f.sidecar})
    return out


class Seeder:
    """Holds the loaded model and settings so repeated seeds (watcher, server) pay loading once."""

    def __init__(
        self,
        repo: Path | str | None = None,
        settings: Settings | None = None,
        store_root: Path | None = None,
        embedder=None,
        calibrate: Callable[[Seeder], dict | None] | None = None,
    ):
        self.workspace: Workspace = find_workspace(repo, bare_ok=True)  # a bare repository seeds with --rev
        # the post-seed floor calibration is recall's (it runs probe queries), so it is handed in by the
        # layer above (recall.calibrate.calibrating_seeder); without it a seed only writes the index
        self.calibrate = calibrate
        self.store_root = store_root  # the store ($JGM_HOME when None); the repo is self.workspace.repo_root
        self.settings = settings or load_settings(self.workspace.repo_root)
        self._injected = embedder is not None
        self._reported = False  # this seed stored a choice made now: its report says which and why
        # the workspace's model: the user's setting, the stored choice, or chosen now from the records' languages
        self.model_choice = model_choice.resolve(self.settings, self.workspace, store_root, deciding=not self._injected)
        self.embedder = embedder or load_embedder(self.model_choice.model)
        self.identity = vector_identity(self.embedder.spec)
        self.wsdir = workspace_dir(self.workspace.id, store_root, create=False)  # the write lock creates it

    def follow_model_choice(self) -> None:
        """Load the workspace's model again when its stored choice moved (`jgm model use` while a watcher or
        server holds this Seeder): one small file read per seed."""
        if self._injected:
            return
        if self.model_choice.decided_now:  # the first seed stores what this Seeder decided when it was made
            model_choice.save_choice(self.workspace.id, self.store_root, self.model_choice)
            self.model_choice = replace(self.model_choice, decided_now=False)
            self._reported = True
            return
        choice = model_choice.resolve(self.settings, self.workspace, self.store_root, deciding=True)
        if choice.model != self.embedder.spec.name:
            self.embedder = load_embedder(choice.model)
            self.identity = vector_identity(self.embedder.spec)
            self.model_choice = choice

    def chunker(self, title: str, body: str):
        return chunk_record(title, body, self.embedder.spec.max_tokens - 2, self.embedder.count_tokens)

    def open(self, rebuild: bool = False, view: str | None = None, recover: bool = False, write: bool = True) -> Index:
        """The index; `write` (the default: call it under the exclusive lock) may create or migrate it."""
        return open_index(
            self.workspace,
            self.identity,
            self.settings.chroma_url,
            rebuild=rebuild,
            store_root=self.store_root,
            view=view,
            recover=recover,
            write=write,
        )

    def seed(
        self,
        rev: str | None = None,
        rebuild: bool = False,
        progress: Callable[[int, int], None] | None = None,
        fault: Callable[[str], None] | None = None,
        lock_timeout: float | None = None,
        reread: bool = False,
    ) -> SeedReport:
        """Seed this worktree's view, or with `rev` the `--at` view of that commit (read from Git objects).
        Either way only chunks no view has embedded yet are embedded, and no other view changes. `reread`:
        read every file even when nothing they depend on changed since the last seed (`doctor --repair`)."""
        t0 = time.perf_counter()
        commit = None
        self.follow_model_choice()
        if not rev and self.workspace.bare:
            raise BareRepository(self.workspace.repo_root)
        if rev:
            try:
                commit = resolve_commit(self.workspace.repo_root, rev)
            except UnknownRevision as e:  # the same code as `recall --at`, on every surface
                raise UnknownRevision(f"--rev {e.message}") from None
        view = at_view(commit) if commit else worktree_view(self.workspace.repo_root)
        with workspace_lock(self.wsdir, exclusive=True, timeout=lock_timeout):
            # reopens Chroma if another process wrote since we last did; a corrupt catalog is moved aside
            index = self.open(rebuild=rebuild, view=view, recover=True)
            try:
                quick = not (rev or rebuild or reread or fault or index.recovered_from or index.chroma_moved)
                root = self.workspace.repo_root
                early = stale.take(root, self.settings) if quick else None  # before the no-op look: see renew
                look = unchanged.take_look(root, self.settings, self.identity, view) if quick else None
                stored = unchanged.stored_report(self.wsdir, root, look, index) if look else None
                if stored is not None:
                    report = SeedReport(**stored)
                    if early is not None:
                        stale.renew(self.wsdir, view, early)
                else:
                    report = self._seed_locked(index, rev and commit, progress, fault, rebuild, look)
            except sqlite3.DatabaseError as e:  # damage found only while reading: the same recovery, once
                if not is_corruption(e):
                    raise
                index.close()
                moved = move_aside(index.catalog.path)
                index = self.open(rebuild=rebuild, view=view, recover=True)
                index.recovered_from = moved
                report = self._seed_read(index, rev and commit, progress, fault, rebuild)[0]
            finally:
                index.close()
        report.floor = self.calibrate(self) if self.calibrate else None
        report.model = dict(self.model_choice.to_dict(), name=self.embedder.spec.name, decided_now=self._reported)
        self._reported = False
        report.seconds, report.rev = round(time.perf_counter() - t0, 3), rev
        return report

    def _seed_locked(
        self, index: Index, rev, progress, fault, rebuild: bool = False, look: unchanged.Look | None = None
    ) -> SeedReport:
        """A full seed; `look`: what the no-op check saw before it (seed/unchanged.py), kept with this seed's
        report as a no-op, so the next seed that sees the same answers without reading."""
        report, read = self._seed_read(index, rev, progress, fault, rebuild, look.status if look else None)
        if look is not None:
            kept = {k: v for k, v in asdict(report).items() if k not in ("seconds", "floor")}
            unchanged.remember(self.wsdir, self.workspace.repo_root, look, index, kept, read)
        return report

    def _seed_read(
        self, index: Index, rev, progress, fault, rebuild: bool = False, status: bytes | None = None
    ) -> tuple[SeedReport, dict[str, str]]:
        """(the report, the digest of every file read: path -> `unchanged.content()`). `status`: the
        worktree's `git status` when the no-op check already read it (read once: dirty paths and drift)."""
        root, settings, cat = self.workspace.repo_root, self.settings, index.catalog
        stamp = "" if rev else fingerprint(root)  # before reading: a change while seeding refreshes again
        ignored: list[dict] = []
        if rev:
            files, read_issues = sources.read_rev(root, rev, settings, ignored)
            commit: str | None = rev
            dirty_set: set[str] = set()
            taken = None
        else:
            commit = revisions.head_commit(root)
            taken = stale.take(root, settings)  # before reading: an edit while seeding shows at the next read
            files, read_issues = sources.read_worktree(root, settings, ignored)
            status = drift_git.status(root) if status is None else status
            dirty_set = sources.dirty_paths(root, settings, status) if commit else {f.path for f in files}
        previous = cat.records()
        parse_key = options_key(settings)
        # a rebuild, or a parser or reading setting that changed since the stored parses were made, re-reads
        # and re-chunks every file (vectors of unchanged text are still reused unless rebuilding)
        reparse = rebuild or cat.get_meta("parse_options") != parse_key
        k = read_knowledge(files, _with_stored_parses(cat, files, previous), settings, ignored, reuse=not reparse)
        got, resolution = k.collected, k.resolution
        salvaged = self._recovery_notes(index, read_issues)
        issues, skipped, failed = read_issues + k.issues, got.skipped, got.failed
        issues += [r.issue() for r in settings.refused]  # e.g. a chroma_url the user has not approved
        for i in read_issues:
            failed.setdefault(i.path, i.render())
        view_row = cat.get_view() or {}
        # history that grew under the stored commits (an unshallowed clone): every file's last commit again
        regrown = (view_row.get("drift_key") or "").partition(":shallow=")[2] != drift_git.shallow_marker(root)
        commits = self._commits(
            "" if regrown or reparse else view_row.get("commits_at") or "",
            root,
            commit,
            previous,
            {r.path for r in resolution.records.values()} - dirty_set,
        )
        for i in resolution.issues:
            if i.severity == "error":
                failed.setdefault(i.path, i.render())
        desired: dict[str, RecordRow] = {}
        for rid, rec in resolution.records.items():
            desired[rid] = _file_row(rec, resolution.effective[rid], commits.get(rec.path), rec.path in dirty_set)
        # nothing already indexed is lost: a file that now fails keeps its last good record, flagged
        desired_paths = {r.path for r in desired.values()}
        for prev in previous.values():
            if prev.origin != "file" or prev.id in desired:
                continue
            if prev.path in failed and prev.path not in desired_paths:
                desired[prev.id] = RecordRow(**{**prev.__dict__, "error": failed[prev.path]})
        for cand in [*cat.shared_records().values(), *salvaged]:  # candidates live in the store; seeding keeps them
            desired.setdefault(cand.id, cand)
        mark_promotions(desired)  # a committed record file claiming a candidate promotes it, in this view
        # a re-read plans against no stored chunks (its write clears them first) and re-chunks everything
        known = {} if reparse else cat.version_chunks({(rid, r.content_hash) for rid, r in desired.items()})
        plan, counts = plan_changes(
            desired,
            previous,
            known,
            index.vectors.ids(),
            self.chunker,
            stored_chunks=set() if reparse else cat.stored_chunk_ids(),
        )
        plan.catalog.rebuild = reparse
        fetched = take_fetched(index.content, plan)  # a server may hold them already: another store embedded them
        counts.fetched_chunks, counts.embedded_chunks = plan.fetched, len(plan.embed) - plan.fetched
        try:
            vectors = join(fetched, self._embed([c.text for c, _ in plan.embed[plan.fetched :]], progress))
        except Cut as cut:  # Ctrl-C while embedding: keep what is whole, say so (SeedInterrupted)
            raise keep_whole(index, plan, counts, join(fetched, cut.vectors), bool(previous)) from None
        plan.catalog.view = {
            "kind": "at" if rev else "worktree",
            "root": str(root.resolve()),
            "rev": rev,
            "commit_sha": commit,
            "dirty": int(bool(dirty_set)),
            "fingerprint": stamp,
            "commits_at": commit or "",
        }
        key, plan.catalog.drift = view_drift(  # a rebuild means rebuild: no stored drift is kept or extended
            root,
            commit,
            not rev,
            desired,
            "" if reparse else view_row.get("drift_key") or "",
            status,
            stored=None if reparse else cat.drift,
        )
        plan.catalog.view["drift_key"] = key
        plan.catalog.drop_views = stale_views(cat.views(), settings.at_views, cat.view)
        plan.catalog.meta["parse_options"] = parse_key
        if not rev:  # the workspace summary (`jgm workspaces`) follows the last worktree seed
            plan.catalog.meta.update(
                {
                    "last_seeded_commit": commit or "",
                    "dirty": json.dumps(bool(dirty_set)),
                    "last_seed_at": str(time.time()),
                    "settings_source": settings.source or "",
                    "global": "true" if settings.global_workspace else "false",
                }
            )
        gen = apply_plan(index, plan, vectors, fault)
        read = _digests(files)
        if taken is not None and cat.view:  # what a read compares the record files with (seed/stale.py)
            stale.remember(self.wsdir, cat.view, taken, read)
        counts.deleted_vectors += len(plan.catalog.dead_chunks)
        errors = [i.to_dict() for i in issues if i.severity == "error"]
        warnings = [i.to_dict() for i in issues if i.severity != "error"]
        report = SeedReport(
            **asdict(counts),
            workspace=self.workspace.id,
            commit=commit,
            dirty=bool(dirty_set),
            rev=rev,
            errors=errors,
            warnings=warnings,
            skipped=skipped + ignored,
            inventory=k.inventory,
            records=len(desired),
            chunks=len(cat.chunk_ids()),
            generation=gen,
            view=cat.view,
            recovered_from=str(index.recovered_from) if index.recovered_from else None,
        )
        return report, read

    @staticmethod
    def _recovery_notes(index: Index, issues: list[Issue]) -> list[RecordRow]:
        """Warnings for what this open moved aside; the candidates salvaged from a corrupt catalog."""
        salvaged: list[RecordRow] = []
        if index.recovered_from:
            salvaged, problem = salvage_candidates(index.recovered_from)
            lost = f"; some could not be read ({problem}) and stay only in that file" if problem else ""
            issues.append(
                Issue(
                    str(index.recovered_from),
                    f"the catalog {index.catalog.path} was corrupt: it was moved aside to this file and rebuilt "
                    f"from the record files (vectors reused); {len(salvaged)} candidates were carried over{lost}",
                    "nothing to do; receipts that lived only in it stay in the moved file",
                    severity="warning",
                )
            )
        if index.chroma_moved:
            issues.append(
                Issue(
                    str(index.chroma_moved),
                    "the Chroma directory was corrupt: it was moved aside to this folder and every chunk the "
                    "catalog lists (candidates included) was embedded again",
                    "nothing to do; delete the moved folder once you no longer need it",
                    severity="warning",
                )
            )
        return salvaged

    def _commits(
        self, since: str, root: Path, commit: str | None, previous: dict[str, RecordRow], committed_paths: set[str]
    ) -> dict[str, str]:
        """path -> last commit; incremental from the commit this view was last built at, full when a
        committed path is unknown or `since` is empty (a rebuild, a history that grew)."""
        if not commit:
            return {}
        if not since:
            return listing.last_commits(root, commit, self.settings.roots)
        known = {r.path: r.commit_sha for r in previous.values() if r.origin == "file" and r.commit_sha}
        if since and known and since != commit and revisions.is_ancestor(root, since, commit):
            known.update(listing.last_commits(root, commit, self.settings.roots, since=since))
        elif not (since == commit and known):
            return listing.last_commits(root, commit, self.settings.roots)
        if committed_paths - set(known):
            known.update(listing.last_commits(root, commit, self.settings.roots))
        return known

    def _embed(self, texts: list[str], progress):
        import numpy as np

        if not texts:
            return None
        out = []
        step = 256
        try:
            for i in range(0, len(texts), step):
                out.append(self.embedder.embed_passages(texts[i : i + step]))
                if progress:
                    progress(min(i + step, len(texts)), len(texts))
        except KeyboardInterrupt:
            raise Cut(np.concatenate(out) if out else None) from None
        return np.concatenate(out)
