"""How long `jgm` takes to start for the commands a client hook or a user runs most.

    python bench/cli_startup.py              # prints JSON
    python bench/cli_startup.py --runs 20

Each command is a fresh subprocess (`python -m jupiter_git_memory ...`, what the console script and the
installed hooks run), timed wall-clock; the median and the ratio to a bare `python -c pass` measured in the
same run are reported, so figures from different machines compare. Runs alternate between commands so a
noisy neighbour hits them all alike. The hook payload is a session start in a fresh repository with no store:
it must answer (fail open, one line) without loading the model. Cursor's postToolUse hook has no matcher (its
edit tools' names are not documented), so it starts for every tool: `hook_cursor_tool_not_an_edit` is what a
Read costs.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

COMMANDS = {
    "python_pass": ["-c", "pass"],
    "jgm_help": ["-m", "jupiter_git_memory", "--help"],
    "jgm_version": ["-m", "jupiter_git_memory", "--version"],
    "jgm_recall_help": ["-m", "jupiter_git_memory", "recall", "--help"],
    "hook_session_start_no_store": ["-m", "jupiter_git_memory", "hook", "claude-code", "session-start"],
    # what the installed git hook runs after a checkout that changed nothing (HEAD to HEAD)
    "git_hook_noop": ["-m", "jupiter_git_memory", "hooks", "run", "post-checkout", "HEAD", "HEAD", "1"],
    "hook_cursor_tool_not_an_edit": ["-m", "jupiter_git_memory", "hook", "cursor", "edit"],
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()
    cwd = tempfile.mkdtemp()
    subprocess.run(["git", "init", "-q", cwd], check=True, timeout=60)  # a repository without a store
    ident = ["-c", "user.name=bench", "-c", "user.email=b@example.com"]
    subprocess.run(["git", "-C", cwd, *ident, "commit", "-q", "--allow-empty", "-m", "one"], check=True, timeout=60)
    env = dict(os.environ, JGM_HOME=os.path.join(cwd, "home"))
    payload = json.dumps({"session_id": "bench", "hook_event_name": "SessionStart", "source": "startup", "cwd": cwd})
    read = {"tool_name": "Read", "tool_input": {"file_path": os.path.join(cwd, "README.md")}}
    payloads = {
        "hook_cursor_tool_not_an_edit": json.dumps(
            {"conversation_id": "bench", "hook_event_name": "postToolUse", "workspace_roots": [cwd], **read}
        )
    }
    times: dict[str, list[float]] = {k: [] for k in COMMANDS}
    failed: dict[str, int] = {}
    for _ in range(args.runs):
        for name, argv in COMMANDS.items():
            t = time.perf_counter()
            p = subprocess.run(
                [sys.executable, *argv],
                cwd=cwd,
                env=env,
                input=payloads.get(name, payload).encode(),
                capture_output=True,
                timeout=120,
            )
            times[name].append(time.perf_counter() - t)
            if p.returncode:
                failed[name] = p.returncode
    base = statistics.median(times["python_pass"])
    print(
        json.dumps(
            {
                "runs": args.runs,
                "python": platform.python_version(),
                "cpus": os.cpu_count(),
                "median_seconds": {k: round(statistics.median(v), 4) for k, v in times.items()},
                "ratio_to_python_pass": {k: round(statistics.median(v) / base, 2) for k, v in times.items()},
                "nonzero_exit": failed,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
