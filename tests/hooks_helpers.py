"""Helpers for the hook, watcher and one-writer tests: read the real index back, wait for async work."""

from __future__ import annotations

import hashlib
import json
import os
import queue
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from jupiter_git_memory.base.store import workspace_dir, workspace_lock
from jupiter_git_memory.config import load_settings
from jupiter_git_memory.embedding.registry import load_embedder
from jupiter_git_memory.git.workspace import find_workspace
from jupiter_git_memory.index.handle import open_index, vector_identity
from jupiter_git_memory.index.vectors import reset_clients
from jupiter_git_memory.records.parse import parse_record
from jupiter_git_memory.records.row import RecordRow
from jupiter_git_memory.seed.sources import read_worktree

JGM = [sys.executable, "-m", "jupiter_git_memory"]
DEADLINE = 120.0  # generous: two shared cores, model loads in every subprocess


@dataclass
class Snapshot:
    records: dict[str, RecordRow]  # catalog rows from files
    chunk_ids: set[str]  # catalog chunk ids
    chunk_records: dict[str, str]  # catalog chunk id -> record id
    chroma_ids: set[str]
    chroma_count: int
    searchable_ids: list[str]  # what an exhaustive HNSW query returns (catches a clobbered vector segment)
    chroma_records: dict[str, str]  # chroma id -> metadata record_id
    generation: int

    def paths(self) -> dict[str, str]:
        return {rid: r.path for rid, r in self.records.items()}


def snapshot(repo: Path) -> Snapshot:
    """Read the index from this process under the shared lock, through a fresh Chroma client."""
    ws = find_workspace(repo)
    embedder = load_embedder(load_settings(ws.repo_root).model)
    reset_clients()
    with workspace_lock(workspace_dir(ws.id), exclusive=False):
        index = open_index(ws, vector_identity(embedder.spec))
        try:
            cat = index.catalog
            chunks = cat.chunks()
            count = index.vectors.count()
            got = index.vectors.col.get(include=["metadatas"])
            searchable: list[str] = []
            if count:
                searchable = [i for i, _ in index.vectors.query(embedder.embed_query("knowledge"), count)]
            return Snapshot(
                cat.records(origin="file"),
                set(chunks),
                {c.id: c.record_id for c in chunks.values()},
                set(got["ids"]),
                count,
                searchable,
                {i: m["record_id"] for i, m in zip(got["ids"], got["metadatas"])},
                cat.generation(),
            )
        finally:
            index.close()
            reset_clients()


def small_hnsw_buffers(repo: Path) -> None:
    """Create the workspace's collection so Chroma persists its HNSW every few writes (defaults: ~1000).

    A writer whose Chroma client predates another process's write holds a stale HNSW in memory; when it
    persists, the other writer's vectors vanish from search (or the files are corrupted). With default
    buffers that needs ~1000 chunks; with these it shows within a test's few dozen."""
    import json

    from jupiter_git_memory.embedding.specs import identity_hash
    from jupiter_git_memory.index.handle import collection_name, location_for
    from jupiter_git_memory.index.vectors import _client

    ws = find_workspace(repo)
    identity = vector_identity(load_embedder(load_settings(ws.repo_root).model).spec)
    _client(location_for(workspace_dir(ws.id), None)).get_or_create_collection(
        collection_name(ws.id),
        embedding_function=None,
        metadata={
            "hnsw:space": "cosine",
            "hnsw:batch_size": 4,
            "hnsw:sync_threshold": 8,
            "jgm_identity": identity_hash(identity),
            "jgm_identity_json": json.dumps(identity, sort_keys=True),
        },
    )
    reset_clients()


def file_records(repo: Path) -> dict[str, tuple[str, str]]:
    """id -> (path, sha256 of bytes) for every valid record file in the working tree."""
    files, _ = read_worktree(repo, load_settings(repo))
    out = {}
    for f in files:
        parsed = parse_record(f.path, f.data)
        if parsed.record:
            out[parsed.record.id] = (f.path, hashlib.sha256(f.data).hexdigest())
    return out


def assert_index_matches_files(repo: Path) -> Snapshot:
    """The one-writer invariant: the index holds exactly the files' records, each record's chunks once."""
    snap = snapshot(repo)
    files = file_records(repo)
    assert set(snap.records) == set(files), (sorted(snap.records), sorted(files))
    for rid, (path, digest) in files.items():
        row = snap.records[rid]
        assert (row.path, row.content_hash, row.error) == (path, digest, None), rid
    assert snap.chunk_ids == snap.chroma_ids, snap.chunk_ids ^ snap.chroma_ids
    assert snap.chroma_count == len(snap.chunk_ids)
    assert sorted(snap.searchable_ids) == sorted(snap.chunk_ids), "vector segment lost or duplicated chunks"
    assert snap.chroma_records == snap.chunk_records
    assert set(snap.chunk_records.values()) == set(snap.records), "a record without chunks (or chunks without one)"
    return snap


def wait_for(predicate, timeout: float = DEADLINE, interval: float = 0.2, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


def wait_hook_jobs(repo: Path, timeout: float = DEADLINE) -> None:
    """Wait until no detached hook reseed of this repo's workspace is running."""
    from jupiter_git_memory.freshness.hook_run import running_jobs

    wsdir = workspace_dir(find_workspace(repo).id)
    wait_for(lambda: not running_jobs(wsdir), timeout, what="hook reseeds to finish")


def last_hook_run(repo: Path) -> dict | None:
    p = workspace_dir(find_workspace(repo).id) / "hook-last-run.json"
    return json.loads(p.read_text()) if p.is_file() else None


def next_reseed_with(seeds, path: str):
    """The next Reseed (from a Watcher's `on_reseed` queue) whose paths include `path`; none may fail."""
    while True:
        r = seeds.get(timeout=DEADLINE)
        assert r.error is None, r.error
        if path in r.paths:
            return r


def atomic_write(path: Path, text: str) -> None:
    """What editors do on save: write a temp file next to it, then rename it over the target."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.swp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


class WatchProcess:
    """`jgm watch --json` as a real subprocess; its JSON lines are collected by a reader thread."""

    def __init__(self, repo: Path, debounce: float = 0.2):
        self.proc = subprocess.Popen(
            [*JGM, "watch", "--json", "--repo", str(repo), "--debounce", str(debounce)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.events: list[dict] = []
        self._q: queue.Queue = queue.Queue()
        self._stderr: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        threading.Thread(target=lambda: self._stderr.extend(self.proc.stderr), daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            event = json.loads(line)
            self.events.append(event)
            self._q.put(event)

    @property
    def stderr(self) -> str:
        return "".join(self._stderr)

    def next_event(self, predicate, timeout: float = DEADLINE) -> dict:
        """The next event (after those already consumed) satisfying `predicate`."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or self.proc.poll() is not None and self._q.empty():
                raise AssertionError(f"no matching watch event; got {self.events}; stderr: {self.stderr}")
            try:
                event = self._q.get(timeout=min(left, 1.0))
            except queue.Empty:
                continue
            if predicate(event):
                return event

    def stop(self, sig, timeout: float = DEADLINE) -> int:
        self.proc.send_signal(sig)
        code = self.proc.wait(timeout)
        self._reader.join(10)
        return code

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
