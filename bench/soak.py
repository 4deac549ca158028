"""Soak: `jgm serve` and `jgm mcp --http` for a whole run, beside outside writers, with steady recalls.

    python bench/soak.py --out bench/out/soak.json --plot bench/out/soak.png      # 1,000 records, 1,000 writes
    python bench/soak.py --records 200 --writes 150 --config-edits 6 --sample-every 25   # a quick look

What runs: a synthetic repo (bench/generate.py) with `jgm.toml`, seeded by `jgm seed`; both servers; `jgm
watch --json`; git hooks installed. Each write adds a probe record (a unique title) and removes the one
KEEP writes older, then reindexes from another process, in turn: a `jgm seed` (CLI), a `git commit
--amend` whose post-rewrite hook reseeds (hook-style, synchronous), or nothing but the watcher. The
watcher also reacts to every edit, as it would beside a developer. Once the write is in the catalog, the
probe's title is asked through the API and MCP: a miss is a stale answer. Config edits toggle `roots`
between knowledge/ and knowledge/ + notes/; the watcher must follow (pickup time is measured). Meanwhile
one thread per server recalls steadily. Every `--sample-every` writes: RSS, fds and threads of each server
(and the watcher) and recall p50/p99 over that window. Prints JSON with the done-when verdicts; draws RSS
and p99 over writes if matplotlib is installed (`pip install matplotlib`, a bench-only dependency).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from api_latency import JGM, _Server, pct  # noqa: E402
from generate import generate, git  # noqa: E402
from soak_clients import Api, Mcp, Stream, WatchProc, proc_stats  # noqa: E402

KEEP = 10  # probes alive at once
WORDS = [
    "vermilion",
    "otter",
    "bassoon",
    "glacier",
    "saffron",
    "heron",
    "quartz",
    "lantern",
    "mango",
    "walrus",
    "cobalt",
    "violin",
    "tundra",
    "falcon",
    "juniper",
    "marble",
    "kestrel",
    "lagoon",
    "pepper",
    "zephyr",
    "ember",
    "tapir",
    "orchid",
    "basalt",
    "harpoon",
    "meadow",
    "nectar",
    "osprey",
    "pumice",
    "quill",
]
NOTES = 5  # records under notes/, indexed only while `roots` includes it


def probe(i: int) -> tuple[str, str, str]:
    rng = random.Random(i)
    a, b, c = rng.sample(WORDS, 3)
    rid = f"fact-soak-probe-{i}"
    title = f"The {a} {b} signal uses the {c} channel (probe {i})"
    return rid, title, f"knowledge/probes/{rid}.md"


def probe_text(i: int) -> str:
    rid, title, _ = probe(i)
    return (
        f"---\nid: {rid}\nkind: fact\nstatus: verified\ntitle: {json.dumps(title)}\n---\n"
        f"{title}. Written by the soak benchmark at write {i}.\n"
    )


def catalog_state(db_path: Path, ids: list[str]) -> tuple[set[str], int]:
    """Which of `ids` the catalog's views hold (the soak repo has one worktree), and the generation."""
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=30)
    try:
        marks = ",".join("?" * len(ids))
        found = {r[0] for r in db.execute(f"SELECT id FROM view_records WHERE error IS NULL AND id IN ({marks})", ids)}
        gen = int((db.execute("SELECT value FROM meta WHERE key='generation'").fetchone() or ["0"])[0] or 0)
        return found, gen
    finally:
        db.close()


def wait_until(pred, timeout: float = 180.0, interval: float = 0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = pred()
        if got:
            return got
        time.sleep(interval)
    return None


def setup(work: Path, records: int, env: dict) -> tuple[Path, float]:
    repo = work / "repo"
    if not (repo / ".git").is_dir():
        generate(repo, records)
        (repo / "jgm.toml").write_text('roots = ["knowledge"]\n')
        for n in range(NOTES):
            (repo / "notes").mkdir(exist_ok=True)
            (repo / f"notes/fact-note-{n}.md").write_text(
                f"---\nid: fact-note-{n}\nkind: fact\nstatus: verified\ntitle: Note {n} on the soak\n---\n"
                f"A note that is indexed only while notes/ is a root ({n}).\n"
            )
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "soak setup")
    shutil.rmtree(repo / "knowledge/probes", ignore_errors=True)  # a reused repo starts like a new one
    (repo / "jgm.toml").write_text('roots = ["knowledge"]\n')
    subprocess.run([JGM, "hooks", "install"], cwd=repo, env=env, check=True, capture_output=True)
    t = time.perf_counter()
    subprocess.run([JGM, "seed", "--repo", str(repo)], env=env, check=True, capture_output=True)
    return repo, time.perf_counter() - t


def write(i: int, repo: Path, kind: str, env: dict) -> None:
    rid, _, rel = probe(i)
    (repo / rel).parent.mkdir(parents=True, exist_ok=True)
    (repo / rel).write_text(probe_text(i))
    old = repo / probe(i - KEEP)[2]
    if i >= KEEP and old.exists():
        old.unlink()
    if kind == "cli":
        subprocess.run([JGM, "seed", "--repo", str(repo)], env=env, check=True, capture_output=True, timeout=300)
    elif kind == "hook":  # post-rewrite reseeds when the amended commit changed a record file
        git(repo, "add", "-A")
        subprocess.run(
            ["git", "-C", str(repo), "commit", "-q", "--amend", "--no-edit"],
            check=True,
            capture_output=True,
            timeout=300,
            env=dict(env, JGM_HOOK_SYNC="1"),
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=1000)
    ap.add_argument("--writes", type=int, default=1000)
    ap.add_argument("--config-edits", type=int, default=20)
    ap.add_argument("--sample-every", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=50, help="writes before the baseline sample")
    ap.add_argument("--recall-interval", type=float, default=0.25, help="pause between a stream's recalls (s)")
    ap.add_argument("--mix", default="cli,hook,watcher", help="writers, used in turn")
    ap.add_argument("--max-minutes", type=float, help="stop writing after this long (the report covers what ran)")
    ap.add_argument("--work", type=Path, default=Path("/tmp/jgm-soak"), help="repo + store (reused if there)")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--plot", type=Path)
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    home = args.work / "home"
    home.mkdir(exist_ok=True)
    env = dict(os.environ, JGM_HOME=str(home))
    repo, seed_s = setup(args.work, args.records, env)
    os.environ["JGM_HOME"] = str(home)
    serve = _Server(repo, home)
    mcp_proc = subprocess.Popen(
        [JGM, "mcp", "--http", "--port", "0", "--repo", str(repo)],
        stdout=subprocess.PIPE,
        stderr=(args.work / "mcp.stderr").open("w"),  # the MCP SDK logs a failing tool's traceback here
        text=True,
        env=env,
    )
    mcp_url = json.loads(mcp_proc.stdout.readline())["url"]
    watcher = WatchProc(repo, env)
    wait_until(lambda: any(e.get("event") == "ready" for e in watcher.events), 300)
    db_path = home / "workspaces" / serve.workspace / "catalog.sqlite"
    api, mcp = Api(serve), Mcp(mcp_url, serve.token)
    api_bg, mcp_bg = Api(serve), Mcp(mcp_url, serve.token)
    streams = {
        "serve": Stream("serve", api_bg.recall, args.recall_interval),
        "mcp": Stream("mcp", mcp_bg.recall, args.recall_interval),
    }
    for s in streams.values():
        s.start()
    pids = {"serve": serve.proc.pid, "mcp": mcp_proc.pid, "watch": watcher.proc.pid}
    mix = args.mix.split(",")
    edit_every = max(1, args.writes // max(1, args.config_edits))
    samples, stale, errors, pickups, config_misses = [], [], [], [], 0
    notes_on = False
    t0 = time.time()
    halt = threading.Event()  # SIGINT/SIGTERM or --max-minutes: finish the write, then report
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: halt.set())
    done = 0

    def current() -> dict:
        """The report over what has run so far (written at every sample, printed at the end)."""
        return report(
            args,
            samples,
            stale,
            errors,
            pickups,
            config_misses,
            streams,
            watcher,
            seed_s,
            api.non_json_5xx + api_bg.non_json_5xx,
            done,
        )

    try:
        for i in range(args.writes):
            if halt.is_set() or (args.max_minutes and time.time() - t0 > args.max_minutes * 60):
                break
            done = i + 1
            kind = mix[i % len(mix)]
            rid, title, _ = probe(i)
            gone = probe(i - KEEP)[0] if i >= KEEP else None
            try:
                write(i, repo, kind, env)
            except Exception as e:
                errors.append(f"write {i} ({kind}): {type(e).__name__}: {e}"[:300])
            want = [rid] + ([gone] if gone else [])
            seen = wait_until(
                lambda: (lambda f, g: g if rid in f and gone not in f else 0)(*catalog_state(db_path, want))
            )
            if not seen:
                errors.append(f"write {i} ({kind}): not in the catalog after 180 s")
                continue
            try:
                ids, gen = api.recall(title, 3)
                if rid not in ids or gone in ids or gen < seen:
                    stale.append({"write": i, "surface": "api", "want": rid, "got": ids, "generation": [gen, seen]})
                ids = mcp.recall(title, 3)
                if rid not in ids or gone in ids:
                    stale.append({"write": i, "surface": "mcp", "want": rid, "got": ids})
            except Exception as e:
                errors.append(f"write {i} recall: {type(e).__name__}: {e}"[:300])
            if (i + 1) % edit_every == 0 and len(pickups) + config_misses < args.config_edits:
                notes_on = not notes_on
                edited = time.time()
                (repo / "jgm.toml").write_text(
                    'roots = ["knowledge", "notes"]\n' if notes_on else 'roots = ["knowledge"]\n'
                )
                ok = wait_until(lambda: (len(catalog_state(db_path, ["fact-note-0"])[0]) == 1) == notes_on, 120)
                ev = (
                    wait_until(
                        lambda: [
                            e
                            for e in watcher.events  # printed just after the seed commits
                            if e.get("config") and e.get("started", 0) >= edited
                        ],
                        30,
                    )
                    or []
                )
                if ok and ev:
                    pickups.append(round(ev[0]["started"] - edited, 3))
                else:
                    config_misses += 1
                    errors.append(
                        f"config edit after write {i}: index followed={bool(ok)}, watcher events={ev[:2]}"[:400]
                    )
            if (i + 1) % args.sample_every == 0:
                row = {"writes": i + 1, "seconds": round(time.time() - t0, 1)}
                for name, pid in pids.items():
                    row[name] = proc_stats(pid)
                for name, s in streams.items():
                    lat = s.take()
                    row[name].update(
                        recalls=len(lat),
                        p50_ms=round(pct(lat, 50), 1) if lat else None,
                        p99_ms=round(pct(lat, 99), 1) if lat else None,
                    )
                samples.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
                if args.out:  # a partial report on disk at every sample
                    partial = current()
                    args.out.parent.mkdir(parents=True, exist_ok=True)
                    args.out.write_text(json.dumps(dict(partial, partial=True), indent=2) + "\n")
    finally:
        for s in streams.values():
            s.halt.set()
        for s in streams.values():
            s.join(30)
        for c in (api, mcp, api_bg, mcp_bg):
            c.close()
        watcher.stop()
        mcp_proc.terminate()
        mcp_proc.wait(timeout=60)
        serve.stop()
    result = current()
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")
    if args.plot:
        plot(samples, args.plot, args.warmup, result["setup"])


def report(args, samples, stale, errors, pickups, config_misses, streams, watcher, seed_s, non_json, done) -> dict:
    base = next((s for s in samples if s["writes"] >= args.warmup), samples[0] if samples else None)
    after = [s for s in samples if s["writes"] > base["writes"]] if base else []
    servers = {}
    for name in ("serve", "mcp"):
        if not base or not after:
            break
        rss = max(s[name]["rss_mb"] for s in after) - base[name]["rss_mb"]
        fds = sorted({s[name]["fds"] for s in [base] + after})
        threads = sorted({s[name]["threads"] for s in [base] + after})
        pool = max(s[name]["chroma_pool"] for s in [base] + after)
        third = max(1, len(after) // 3)  # flat: the last third never exceeds the first (after warm-up)
        first, last = [base] + after[:third], after[-third:]
        flat = {k: max(s[name][k] for s in last) <= max(s[name][k] for s in first) for k in ("fds", "threads")}
        p99_start, p99_end = after[0][name]["p99_ms"], after[-1][name]["p99_ms"]
        change = (p99_end - p99_start) / p99_start if p99_start and p99_end else None
        servers[name] = {
            "rss_growth_mb": round(rss, 1),
            "rss_ok": rss <= 50,
            "fds_range": [fds[0], fds[-1]],
            "threads_range": [threads[0], threads[-1]],
            "fds_flat": flat["fds"],
            "threads_flat": flat["threads"],
            "chroma_pool_max": pool,
            "p99_start_ms": p99_start,
            "p99_end_ms": p99_end,
            "p99_change": round(change, 3) if change is not None else None,
            "p99_ok": change is not None and change <= 0.2,
            "recalls": streams[name].count,
        }
    return {
        "measured": "bench/soak.py: jgm serve + jgm mcp --http beside outside reseeds (CLI, git hook, watcher)",
        "setup": {
            "records": args.records,
            "writes": done,
            "writes_planned": args.writes,
            "mix": args.mix,
            "config_edits": args.config_edits,
            "sample_every": args.sample_every,
            "warmup_writes": args.warmup,
            "cold_seed_s": round(seed_s, 1),
            "recall_interval_s": args.recall_interval,
            "cpus": os.cpu_count(),
            "load_avg_1m": round(os.getloadavg()[0], 2),
        },
        "servers": servers,
        "note": "fds and threads exclude Chroma's SQLite pool (chroma_pool: its connections, opened on demand, one "
        "fd and one thread each); samples run beside live requests, so a request's lock file or socket may "
        "show: flat = the last third of samples never above the first. Before the fix every outside write "
        "added a whole Chroma system (~11 fds, ~5 threads).",
        "stale_answers": len(stale),
        "stale": stale[:20],
        "errors": len(errors),
        "error_samples": errors[:20],
        "stream_errors": {n: len(s.errors) for n, s in streams.items()},
        "stream_error_samples": {n: s.errors[:5] for n, s in streams.items()},
        "non_json_5xx": non_json,
        "config": {
            "edits": len(pickups) + config_misses,
            "followed": len(pickups),
            "missed": config_misses,
            "pickup_s_max": max(pickups) if pickups else None,
            "pickup_s": pickups,
        },
        "watch_errors": [e.get("error") for e in watcher.events if e.get("error")][:10],
        "samples": samples,
    }


def plot(samples: list[dict], path: Path, warmup: int, setup: dict) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot (pip install matplotlib)", file=sys.stderr)
        return
    x = [s["writes"] for s in samples]
    fig, (a, b) = plt.subplots(2, 1, figsize=(6.4, 4.8), sharex=True, dpi=80)
    for name in ("serve", "mcp"):
        a.plot(x, [s[name]["rss_mb"] for s in samples], marker=".", label=f"jgm {name}")
        b.plot(x, [s[name]["p99_ms"] for s in samples], marker=".", label=f"jgm {name}")
    a.set_ylabel("RSS (MB)")
    b.set_ylabel("recall p99 (ms)")
    b.set_xlabel("outside writes")
    for ax in (a, b):
        ax.axvline(warmup, color="grey", linestyle=":", linewidth=1)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    a.set_title(f"jgm soak: {setup['records']} records, {setup['writes']} outside writes", fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)


if __name__ == "__main__":
    main()
