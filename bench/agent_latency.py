"""What an agent waits for: `jgm recall` and the prompt hook, through the resident recall process and in process.

    python bench/agent_latency.py                 # 200-record synthetic repo, a few runs each, prints JSON
    python bench/agent_latency.py --records 200 --runs 5 --warm 20

`jgm` here is a console script for the entry pyproject.toml declares, written into the run's temp dir as pip
writes one (an editable install made before the entry moved would still run the old one). Each figure is
wall time of a fresh process (what a user or a client hook pays), except the API's, which is
a warm keep-alive HTTP request (bench/api_latency.py). "cold" is a process with no daemon up: in process
(`JGM_NO_DAEMON=1`) it imports Chroma and loads the model itself; the first call through the daemon also
starts it. "warm" is a call answered by a daemon already up. Every figure is also given as a ratio to a bare
`python -c pass` measured in the same run, so runs on different machines compare. Targets (issue 24): the warm
prompt hook at most 0.3x a cold in-process `jgm recall`; the warm CLI recall p50 within 2x the API's warm p50.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from api_latency import QUERIES, measure, pct  # noqa: E402

ROOT = HERE.parent
PROMPT = {"session_id": "bench", "hook_event_name": "UserPromptSubmit"}


def console_script(folder: Path) -> str:
    """`jgm` for the entry pyproject.toml declares, written as pip writes a console script."""
    module, func = script_entry()
    script = folder / "jgm"
    script.write_text(f"#!{sys.executable}\nimport sys\nfrom {module} import {func}\nsys.exit({func}())\n")
    script.chmod(0o755)
    return str(script)


def installed_copy(folder: Path) -> tuple[str, str]:
    """(python, jgm) of a regular install, as a wheel leaves one: the package folder in a venv's site-packages
    and a console script, no editable finder. The run's own environment is often an editable install, whose
    `.pth` finder every process of that interpreter pays at start (`python -c pass` included); users who
    `pip install` the package do not. Its dependencies come from the run's site-packages through a `.pth` of
    plain paths (their own `.pth` files are not run); the caller drops PYTHONPATH so no checkout comes first."""
    import shutil
    import sysconfig
    import venv

    venv.EnvBuilder(with_pip=False, symlinks=True).create(folder)
    py = folder / "bin" / "python"
    site = Path(
        subprocess.check_output(
            [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True
        ).strip()
    )
    shutil.copytree(
        ROOT / "jupiter_git_memory", site / "jupiter_git_memory", ignore=shutil.ignore_patterns("__pycache__")
    )
    subprocess.run([str(py), "-m", "compileall", "-q", str(site / "jupiter_git_memory")], check=True, timeout=300)
    deps = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site / "bench-deps.pth").write_text("".join(f"{d}\n" for d in sorted(deps)))
    module, func = script_entry()
    script = folder / "bin" / "jgm"
    script.write_text(f"#!{py}\nimport sys\nfrom {module} import {func}\nsys.exit({func}())\n")
    script.chmod(0o755)
    return str(py), str(script)


def script_entry() -> tuple[str, str]:
    """(module, function) of the `jgm` console script pyproject.toml declares."""
    import tomllib

    module, func = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]["jgm"].split(":")
    return module, func


def timed(argv: list[str], env: dict, cwd: Path, stdin: str | None = None) -> float:
    t = time.perf_counter()
    p = subprocess.run(argv, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=300)
    dt = (time.perf_counter() - t) * 1000
    if p.returncode not in (0, 1):
        raise SystemExit(f"{argv} failed ({p.returncode}): {p.stderr[-500:]}")
    return dt


def stop(jgm: str, env: dict, repo: Path) -> None:
    subprocess.run([jgm, "daemon", "stop"], cwd=repo, env=env, capture_output=True, timeout=60)


def installed(folder: Path, env: dict, repo: Path, args) -> dict:
    """The warm CLI figures again through a regular install of this checkout (installed_copy)."""
    py, jgm = installed_copy(folder)
    env = {k: v for k, v in env.items() if k != "PYTHONPATH"}
    probe = [py, "-c", "import jupiter_git_memory as j; print(j.__file__)"]
    loaded = subprocess.run(probe, cwd=repo, env=env, capture_output=True, text=True, timeout=60).stdout.strip()
    if not loaded.startswith(str(folder)):
        raise SystemExit(f"the regular install imports {loaded}, not its own copy under {folder}")
    base = pct([timed([py, "-c", "pass"], env, repo) for _ in range(5)], 50)
    out: dict = {"python_pass_ms": round(base, 1)}
    out["jgm_help"] = stats([timed([jgm, "--help"], env, repo) for _ in range(args.runs)], base)
    timed([jgm, "recall", QUERIES[0]], env, repo)  # starts this install's daemon (the other one was stopped)
    out["recall_daemon_warm"] = stats(
        [timed([jgm, "recall", QUERIES[i % 10] + f" {i}"], env, repo) for i in range(args.warm)], base
    )
    stop(jgm, env, repo)
    return out


def stats(values: list[float], base: float) -> dict:
    p50 = pct(values, 50)
    return {
        "p50_ms": round(p50, 1),
        "p99_ms": round(pct(values, 99), 1),
        "runs": len(values),
        "x_python": round(p50 / base, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=200)
    ap.add_argument("--runs", type=int, default=3, help="cold runs of each kind")
    ap.add_argument("--warm", type=int, default=15, help="warm runs of each kind")
    ap.add_argument("--api", type=int, default=40, help="warm API requests")
    ap.add_argument(
        "--installed",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also time a regular (non-editable) install of this checkout",
    )
    args = ap.parse_args()
    from generate import generate

    with tempfile.TemporaryDirectory(prefix="jgm-agent-bench-") as tmp:
        repo, home = Path(tmp) / "repo", Path(tmp) / "home"
        generate(repo, args.records)
        JGM = console_script(Path(tmp))
        env = {k: v for k, v in os.environ.items() if k != "JGM_NO_DAEMON"}
        env["JGM_HOME"] = str(home)
        here = {**env, "JGM_NO_DAEMON": "1"}
        subprocess.run([JGM, "seed", "--json"], cwd=repo, env=here, capture_output=True, check=True, timeout=900)
        hook = [sys.executable, "-m", "jupiter_git_memory", "hook", "claude-code", "prompt"]

        def prompt(i: int) -> str:
            return json.dumps({**PROMPT, "cwd": str(repo), "prompt": QUERIES[i % len(QUERIES)]})

        py = [timed([sys.executable, "-c", "pass"], env, repo) for _ in range(5)]
        base = pct(py, 50)
        res: dict = {"python_pass_ms": round(base, 1)}
        res["jgm_help"] = stats([timed([JGM, "--help"], env, repo) for _ in range(args.runs)], base)
        res["recall_in_process_cold"] = stats(
            [timed([JGM, "recall", QUERIES[i % 10]], here, repo) for i in range(args.runs)], base
        )
        res["hook_prompt_in_process_cold"] = stats([timed(hook, here, repo, prompt(i)) for i in range(args.runs)], base)
        first = []
        for i in range(args.runs):
            stop(JGM, env, repo)
            first.append(timed([JGM, "recall", QUERIES[i % 10]], env, repo))
        res["recall_daemon_first_call"] = stats(first, base)
        res["recall_daemon_warm"] = stats(
            [timed([JGM, "recall", QUERIES[i % 10] + f" {i}"], env, repo) for i in range(args.warm)], base
        )
        res["recall_json_daemon_warm"] = stats(
            [timed([JGM, "recall", QUERIES[i % 10], "--json"], env, repo) for i in range(args.warm)], base
        )
        res["recall_task_daemon_warm"] = stats(
            [timed([JGM, "recall-task", "--goal", QUERIES[i % 10]], env, repo) for i in range(args.warm)], base
        )
        res["context_daemon_warm"] = stats(
            [timed([JGM, "context", "--goal", QUERIES[i % 10]], env, repo) for i in range(args.warm)], base
        )
        res["hook_prompt_daemon_warm"] = stats([timed(hook, env, repo, prompt(i)) for i in range(args.warm)], base)
        stop(JGM, env, repo)
        res["hook_prompt_daemon_first_call"] = stats([timed(hook, env, repo, prompt(0))], base)
        stop(JGM, env, repo)
        if args.installed:
            res["installed"] = installed(Path(tmp) / "venv", env, repo, args)
        api, _ = measure(repo, home, QUERIES, args.api)
        res["api_warm"] = stats(api, base)
    cold, api = res["recall_in_process_cold"]["p50_ms"], res["api_warm"]["p50_ms"]
    res["targets"] = {
        "warm_hook_over_cold_recall": round(res["hook_prompt_daemon_warm"]["p50_ms"] / cold, 3),
        "warm_hook_target": 0.3,
        "warm_cli_recall_over_api_warm": round(res["recall_daemon_warm"]["p50_ms"] / api, 2),
        "warm_cli_recall_json_over_api_warm": round(res["recall_json_daemon_warm"]["p50_ms"] / api, 2),
        "warm_cli_recall_task_over_api_warm": round(res["recall_task_daemon_warm"]["p50_ms"] / api, 2),
        "warm_cli_context_over_api_warm": round(res["context_daemon_warm"]["p50_ms"] / api, 2),
        "warm_cli_recall_target": 2.0,
    }
    if args.installed:
        res["targets"]["installed_warm_cli_recall_over_api_warm"] = round(
            res["installed"]["recall_daemon_warm"]["p50_ms"] / api, 2
        )
    res["machine"] = {"python": platform.python_version(), "cpus": os.cpu_count(), "records": args.records}
    print(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
