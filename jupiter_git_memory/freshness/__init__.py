"""Keeping the index fresh as the repository changes: the watcher (watch.py runs it, watch_plan.py says what
to watch and which changes matter, watch_feed.py watches through watchfiles, watch_cli.py is `jgm watch`'s
loop), the Git hooks (githooks.py installs them, hook_run.py is what they run, hook_paths.py says which
files the hook's git command changed, a reference-transaction's ref moves included) and the shell shim they
install (hook_scripts/). Below surfaces: the CLI commands call in, never the reverse."""
