"""A team shares one `chroma run` server (issue 39): two stores ("clones") of one repository against it.

Each store is its own JGM_HOME (its own catalog and collections); the server is real, the model is real.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from chroma_helpers import server_collections, start_chroma, stop

from jupiter_git_memory.index.handle import collection_name, store_owner
from jupiter_git_memory.index.shared import CONTENT_PREFIX
from jupiter_git_memory.index.vectors import reset_clients
from jupiter_git_memory.maintenance.doctor import diagnose
from jupiter_git_memory.recall.service import Recaller
from jupiter_git_memory.seed.seeder import Seeder

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

TESTS = Path(__file__).resolve().parent
REMOTE = "https://example.com/team/decisions.git"
TOPICS = [
    ("queue", "Jobs wait in a Redis queue", "Background jobs are pushed to Redis and taken by the workers."),
    ("python", "CI runs Python 3.11 and 3.12", "The CI matrix covers Python 3.11 and 3.12 on Linux."),
    ("vectors", "Store vectors in Chroma", "Embeddings are persisted in a Chroma collection per workspace."),
    ("auth", "Sessions expire after an hour", "A login session cookie lives for sixty minutes, then expires."),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    url, proc = start_chroma(tmp_path_factory.mktemp("team-chroma"))
    yield url
    stop(proc)


def _write_records(repo, extra: int = 0) -> None:
    for key, title, body in TOPICS:
        repo.record(f"DEC-{key.upper()}", title=title, body=body)
    for i in range(extra):  # bulk, so a rebuild writes its vectors in several slices
        repo.record(
            f"FACT-{i:03d}",
            kind="fact",
            status="verified",
            title=f"Service {i} owns table t{i}",
            body=f"The table t{i} is written only by service {i}; others read it through its API.",
        )
    repo.commit("records")
    repo.git("remote", "add", "origin", REMOTE)


def _clone(src, dest: Path):
    subprocess.run(["git", "clone", "-q", str(src.path), str(dest)], check=True, timeout=60)
    subprocess.run(["git", "-C", str(dest), "remote", "set-url", "origin", REMOTE], check=True, timeout=60)
    return dest


class Stores:
    """Two stores (JGM_HOME folders) on one machine, switched like two developers' environments."""

    def __init__(self, tmp: Path, monkeypatch, url: str):
        self.homes = {"a": tmp / "home-a", "b": tmp / "home-b"}
        self.mp = monkeypatch
        monkeypatch.setenv("JGM_CHROMA_URL", url)

    def use(self, name: str) -> None:
        self.mp.setenv("JGM_HOME", str(self.homes[name]))
        reset_clients()

    def seed_both(self, a: Path, b: Path) -> None:
        for name, root in (("a", a), ("b", b)):
            self.use(name)
            Seeder(root).seed()

    def env(self, name: str) -> dict[str, str]:
        return dict(os.environ, JGM_HOME=str(self.homes[name]))


@pytest.fixture
def two(tmp_path, monkeypatch, server, make_repo):
    repo = make_repo("clone-a")
    _write_records(repo, extra=40)
    clone_b = _clone(repo, tmp_path / "clone-b")
    return Stores(tmp_path, monkeypatch, server), repo.path, clone_b


def _recall(root: Path, q: str) -> list[tuple[str, float]]:
    res = Recaller(root).recall(q, k=3)
    return [(r["id"], round(r["score"], 4)) for r in res.results]


def test_a_second_store_embeds_nothing_the_server_holds(two, server, make_repo):
    stores, a, b = two
    stores.use("a")
    first = Seeder(a).seed()
    assert first.embedded_chunks == first.chunks > 40 and first.fetched_chunks == 0
    stores.use("b")
    second = Seeder(b).seed()
    assert second.chunks == first.chunks
    assert (second.embedded_chunks, second.fetched_chunks) == (0, first.chunks)
    assert _recall(b, "Where do background jobs wait?")[0][0] == "DEC-QUEUE"
    # each store recalls from a collection of its own; the vectors by content are there once
    ws = Seeder(b).workspace.id
    held = server_collections(server)
    owners = {store_owner(h, create=False) for h in stores.homes.values()}
    ours = [n for n in held for o in owners if n.startswith(collection_name(ws, o))]
    assert len(owners) == len(ours) == 2 and all(held[n] == first.chunks for n in ours), held
    content = [n for n in held if n.startswith(CONTENT_PREFIX)]
    assert len(content) == 1 and held[content[0]] >= first.chunks
    # another repository holding the same text embeds only what is new to the server
    other = make_repo("other-repo")
    other.record("DEC-Q2", title=TOPICS[0][1], body=TOPICS[0][2])
    other.record("DEC-NEW", title="Logs go to Loki", body="Every service ships its logs to Loki.")
    other.commit()
    third = Seeder(other.path).seed()
    assert (third.embedded_chunks, third.fetched_chunks) == (1, 1), third.to_json()["counts"]


def test_a_rebuild_in_one_store_leaves_the_others_recall_unchanged(two):
    stores, a, b = two
    stores.seed_both(a, b)
    before = _recall(b, "How long does a login session last?")
    assert before[0][0] == "DEC-AUTH"
    stores.use("a")
    rebuilt = Seeder(a).seed(rebuild=True)
    assert rebuilt.embedded_chunks == 0  # a rebuild of the same model fetches what the server holds
    assert diagnose(a).ok
    stores.use("b")
    assert _recall(b, "How long does a login session last?") == before
    assert diagnose(b).ok, diagnose(b).to_json()


def _rebuild_child(env: dict[str, str], root: Path, at: int = 0) -> subprocess.CompletedProcess:
    """`seed --rebuild` in its own process (tests/crash_child.py), SIGKILLed at event `at` (0: never)."""
    return subprocess.run(
        [sys.executable, str(TESTS / "crash_child.py"), str(root)],
        env=dict(env, JGM_CRASH_REBUILD="1", JGM_CRASH_AT=str(at)),
        capture_output=True,
        text=True,
        timeout=300,
    )


def _kill_point(env: dict[str, str], a: Path) -> int:
    """The event of a full rebuild to SIGKILL at: between two slices of vectors written into the new collection."""
    out = _rebuild_child(env, a)
    assert out.returncode == 0, out.stderr[-3000:]
    events = json.loads(out.stdout.strip().splitlines()[-1])["events"]
    upserts = [i for i, e in enumerate(events, 1) if e == "chroma-upsert"]
    assert len(upserts) >= 2, events
    return upserts[len(upserts) // 2]


def test_a_killed_rebuild_in_one_store_leaves_the_other_answering(two, server):
    stores, a, b = two
    stores.seed_both(a, b)
    before = _recall(b, "Which Python versions does CI test?")
    env = stores.env("a")
    at = _kill_point(env, a)
    killed = _rebuild_child(env, a, at)
    assert killed.returncode == -9, killed.stderr[-2000:]
    ws = Seeder(b).workspace.id

    def held(name: str) -> int:  # the store's collections of the workspace on the server
        base = collection_name(ws, store_owner(stores.homes[name], create=False))
        return len([n for n in server_collections(server) if n.startswith(base)])

    assert (held("a"), held("b")) == (2, 1)  # a's active one and the killed rebuild's leftover
    assert _recall(b, "Which Python versions does CI test?") == before  # store b never noticed
    stores.use("b")
    Seeder(b).seed()  # b's writer cleans only its own leftovers: a's stays for a
    assert (held("a"), held("b")) == (2, 1)
    stores.use("a")
    again = Seeder(a).seed()  # a's next seed drops a's leftover and answers
    assert again.embedded_chunks == 0 and diagnose(a).ok
    assert (held("a"), held("b")) == (1, 1)
    stores.use("b")
    assert _recall(b, "Which Python versions does CI test?") == before and diagnose(b).ok


def test_concurrent_seeds_from_two_stores_leave_both_consistent(two):
    stores, a, b = two
    outs: dict[str, subprocess.CompletedProcess] = {}

    def seed(name: str, root: Path) -> None:
        outs[name] = subprocess.run(
            [sys.executable, "-m", "jupiter_git_memory", "seed", "--repo", str(root), "--json"],
            env=stores.env(name),
            capture_output=True,
            text=True,
            timeout=600,
        )

    threads = [threading.Thread(target=seed, args=x) for x in (("a", a), ("b", b))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for name in ("a", "b"):
        assert outs[name].returncode == 0, outs[name].stderr[-3000:]
    counts = [json.loads(outs[n].stdout)["counts"] for n in ("a", "b")]
    total = counts[0]["embedded_chunks"] + counts[0]["fetched_chunks"]
    assert total > 40 and all(c["embedded_chunks"] + c["fetched_chunks"] == total for c in counts)
    for name, root in (("a", a), ("b", b)):
        stores.use(name)
        d = diagnose(root)
        assert d.ok, d.to_json()
        assert _recall(root, "Where do background jobs wait?")[0][0] == "DEC-QUEUE"
