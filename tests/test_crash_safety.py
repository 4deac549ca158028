"""kill -9 a real seeding process at many points; the next seed must leave catalog, Chroma and files
consistent (checked by the doctor and by reading both stores).

Kill points are deterministic events (see tests/crash_child.py): the first and last model call, every
slice of Chroma upserts / metadata updates / deletes, the writer's fault stages, inside the catalog
transaction and after its commit, for a cold seed (9 kills) and for an incremental one with edits,
deletions and status changes (12 kills), plus 3 kills after varied delays: 24 in all.
"""

from __future__ import annotations

import os
import shutil
import signal
import time

import pytest
from crash_child import Forks
from reliability_helpers import assert_consistent, jgm_json

from jupiter_git_memory.maintenance import doctor
from jupiter_git_memory.recall.service import Recaller
from jupiter_git_memory.seed.seeder import Seeder

pytestmark = [pytest.mark.slow, pytest.mark.e2e]
TOPICS = ["cache", "retry", "queue", "schema", "deploy", "token", "backup", "index"]


def body(i: int, variant: str = "") -> str:
    t = TOPICS[i % len(TOPICS)]
    return f"Record {i} explains how the {t} layer behaves {variant}. It was measured on staging."


def write_all(repo, n: int) -> dict[str, str]:
    # the post-seed floor calibration (its own atomic file write) would add probe embeddings to the event
    # census on the first run only (later runs keep that floor), so kill points would not line up
    repo.write("jgm.toml", 'roots = ["knowledge"]\nauto_calibrate = false\n')
    for i in range(n):
        repo.record(f"rec-{i:03d}", title=f"The {TOPICS[i % len(TOPICS)]} rule {i}", body=body(i))
    repo.commit("records")
    return {f"rec-{i:03d}": "accepted" for i in range(n)}


def edit(repo, n: int) -> set[str]:
    """Edit 20, delete 25 and deprecate 25 records (re-embeds, vector deletes, status changes in the view)."""
    for i in range(0, 20):
        repo.record(f"rec-{i:03d}", title=f"The {TOPICS[i % len(TOPICS)]} rule {i}", body=body(i, "after the fix"))
    for i in range(20, 45):
        (repo.path / f"knowledge/rec-{i:03d}.md").unlink()
    for i in range(45, 70):
        repo.record(f"rec-{i:03d}", status="deprecated", title=f"The {TOPICS[i % len(TOPICS)]} rule {i}", body=body(i))
    return {f"rec-{i:03d}" for i in range(n)} - {f"rec-{i:03d}" for i in range(20, 45)}


def unedit(repo) -> None:
    repo.git("checkout", "--", "knowledge")  # a temp repo of this test


@pytest.fixture
def forks(tmp_path):
    """The seeds to kill, each a fresh child forked from one process that imported everything once."""
    f = Forks(str(tmp_path))
    yield f
    f.close()


def child(forks: Forks, repo, crash_at: int = 0, delay: float | None = None) -> tuple[int, list[str], str]:
    rc, log = forks.run(str(repo.path), dict(os.environ, JGM_CRASH_AT=str(crash_at)), delay)
    events = [line.split()[2] for line in log.splitlines() if line.startswith("EVENT ")]
    return rc, events, log


def kill_points(events: list[str]) -> list[int]:
    """1-based events to kill at: every write event, and the first and last embedding batch (kills while
    only embedding are all alike: nothing is written yet)."""
    embeds = [i for i, e in enumerate(events, 1) if e == "embed-batch"]
    return sorted({i for i, e in enumerate(events, 1) if e != "embed-batch"} | {embeds[0], embeds[-1]})


def census(forks: Forks, repo) -> list[str]:
    """Run the seed to completion once (no kill) and return its events in order."""
    rc, events, log = child(forks, repo)
    assert rc == 0, log[-3000:]
    return events


def reseed_and_check(seeder: Seeder, expected: set[str], statuses: dict[str, str] | None = None) -> None:
    rep = seeder.seed(lock_timeout=60)  # a lock left by the killed process would time out here
    assert rep.errors == []
    snap = assert_consistent(seeder.workspace.repo_root, expected)
    for rid, st in (statuses or {}).items():
        assert snap["records"][rid].effective_status == st  # the status lives in the view; vectors carry the record id


def test_kill_9_during_cold_seed_at_every_event(make_repo, forks):
    repo = make_repo("cold")
    expected = set(write_all(repo, 50))
    seeder = Seeder(repo.path)
    events = census(forks, repo)
    assert {
        "embed-batch",
        "chroma-upsert",
        "after-add",
        "before-catalog",
        "catalog-in-transaction",
        "catalog-commit",
    } <= set(events)
    assert_consistent(repo.path, expected)
    points = kill_points(events)
    assert len(points) >= 8
    kills = 0
    for k in points:
        _reset_index(seeder)
        rc, seen, log = child(forks, repo, crash_at=k)
        assert rc == -signal.SIGKILL and len(seen) == k, log[-3000:]
        kills += 1
        d = doctor.diagnose(repo.path)
        if events[k - 1] in (
            "chroma-upsert",
            "after-add",
            "before-catalog",
            "catalog-in-transaction",
        ):  # vectors without catalog rows
            assert not d.ok and {p.check for p in d.problems} >= {"orphan-vectors", "record-not-indexed"}
        if k == len(events):  # killed after the commit: nothing is lost
            assert d.ok, [p.render() for p in d.problems]
        reseed_and_check(seeder, expected)
    assert kills == len(points)


def test_kill_9_during_incremental_seed_at_every_event(make_repo, forks):
    repo = make_repo("incr")
    n = 80
    write_all(repo, n)
    seeder = Seeder(repo.path)
    seeder.seed()
    expected = edit(repo, n)
    events = census(forks, repo)
    assert {"chroma-delete", "chroma-upsert", "catalog-in-transaction", "catalog-commit"} <= set(events)
    # vectors no view holds any more are deleted after the catalog commit: a kill there leaves orphans only
    assert events.index("catalog-commit") < len(events) - events[::-1].index("chroma-delete") - 1
    deprecated = {f"rec-{i:03d}": "deprecated" for i in range(45, 70)}
    reseed_and_check(seeder, expected, deprecated)
    points = kill_points(events)
    for k in points:
        unedit(repo)
        seeder.seed()
        edit(repo, n)
        rc, seen, log = child(forks, repo, crash_at=k)
        assert rc == -signal.SIGKILL and len(seen) == k, log[-3000:]
        if k == points[0]:  # a reader right after a crash answers (leftovers are skipped, never raised)
            res = Recaller(repo.path).recall("how does the cache layer behave", k=3)
            assert all(r["id"] in set(f"rec-{i:03d}" for i in range(n)) for r in res.results)
        reseed_and_check(seeder, expected, deprecated)
    assert len(points) >= 9


def test_kill_9_after_varied_delays_then_jgm_seed(make_repo, forks):
    repo = make_repo("delays")
    expected = set(write_all(repo, 50))
    t = time.perf_counter()
    census(forks, repo)
    full = time.perf_counter() - t
    for frac in (0.5, 0.75, 0.95):
        _reset_index(Seeder(repo.path))
        rc, _, log = child(forks, repo, delay=full * frac)
        assert rc in (0, -signal.SIGKILL), log[-3000:]
        code, rep = jgm_json("seed", cwd=repo.path)  # the real CLI, as a user would run it next
        assert code == 0 and rep["errors"] == [] and rep["records"] == 50
        assert_consistent(repo.path, expected)


def _reset_index(seeder: Seeder) -> None:
    """Start the next kill from an empty store for this workspace (so every kill hits a cold seed)."""
    from jupiter_git_memory.index.vectors import reset_clients

    reset_clients()
    shutil.rmtree(seeder.wsdir)
    seeder.wsdir.mkdir(parents=True)
