"""What an agent is handed, and what the edit hook costs: MCP answer sizes (compact vs detail) and the edit
hook's wall time against `jgm recall`, on this repository's own knowledge/ (issue 38, items 4 and 6).

    python bench/agent_answers.py                  # sizes and timings, prints JSON
    python bench/agent_answers.py --sizes-only     # e.g. with PYTHONPATH=<an older checkout>: the "before"

The repository is this checkout's HEAD (`git archive`) committed into a temp repo and seeded into a temp
store. Sizes: bytes of each MCP tool's text content (what a text-only client reads) and of its structured
content as compact JSON, for the same questions, called in process through the SDK's client; a server whose
tools take no `detail` (older code) is measured as it answers by default. Timings: wall time of fresh
processes, as a client hook or a user pays it: a cold `jgm recall` (`JGM_NO_DAEMON=1`: imports Chroma, loads
the model), a warm one through the daemon, and the edit hook (PreToolUse payload for a cited file) through
the warm daemon, first edit of a file in a session and a repeated one. Targets: warm edit hook p50 at most
0.3x the cold recall, and within 1.5x the warm recall.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from agent_latency import console_script, stats, stop, timed  # noqa: E402
from api_latency import pct  # noqa: E402

ROOT = HERE.parent
QUESTION = "How does the session brief choose which records to inject?"
TASK = {
    "goal": "make the prompt hook answer faster through the daemon",
    "files": ["jupiter_git_memory/surfaces/agent/hook.py"],
}
CONTEXT = {"goal": "change how receipts are stored for hook answers", "budget_tokens": 400}
EDITED = "jupiter_git_memory/surfaces/agent/brief.py"  # cited by dec-agent-session-brief


def this_repo(dest: Path) -> None:
    """This checkout's HEAD as a fresh one-commit repository."""
    blob = subprocess.run(["git", "-C", str(ROOT), "archive", "HEAD"], capture_output=True, check=True, timeout=120)
    with tarfile.open(fileobj=io.BytesIO(blob.stdout)) as tar:
        tar.extractall(dest, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))  # 3.11.2: no filters
    for argv in (
        ["init", "-q", "-b", "main"],
        ["add", "-A"],
        ["-c", "user.name=bench", "-c", "user.email=b@example.com", "commit", "-q", "-m", "import"],
    ):
        subprocess.run(["git", "-C", str(dest), *argv], check=True, capture_output=True, timeout=120)


def sizes(repo: Path) -> dict:
    import anyio
    from mcp import Client

    from jupiter_git_memory.app.workspace_handle import WorkspaceHandle
    from jupiter_git_memory.embedding.registry import load_embedder
    from jupiter_git_memory.surfaces.mcp.server import build_server

    handle = WorkspaceHandle.for_repo(repo)
    calls = {"recall": {"query": QUESTION}, "recall_for_task": TASK, "context": CONTEXT}

    async def run():
        out = {}
        async with Client(build_server(handle)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            has_detail = "detail" in tools["recall"].input_schema["properties"]
            for name, args in calls.items():
                modes = {"default": args, "detail": {**args, "detail": True}} if has_detail else {"default": args}
                for mode, a in modes.items():
                    res = await client.call_tool(name, a)
                    text = "".join(c.text for c in res.content if getattr(c, "text", None))
                    structured = json.dumps(res.structured_content, separators=(",", ":"), ensure_ascii=False)
                    out[f"{name}.{mode}"] = {
                        "text_bytes": len(text.encode()),
                        "structured_bytes": len(structured.encode()),
                        "records": len((res.structured_content or {}).get("records") or [])
                        if name != "context"
                        else (res.structured_content or {}).get("text", "").count("\n## "),
                        "text_tokens": load_embedder().count_tokens(text),
                        "error": res.is_error,
                    }
        return has_detail, out

    try:
        has_detail, out = anyio.run(run)
    finally:
        handle.close()
    return {"code": "compact-by-default" if has_detail else "before (no detail parameter)", "answers": out}


def timings(repo: Path, env: dict, jgm: str, runs: int, warm: int) -> dict:
    here = {**env, "JGM_NO_DAEMON": "1"}
    hook = [sys.executable, "-P", "-m", "jupiter_git_memory", "hook", "claude-code", "edit"]

    def edit(session: str) -> str:
        return json.dumps(
            {
                "session_id": session,
                "cwd": str(repo),
                "hook_event_name": "PreToolUse",
                "tool_name": "Edit",
                "tool_input": {"file_path": str(repo / EDITED), "old_string": "a", "new_string": "b"},
            }
        )

    base = pct([timed([sys.executable, "-c", "pass"], env, repo) for _ in range(5)], 50)
    res: dict = {"python_pass_ms": round(base, 1)}
    res["recall_cold"] = stats([timed([jgm, "recall", QUESTION], here, repo) for _ in range(runs)], base)
    stop(jgm, env, repo)
    timed([jgm, "recall", QUESTION], env, repo)  # starts the daemon
    res["recall_daemon_warm"] = stats([timed([jgm, "recall", f"{QUESTION} {i}"], env, repo) for i in range(warm)], base)
    probe = subprocess.run(hook, input=edit("probe"), env=env, cwd=repo, capture_output=True, text=True, timeout=120)
    res["edit_hook_answer_chars"] = len(probe.stdout)
    res["edit_hook_first_edit_warm"] = stats([timed(hook, env, repo, edit(f"s{i}")) for i in range(warm)], base)
    res["edit_hook_repeat_edit"] = stats([timed(hook, env, repo, edit("s0")) for _ in range(warm)], base)
    stop(jgm, env, repo)
    first, cold, daemon = res["edit_hook_first_edit_warm"]["p50_ms"], res["recall_cold"]["p50_ms"], None
    daemon = res["recall_daemon_warm"]["p50_ms"]
    res["targets"] = {
        "warm_edit_hook_over_cold_recall": round(first / cold, 3),
        "target_over_cold": 0.3,
        "warm_edit_hook_over_warm_recall": round(first / daemon, 2),
        "target_over_warm": 1.5,
    }
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3, help="cold runs")
    ap.add_argument("--warm", type=int, default=10, help="warm runs of each kind")
    ap.add_argument("--sizes-only", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="jgm-answers-bench-") as tmp:
        repo, home = Path(tmp) / "repo", Path(tmp) / "home"
        this_repo(repo)
        jgm = console_script(Path(tmp))
        env = {k: v for k, v in os.environ.items() if k != "JGM_NO_DAEMON"}
        env["JGM_HOME"] = str(home)
        os.environ["JGM_HOME"] = str(home)
        subprocess.run(
            [jgm, "seed", "--json"],
            cwd=repo,
            env={**env, "JGM_NO_DAEMON": "1"},
            capture_output=True,
            check=True,
            timeout=1800,
        )
        out: dict = {"sizes": sizes(repo)}
        if not args.sizes_only:
            out["timings"] = timings(repo, env, jgm, args.runs, args.warm)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
