"""The README's command reference is the CLI's own `--help`, and its command tables name only real options."""

from __future__ import annotations

import importlib.util
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent


def _tool():
    spec = importlib.util.spec_from_file_location("cli_reference", PROJECT / ".ci" / "cli_reference.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_readme_reference_matches_help():
    tool = _tool()
    text = (PROJECT / "README.md").read_text(encoding="utf-8")
    section = text.split(tool.START, 1)[1].split(tool.END, 1)[0]
    assert tool.START + section + tool.END == tool.render(), "run `python .ci/cli_reference.py --write`"
    for path in tool.commands():
        assert f"<code>{' '.join(('jgm', *path))}</code>" in section


def test_readme_tables_name_real_commands_and_options():
    tool = _tool()
    assert tool.lint_tables((PROJECT / "README.md").read_text(encoding="utf-8")) == []
    # the lint itself notices an option or a command that does not exist
    assert any("--bogus" in p for p in tool.lint_tables("| `jgm seed --bogus` | x |\n"))
    assert any("names no jgm command" in p for p in tool.lint_tables("| `jgm frobnicate` | x |\n"))
