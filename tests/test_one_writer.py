"""One writer: hook-triggered seeds, a running `jgm watch` and several `jgm seed` processes all write
one workspace's local Chroma while files keep changing; afterwards the index matches the files exactly.

Every writer is a real process. The exclusive workspace lock serialises them, and each seed reopens
Chroma under the lock (a client cached from before another process wrote would clobber its vectors,
which the exhaustive HNSW query in `assert_index_matches_files` would catch).

The HTTP API server (`jgm serve`, a real subprocess) takes part too: a thread posts to its seed endpoint
and recalls through it a bounded number of times while everything else writes. Further writers can be
added to `EXTRA_WRITERS`: each is called as `writer(repo_path, done_event, errors_list)` in its own thread.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import threading
import time

import pytest
from api_helpers import Server, workspace_id
from conftest import record_text
from hooks_helpers import (
    JGM,
    WatchProcess,
    assert_index_matches_files,
    atomic_write,
    last_hook_run,
    small_hnsw_buffers,
    wait_hook_jobs,
)

from jupiter_git_memory.base.store import log_path
from jupiter_git_memory.freshness import githooks
from jupiter_git_memory.seed.seeder import Seeder

pytestmark = [pytest.mark.e2e, pytest.mark.slow]  # slow: scheduled first (conftest.py)

EXTRA_WRITERS: list = []
CLI_SEEDERS, SEEDS_EACH, STEPS = 2, 2, 14
API_SEEDS = 4


def api_writer(server: Server, ws: str, done: threading.Event, errors: list, runs: list) -> None:
    """Seed and recall through the running API server, a bounded number of times."""
    with server.client() as c:
        for i in range(API_SEEDS):
            r = c.post(f"/v1/workspaces/{ws}/seed", json={})
            runs.append(r.status_code)
            if r.status_code != 200:
                errors.append(f"api seed {i}: {r.status_code} {r.text[:300]}")
            q = c.post(f"/v1/workspaces/{ws}/recall", json={"query": "where does the service keep its state?"})
            if q.status_code != 200:
                errors.append(f"api recall {i}: {q.status_code} {q.text[:300]}")
            if done.is_set():
                break
            time.sleep(0.2)


def body(n: int, words: int) -> str:
    """Long enough for several chunks when `words` is large, so partial writes would show."""
    return " ".join(
        f"Paragraph {n}: the service keeps its state in store {n % 5} and retries {i} times." for i in range(words)
    )


def git_ok(repo, *args) -> None:
    p = repo.git(*args, check=False)
    assert p.returncode == 0, f"git {' '.join(args)}: {p.stderr}"


def test_hooks_watcher_api_and_cli_seeds_write_one_index_safely(repo, monkeypatch, jgm_home):
    monkeypatch.delenv("JGM_HOOK_SYNC", raising=False)  # hooks reseed detached, overlapping the rest
    for i in range(10):
        repo.record(
            f"r{i}",
            kind="decision" if i % 2 else "fact",
            status="accepted" if i % 2 else "verified",
            title=f"Record {i}",
            body=body(i, 3 + (i % 4) * 12),
        )
    repo.commit("start")
    git_ok(repo, "checkout", "-q", "-b", "alt")
    repo.record("r1", title="Record 1", body=body(101, 30))
    repo.record("alt1", title="Only on alt", body=body(7, 5))
    os.remove(repo.path / "knowledge/r2.md")
    repo.commit("alt")
    git_ok(repo, "checkout", "-q", "main")
    githooks.install(repo.path)
    small_hnsw_buffers(repo.path)
    k = repo.path / "knowledge"

    watcher = WatchProcess(repo.path, debounce=0.1)
    server = Server([repo.path], jgm_home)
    api_runs: list[int] = []
    errors: list[str] = []
    cli_runs: list[subprocess.CompletedProcess] = []
    done = threading.Event()
    try:
        watcher.next_event(lambda e: e["event"] == "seed" and e["trigger"] == "initial")

        def cli_seeder() -> None:
            for _ in range(SEEDS_EACH):
                cli_runs.append(
                    subprocess.run(
                        [*JGM, "seed", "--json", "--repo", str(repo.path)], capture_output=True, text=True, timeout=600
                    )
                )

        rng = random.Random(4)
        branch = ["main"]

        def mutate(step: int) -> None:
            op = step % 7
            if op == 0:
                atomic_write(k / f"n{step}.md", record_text(f"n{step}", title=f"New {step}", body=body(step, 4)))
            elif op == 1:
                victim = rng.choice(sorted(p for p in k.glob("*.md")))
                rid = victim.stem
                atomic_write(victim, record_text(rid, title=f"Changed {rid}", body=body(step, rng.randint(2, 40))))
            elif op == 2 or op == 5:  # commit everything, switch branch: post-checkout reseeds in the background
                git_ok(repo, "add", "-A")
                git_ok(repo, "commit", "-q", "--allow-empty", "-m", f"step {step}")
                branch[0] = "alt" if branch[0] == "main" else "main"
                git_ok(repo, "checkout", "-q", branch[0])
            elif op == 3:
                files = sorted(k.glob("*.md"))
                if len(files) > 3:
                    os.remove(files[rng.randrange(len(files))])
            elif op == 4:  # amend: post-rewrite
                atomic_write(k / f"a{step}.md", record_text(f"a{step}", title=f"Amended {step}", body=body(step, 6)))
                git_ok(repo, "add", "-A")
                git_ok(repo, "commit", "-q", "--amend", "--no-edit")
            else:  # a move into a new folder
                files = sorted(k.glob("*.md"))
                (k / f"moved{step}").mkdir()
                os.rename(files[0], k / f"moved{step}" / files[0].name)

        threads = [threading.Thread(target=cli_seeder) for _ in range(CLI_SEEDERS)]
        threads += [threading.Thread(target=w, args=(repo.path, done, errors)) for w in EXTRA_WRITERS]
        threads.append(
            threading.Thread(target=api_writer, args=(server, workspace_id(repo.path), done, errors, api_runs))
        )
        for t in threads:
            t.start()
        for step in range(STEPS):
            mutate(step)
            time.sleep(rng.uniform(0.0, 0.4))
        done.set()
        atomic_write(k / "final.md", record_text("final", title="Last change", body="Written after everything else."))
        # the watcher's seed for this batch reads the files after the last change; later seeds read them too
        watcher.next_event(lambda e: e["event"] == "seed" and "knowledge/final.md" in e["paths"])
        for t in threads:
            t.join(300)
        wait_hook_jobs(repo.path)

        snap = assert_index_matches_files(repo.path)
        assert "final" in snap.records and len(snap.records) >= 10

        assert errors == []
        assert len(cli_runs) == CLI_SEEDERS * SEEDS_EACH
        assert api_runs and set(api_runs) == {200}
        for run in cli_runs:
            assert run.returncode == 0, run.stderr
            assert json.loads(run.stdout)["errors"] == []
            assert "Traceback" not in run.stderr
        seeds = [e for e in watcher.events if e["event"] == "seed"]
        assert all(e["error"] is None and e["errors"] == [] for e in seeds), seeds
        last = last_hook_run(repo.path)
        # the test's commits fire reference-transaction (a plain commit reseeds through it) and its checkouts
        # post-checkout: a checkout's job that finds the commit's job still waiting for the lock leaves the work
        # to it (hook_run.reseed_job's coalescing), so either can be the last to record a run
        assert last and last["ok"] and last["hook"] in ("post-checkout", "post-rewrite", "reference-transaction")
        logged = log_path().read_text() if log_path().exists() else ""
        assert "Traceback" not in logged and "could not reindex" not in logged, logged
        assert watcher.stop(signal.SIGTERM) == 0
    finally:
        done.set()
        watcher.kill()
        server.stop()


def test_a_long_lived_seeder_reopens_chroma_after_another_process_wrote(repo):
    """The watcher and the API server keep one Seeder for hours; other processes write in between."""
    small_hnsw_buffers(repo.path)
    for i in range(12):
        repo.record(f"p{i}", title=f"Policy {i}", body=f"Policy {i} says to keep {i} replicas.")
    seeder = Seeder(repo.path)
    seeder.seed()
    for i in range(12, 30):
        repo.record(f"p{i}", title=f"Policy {i}", body=f"Policy {i} says to keep {i} replicas.")
    other = subprocess.run(
        [*JGM, "seed", "--json", "--repo", str(repo.path)], capture_output=True, text=True, timeout=600
    )
    assert other.returncode == 0, other.stderr
    for i in range(30, 45):
        repo.record(f"p{i}", title=f"Policy {i}", body=f"Policy {i} says to keep {i} replicas.")
    os.remove(repo.path / "knowledge/p0.md")
    report = seeder.seed()
    assert (len(report.added), report.removed) == (15, ["p0"])
    assert len(assert_index_matches_files(repo.path).records) == 44
