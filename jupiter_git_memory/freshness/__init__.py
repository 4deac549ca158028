"""Keeping the index fresh as the repository changes: the watcher (watch.py), the Git hooks (githooks.py
installs them, hook_run.py is what they run, ref_hook.py reads a reference-transaction's ref moves) and
the shell shim they install (hook_scripts/). Below surfaces: the CLI commands call in, never the reverse."""
