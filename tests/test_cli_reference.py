"""The command reference (docs/reference.md) is the CLI's own `--help`, and the command tables of the README and
every docs page name only real commands and options."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

PROJECT = Path(__file__).resolve().parent.parent


def _tool():
    spec = importlib.util.spec_from_file_location("cli_reference", PROJECT / ".ci" / "cli_reference.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_reference_page_matches_help():
    tool = _tool()
    assert tool.REFERENCE == PROJECT / "docs" / "reference.md"
    text = tool.REFERENCE.read_text(encoding="utf-8")
    section = text.split(tool.START, 1)[1].split(tool.END, 1)[0]
    assert tool.START + section + tool.END == tool.render(), "run `python .ci/cli_reference.py --write`"
    for path in tool.commands():
        assert f"<code>{' '.join(('jgm', *path))}</code>" in section


def test_every_pages_tables_name_real_commands_and_options():
    tool = _tool()
    pages = tool.doc_pages()
    assert PROJECT / "README.md" in pages and PROJECT / "docs" / "commands.md" in pages
    assert tool.REFERENCE not in pages  # the generated page is checked against --help instead
    for page in pages:
        assert tool.lint_tables(page.read_text(encoding="utf-8"), page.name) == [], page
    signatures = sum(page.read_text(encoding="utf-8").count("\n| `jgm ") for page in pages)
    assert signatures >= 30, "the command tables moved out of the pages the lint reads"
    # the lint itself notices an option or a command that does not exist
    assert any("--bogus" in p for p in tool.lint_tables("| `jgm seed --bogus` | x |\n", "commands.md"))
    assert any("names no jgm command" in p for p in tool.lint_tables("| `jgm frobnicate` | x |\n"))
