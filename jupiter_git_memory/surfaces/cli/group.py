"""The root command group: `--home` on every command, and the store resolved once before any command runs.

Why here and not in each command: the store must be chosen the same way by every entry point
(`--home` > `JGM_HOME` > `git config jgm.home` of the command's `--repo` > the default, see
`git/home.py`). Giving every leaf command the root's `--home` option in one place keeps that rule in
one place.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path

from typer.core import TyperGroup

HOME_HELP = "The store (default: $JGM_HOME, else the repo's `git config jgm.home`, else the platform data dir)."
ROOT = {"home": None}  # `jgm --home DIR <command>`: set by the root callback, before the command runs


def _first_repo(value):
    if isinstance(value, (list, tuple)):
        return value[0] if value else None
    return value


def _with_store(callback):
    @functools.wraps(callback)
    def run(*args, home: Path | None = None, **kwargs):
        import click

        from ...git.home import use_store

        ctx = click.get_current_context(silent=True)
        if ctx is None or not getattr(ctx, "invoked_subcommand", None):  # else the subcommand resolves it
            use_store(home or ROOT["home"], _first_repo(kwargs.get("repo")), fresh=True)
        return callback(*args, **kwargs)

    return run


def _unset_is_none(param) -> None:
    """An option left unset is None (or its callback's answer to None) without Typer's value conversion,
    which imports pydantic (typer 0.29, ~0.2 s): `jgm GROUP --help` processes the unset `--home` and
    `--help` of every group above it before the subcommand's help exits. A given value converts as before."""
    converted = param.process_value

    def process_value(ctx, value):
        if value is None and not param.required and param.nargs == 1 and not getattr(param, "multiple", False):
            return None if param.callback is None else param.callback(ctx, param, None)
        return converted(ctx, value)

    param.process_value = process_value


def _light_help(cmd) -> None:
    """`_unset_is_none` for the command's `--help`, which click makes on first use."""
    made = cmd.get_help_option

    def get_help_option(ctx):
        opt = made(ctx)
        if opt is not None and "process_value" not in vars(opt):
            _unset_is_none(opt)
        return opt

    cmd.get_help_option = get_help_option


def prepare(group, home_param) -> None:
    """Every leaf command (and a group that also runs by itself) gets a copy of the root's `--home`; help is
    plain click help everywhere (Typer's rich help prints a `<bool>` type next to every flag, which reads
    like a value to type)."""
    group.rich_markup_mode = None
    for cmd in group.commands.values():
        cmd.rich_markup_mode = None
        _light_help(cmd)
        if hasattr(cmd, "commands"):
            prepare(cmd, home_param)
        if (not hasattr(cmd, "commands") or getattr(cmd, "invoke_without_command", False)) and (
            cmd.callback is not None and not any(p.name == "home" for p in cmd.params)
        ):  # a leaf, or a group that runs on its own (`jgm drift`, beside `jgm drift confirm`)
            home = copy.copy(home_param)
            _unset_is_none(home)
            cmd.params.append(home)
            cmd.callback = _with_store(cmd.callback)


class JgmGroup(TyperGroup):
    """TyperGroup that gives every leaf command `--home` and resolves the store before it runs."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        home = next(p for p in self.params if p.name == "home")
        prepare(self, home)
        _unset_is_none(home)
        _light_help(self)
