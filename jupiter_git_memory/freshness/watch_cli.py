"""`jgm watch`'s foreground loop: start a Watcher, print one line per reseed, stop on SIGINT/SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from ..records.text import escape_nonprintable
from .watch import Reseed, Watcher


def run_cli(repo: Path | None, debounce: float, as_json: bool, emit: Callable[[str], None] | None = None) -> int:
    """Watch until SIGINT/SIGTERM, printing one line per reseed (JSON lines with `as_json`). Returns 0."""

    def say(text: str) -> None:  # a line may carry a config key or a record's text: nothing unprintable goes out raw
        (emit or (lambda t: (sys.stdout.write(t + "\n"), sys.stdout.flush())))(escape_nonprintable(text))

    def on_reseed(r: Reseed) -> None:
        if as_json:
            say(json.dumps(r.to_json(), default=str))
            return
        stamp = time.strftime("%H:%M:%S", time.localtime(r.finished))
        if r.config:
            say(
                f"{stamp} config error: {r.config['error']}"
                if r.config["error"]
                else f"{stamp} config reloaded: watching {', '.join(x + '/' for x in r.config['roots'])}"
            )
        report = r.report
        if r.error or report is None:
            say(f"{stamp} could not reindex: {r.error}")
            return
        c = report.to_json()["counts"]
        why = "initial seed" if r.trigger == "initial" else f"{len(r.paths)} change{'s' if len(r.paths) != 1 else ''}"
        say(f"{stamp} reindexed ({why}): {report.summary()}, {c['errors']} errors")
        for e in report.errors:
            where = f"{e['path']}:{e['line']}" if e.get("line") else e["path"]
            say(f"  {where}: {e['message']} — fix: {e['fix']}")

    stop = threading.Event()
    previous = {s: signal.signal(s, lambda *_: stop.set()) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        watcher = Watcher(repo, on_reseed=on_reseed, debounce=debounce)
        watcher.start()
        roots = list(watcher.settings.roots)
        if as_json:
            say(
                json.dumps(
                    {
                        "event": "ready",
                        "workspace": watcher.seeder.workspace.id,
                        "repo": str(watcher.top),
                        "roots": roots,
                        "pid": os.getpid(),
                    }
                )
            )
        else:
            say(f"watching {', '.join(r + '/' for r in roots)} in {watcher.top} (Ctrl-C to stop)")
        while not stop.wait(0.5):
            pass
        watcher.stop()
        say(json.dumps({"event": "stopped"}) if as_json else "stopped")
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
    return 0
