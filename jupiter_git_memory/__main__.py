"""`python -m jupiter_git_memory` and the `jgm` console script: the `jgm` CLI.

Git hooks call `python -m jupiter_git_memory hooks run <hook> ...` after every checkout, so that path
skips loading the full CLI (Typer and every command module): a checkout that changed no knowledge
should cost little more than the interpreter's start.
"""

import sys


def main() -> None:
    argv = sys.argv[1:]
    if argv[:1] == ["hooks"] and argv[1:2] in (["run"], ["_reseed"]):
        from .freshness.hook_run import main as hooks_main

        raise SystemExit(hooks_main(argv[1:]))
    if argv[:1] == ["hook"]:  # a client's session-start / prompt hook: the same fast path (surfaces/agent/hook.py)
        from .surfaces.agent.hook import main as agent_hook_main

        raise SystemExit(agent_hook_main(argv[1:]))
    if argv == ["daemon", "_serve"]:  # the resident recall process, started detached by surfaces/daemon/client.py
        from .surfaces.daemon.server import main as daemon_main

        raise SystemExit(daemon_main())
    from .surfaces.daemon.thin import forward  # recall, recall-task, context: run by the warm daemon if up

    code = forward(argv)
    if code is not None:
        raise SystemExit(code)
    from .surfaces.cli.main import app

    app(prog_name="jgm")


if __name__ == "__main__":
    main()
