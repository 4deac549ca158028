"""`jgm doctor`: prove that catalog, Chroma and the record files agree, and repair them when they do not.

Why a separate check: the write path is ordered so a crash leaves at worst orphan or missing vectors that
the next seed reconciles, but "trust me" is not evidence. The doctor reads all three sides and names every
disagreement. Repair never writes on its own terms: it runs the normal seed (which reconciles records,
chunks and vectors) and sends what a seed cannot see (vectors with wrong metadata, chunks of no record,
leftover orphans) through the one write path, `index.writer.apply_plan`, under the exclusive lock.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..base.store import workspace_dir, workspace_lock
from ..config import Settings, load_settings
from ..embedding.onnx_embedder import ModelError
from ..embedding.registry import locate
from ..embedding.specs import SHIPPED, identity_hash
from ..git.workspace import Workspace, find_workspace
from ..index.catalog import CatalogChanges
from ..index.failures import chroma_failures
from ..index.handle import active_collection, collection_name, location_for, vector_identity
from ..index.migrations import CatalogNeedsMigration, CatalogTooNew
from ..index.plan import chunk_meta
from ..index.recovery import CatalogCorrupt, ChromaUnavailable, is_corruption, open_catalog
from ..index.vectors import leased_client, reset_clients
from ..index.views import worktree_view
from ..index.writer import WritePlan, apply_plan
from ..recall.calibrate import calibrating_seeder
from ..recall.floors import floor_for, floor_identity
from ..recall.ranking import DEFAULT_STATUSES
from ..records.language import needs_multilingual
from ..records.row import RecordRow
from ..seed import model_choice
from ..seed.reading import read_knowledge
from ..seed.sources import read_worktree

SHOWN_IDS = 20  # ids listed per problem; the count is always exact


@dataclass
class Problem:
    check: str  # a stable code, e.g. "orphan-vectors"
    message: str
    fix: str
    ids: list[str] = field(default_factory=list)
    path: str | None = None
    line: int | None = None

    def render(self) -> str:
        where = f"{self.path}{':' + str(self.line) if self.line else ''}: " if self.path else ""
        shown = ", ".join(self.ids[:SHOWN_IDS]) + (
            f" … (+{len(self.ids) - SHOWN_IDS})" if len(self.ids) > SHOWN_IDS else ""
        )
        return f"{where}{self.check}: {self.message}{f' [{shown}]' if self.ids and not self.path else ''} — fix: {self.fix}"

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Diagnosis:
    workspace: str
    problems: list[Problem]
    counts: dict
    identity_mismatch: bool = False
    model: dict = field(default_factory=dict)  # the workspace's model, who chose it, and advice on its languages
    floor: dict = field(default_factory=dict)  # the floor in force and where it came from (floors.in_force)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict:
        return {
            "workspace": self.workspace,
            "ok": self.ok,
            "counts": self.counts,
            "model": self.model,
            "floor": self.floor,
            "problems": [p.to_dict() for p in self.problems],
        }


REPAIR = "run `jgm doctor --repair` (or `jgm seed`)"


def _chroma_state(location: str, name: str) -> tuple[dict | None, dict[str, dict] | None]:
    """(collection metadata, {chunk id: chunk metadata}) or (None, None) when there is no collection.
    Raises ChromaUnavailable when Chroma itself cannot be opened (a missing collection is not that)."""
    if "://" not in location and not Path(location, "chroma.sqlite3").exists():
        return None, None  # nothing was ever written there; opening it would create it
    with leased_client(location) as client:
        try:
            col = client.get_collection(name, embedding_function=None)
        except chroma_failures() as e:  # chroma raises various not-found errors across versions
            if "not" in str(e).lower() and ("exist" in str(e).lower() or "found" in str(e).lower()):
                return None, None
            raise ChromaUnavailable(location, e) from e
        metas: dict[str, dict] = {}
        offset, page = 0, 5000
        while True:
            got = col.get(include=["metadatas"], limit=page, offset=offset)
            metas.update({i: (m or {}) for i, m in zip(got["ids"], got["metadatas"])})
            if len(got["ids"]) < page:
                break
            offset += page
        return dict(col.metadata or {}), metas


def _file_problems(
    ws: Workspace, settings: Settings, records: dict[str, RecordRow]
) -> tuple[list[Problem], int, dict[str, int]]:
    """Records in the catalog against the record files of the working tree (what `jgm seed` would index);
    also the languages those files are written in (model_report), from the same read."""
    files, read_issues = read_worktree(ws.repo_root, settings)
    k = read_knowledge(files, records, settings)  # unchanged bytes reuse the catalog's parse
    failed, resolution = k.collected.failed, k.resolution
    failed_paths = set(failed) | {i.path for i in read_issues} | set(resolution.rejected_paths)
    problems: list[Problem] = []
    for rid, rec in sorted(resolution.records.items()):
        row = records.get(rid)
        if row is None:
            problems.append(
                Problem("record-not-indexed", f"record {rid!r} is not in the catalog", REPAIR, [rid], rec.path)
            )
        elif row.origin != "file":
            continue  # a candidate promoted by this file: the seed's promotion logic owns it
        elif row.content_hash != rec.content_hash or row.path != rec.path or row.error:
            problems.append(
                Problem(
                    "record-stale",
                    f"the catalog holds another version of {rid!r} "
                    f"(catalog {row.path} {row.content_hash[:12]}, file {rec.content_hash[:12]})",
                    REPAIR,
                    [rid],
                    rec.path,
                )
            )
        elif row.effective_status != resolution.effective[rid]:
            problems.append(
                Problem(
                    "status-stale",
                    f"{rid!r} is indexed as {row.effective_status!r} but resolves to {resolution.effective[rid]!r}",
                    REPAIR,
                    [rid],
                    rec.path,
                )
            )
    for rid, row in sorted(records.items()):
        if row.origin != "file" or rid in resolution.records:
            continue
        if row.error and row.path in failed_paths:
            continue  # the file turned bad: the last good record is kept on purpose, flagged with its error
        problems.append(
            Problem(
                "record-without-file",
                f"record {rid!r} is indexed but no valid file defines it (was {row.path})",
                REPAIR,
                [rid],
            )
        )
    return problems, len(files), model_choice.file_languages(files)


def diagnose(
    repo: Path | str | None = None,
    settings: Settings | None = None,
    store_root: Path | None = None,
    workspace: Workspace | None = None,
) -> Diagnosis:
    """Read catalog, Chroma and files under the shared lock and list every disagreement, for the view of
    the worktree `repo` (what recall there answers from) plus the store-wide vector/chunk invariants."""
    ws = workspace or find_workspace(repo)
    settings = settings or load_settings(ws.repo_root)
    wsdir = workspace_dir(ws.id, store_root, create=False)  # a diagnosis leaves the store as it found it
    with workspace_lock(wsdir, exclusive=False):
        reset_clients(location_for(wsdir, settings.chroma_url))  # see what other processes wrote
        never = not (wsdir / "catalog.sqlite").exists()
        zero = dict.fromkeys(("records", "chunks", "vectors", "files"), 0)
        records, chunks, stored, unused, ident = {}, {}, set(), [], None  # never seeded: nothing to open
        drift: dict = {}
        collection = collection_name(ws.id)
        try:  # a reader: opening creates, migrates and writes nothing
            cat = None if never else open_catalog(wsdir / "catalog.sqlite", view=worktree_view(ws.repo_root))[0]
            if cat is not None:
                try:
                    records = cat.records()
                    chunks = cat.chunks()
                    stored = cat.stored_chunk_ids()
                    unused = cat.unreferenced_chunks()
                    ident = cat.get_meta("identity")
                    drift = cat.drift()
                    collection = active_collection(ws.id, cat)
                except sqlite3.DatabaseError as e:  # damage the open's checks did not reach: named the same way
                    if not is_corruption(e):
                        raise
                    raise CatalogCorrupt(cat.path, e) from None
                finally:
                    cat.close()
        except CatalogCorrupt as e:
            return Diagnosis(
                ws.id,
                [
                    Problem(
                        "catalog-corrupt",
                        f"the catalog is corrupt ({e.cause})",
                        "run `jgm doctor --repair` (or `jgm seed`): it moves the file aside and "
                        "rebuilds the catalog from the record files, reusing the vectors",
                        path=str(e.path),
                    )
                ],
                zero,
            )
        except (CatalogNeedsMigration, CatalogTooNew) as e:
            fix = (
                "run `jgm seed` (or `jgm doctor --repair`)"
                if isinstance(e, CatalogNeedsMigration)
                else "upgrade jupiter-git-memory, or use another store (`--home DIR`)"
            )
            return Diagnosis(ws.id, [Problem(e.code.split("/")[-1], e.message, fix, path=e.details.get("path"))], zero)
        try:
            col_meta, metas = _chroma_state(location_for(wsdir, settings.chroma_url), collection)
        except ChromaUnavailable as e:
            return Diagnosis(
                ws.id,
                [Problem("chroma-unavailable", e.reason, e.fix, path=e.location)],
                {"records": len(records), "chunks": len(chunks), "vectors": 0, "files": 0},
            )
    problems: list[Problem] = []
    if never:
        problems.append(Problem("never-seeded", f"workspace {ws.id} has no index yet", "run `jgm seed`"))
    identity_mismatch = False
    if col_meta is not None and ident:
        cat_hash = identity_hash(json.loads(ident))
        if col_meta.get("jgm_identity") != cat_hash:
            identity_mismatch = True
            problems.append(
                Problem(
                    "identity-mismatch",
                    f"the catalog's vector identity {cat_hash} differs from "
                    f"the collection's {col_meta.get('jgm_identity')}",
                    "run `jgm doctor --repair` (re-embeds everything) or `jgm seed --rebuild`",
                )
            )
    elif col_meta is None and stored:
        problems.append(
            Problem(
                "collection-missing",
                f"the Chroma collection is missing but the catalog lists {len(stored)} chunks",
                REPAIR,
            )
        )
    vector_ids = set(metas or {})
    orphans = sorted(vector_ids - stored)
    if orphans:
        problems.append(
            Problem("orphan-vectors", f"{len(orphans)} vectors in Chroma have no catalog chunk", REPAIR, orphans)
        )
    missing = sorted(cid for cid in chunks if cid not in vector_ids)
    if missing and col_meta is not None:
        problems.append(
            Problem("missing-vectors", f"{len(missing)} catalog chunks have no vector in Chroma", REPAIR, missing)
        )
    if unused:
        problems.append(
            Problem("chunks-without-record", f"{len(unused)} catalog chunks belong to no record", REPAIR, unused)
        )
    with_chunks = {c.record_id for c in chunks.values()}
    bare = sorted(rid for rid in records if rid not in with_chunks)
    if bare:
        problems.append(Problem("records-without-chunks", f"{len(bare)} records have no chunks", REPAIR, bare))
    wrong = sorted(cid for cid, c in chunks.items() if cid in vector_ids and _meta_disagrees(metas[cid], c.record_id))
    if wrong:
        problems.append(
            Problem(
                "metadata-mismatch",
                f"{len(wrong)} vectors carry a record_id that disagrees with the catalog",
                REPAIR,
                wrong,
            )
        )
    file_problems, n_files, languages_now = _file_problems(ws, settings, records)
    problems += file_problems
    counts = {"records": len(records), "chunks": len(chunks), "vectors": len(vector_ids), "files": n_files}
    # evidence drift (docs/drift.md) is no inconsistency of the index: counted, for `jgm drift` to list
    counts["drifted"] = sum(1 for d in drift.values() if d["state"] == "drifted")
    counts["evidence_missing"] = sum(1 for d in drift.values() if d["state"] == "missing")
    model = model_report(ws, settings, store_root, languages_now)
    recallable = sum(1 for r in records.values() if r.effective_status in DEFAULT_STATUSES)
    return Diagnosis(
        ws.id, problems, counts, identity_mismatch, model, floor_report(ws, settings, store_root, recallable)
    )


def floor_report(ws: Workspace, settings: Settings, store_root: Path | None, records: int) -> dict:
    """The floor an English question is held to now, in the words the seed and recall use; nothing when the
    workspace's model cannot be located (the model report says why)."""
    try:
        spec = locate(model_choice.resolve(settings, ws, store_root).model)[0]
    except ModelError:
        return {}
    ident = floor_identity(vector_identity(spec), spec)
    info = floor_for(ws.id, ident, spec, settings.floor, store_root, "en", settings.auto_calibrate, records)
    return {"floor": info.value, "source": info.source, "line": info.provenance["in_force"]}


def model_report(ws: Workspace, settings: Settings, store_root: Path | None, now: dict[str, int]) -> dict:
    """The workspace's model and why, the languages its records are written in now, and advice when the
    model cannot read them (the choice is made once, at the first seed; a corpus can change language)."""
    choice = model_choice.resolve(settings, ws, store_root)
    out = dict(choice.to_dict(), name=choice.model, languages_now=now, advice=None)
    spec = SHIPPED.get(choice.model)
    if spec is not None and needs_multilingual(now) and not set(now) - {"en"} <= set(spec.languages):
        other = ", ".join(f"{n} {lang}" for lang, n in now.items() if lang != "en")
        out["advice"] = (
            f"{other} records, and {choice.model} reads English only: `jgm model use {model_choice.MULTILINGUAL}` "
            f"re-embeds them with the multilingual model"
        )
    return out


def _meta_disagrees(meta: dict, record_id: str) -> bool:
    return meta.get("record_id") != record_id


def repair(repo: Path | str | None = None, store_root: Path | None = None, lock_timeout: float | None = None) -> dict:
    """Seed (rebuilding when the identities disagree), then fix what a seed does not look at.
    Returns what was done; call `diagnose` afterwards for the verdict."""

    before = diagnose(repo, store_root=store_root)
    seeder = calibrating_seeder(repo, store_root=store_root)
    # read everything: the damage a repair is for may be what no look at the files can see (seed/unchanged.py)
    report = seeder.seed(rebuild=before.identity_mismatch, lock_timeout=lock_timeout, reread=True)
    done = {
        "seed": report.to_json()["counts"],
        "rebuilt": before.identity_mismatch,
        "catalog_moved_aside": report.recovered_from,
        "deleted_orphan_vectors": 0,
        "metadata_fixed": 0,
        "deleted_dangling_chunks": 0,
    }
    with workspace_lock(seeder.wsdir, exclusive=True, timeout=lock_timeout):
        reset_clients(location_for(seeder.wsdir, seeder.settings.chroma_url))
        index = seeder.open()
        try:
            records, chunks = index.catalog.records(), index.catalog.chunks()
            dangling = index.catalog.unreferenced_chunks()
            _, metas = _chroma_state(index.vectors.location, index.vectors.name)
            metas = metas or {}
            plan = WritePlan(catalog=CatalogChanges(delete_chunks=dangling))
            plan.delete_vectors = sorted(set(metas) - index.catalog.stored_chunk_ids())
            for cid, c in sorted(chunks.items()):
                if cid in metas and c.record_id in records and _meta_disagrees(metas[cid], c.record_id):
                    plan.update_meta.append((cid, chunk_meta(records[c.record_id], c.ordinal)))
            if not plan.empty():
                apply_plan(index, plan, None)
            done.update(
                deleted_orphan_vectors=len(plan.delete_vectors),
                metadata_fixed=len(plan.update_meta),
                deleted_dangling_chunks=len(dangling),
            )
        finally:
            index.close()
    return done
