"""The CLI's shared plumbing (surfaces/cli/options.py and common.py): one declaration of `--repo`/`--json`,
one way to print an answer, one way to fail. The command-level tests pin the codes, exits and messages that
the hand-written try/except blocks used to produce; they run the CLI in process (no model is loaded)."""

from __future__ import annotations

import json

import pytest
import typer

from jupiter_git_memory.base import error_codes as E
from jupiter_git_memory.base.errors import JgmError
from jupiter_git_memory.surfaces.cli import common, options

pytestmark = pytest.mark.unit  # raised by the fixtures a test uses (tests/tiers.py)


def _error(result) -> dict:
    return json.loads(result.stdout)["error"]


def test_a_token_error_keeps_the_token_commands_own_code(cli):
    r = cli("token", "grant", "nobody", "ws1", "--json")
    assert r.exit_code == 2, r.output
    assert _error(r)["code"] == "token/error"
    assert _error(r)["message"] == "no token 'nobody'; `jgm token list` shows them"
    text = cli("token", "revoke", "nobody")
    assert text.exit_code == 2 and "error [token/error]: no token 'nobody'" in text.stderr


def test_an_unreadable_token_file_is_token_unreadable(cli, jgm_home):
    (jgm_home / "tokens.json").write_text("{not json", "utf-8")
    r = cli("token", "list", "--json")
    assert r.exit_code == 2, r.output
    assert _error(r)["code"] == "token/unreadable"
    assert "tokens.json" in _error(r)["message"]


def test_a_hooks_folder_that_is_a_file_is_a_hooks_io_error(cli, repo):
    (repo.path / "not-a-dir").write_text("x", "utf-8")
    repo.git("config", "core.hooksPath", "not-a-dir")
    r = cli("hooks", "install", "--repo", repo.path, "--json")
    assert r.exit_code == 2, r.output
    assert _error(r)["code"] == "hooks/io-error"
    assert "not-a-dir" in _error(r)["message"]


def test_floors_outside_a_repository_says_how_to_ask(cli, tmp_path):
    r = cli("floors", "--repo", tmp_path, "--json")
    assert r.exit_code == 2, r.output
    assert _error(r)["code"] == "memory/no-workspace"
    assert "; pass --repo PATH or --all (store: " in _error(r)["message"]


def test_recode_wins_over_the_errors_own_code_and_the_first_match_wins(capsys):
    with pytest.raises(typer.Exit) as ex:
        with common.reported(True, recode={KeyError: E.TOKEN_ERROR, LookupError: E.HOOKS_IO_ERROR}, hint="; fix it"):
            raise KeyError("k")
    assert ex.value.exit_code == 2
    assert json.loads(capsys.readouterr().out)["error"] == {"code": "token/error", "message": "'k'; fix it"}
    with pytest.raises(typer.Exit) as ex:  # not recoded: the error's own code and exit
        with common.reported(True, recode={OSError: E.HOOKS_IO_ERROR}):
            raise JgmError("gone", code=E.MEMORY_NO_WORKSPACE, exit_code=4)
    assert ex.value.exit_code == 4 and json.loads(capsys.readouterr().out)["error"]["code"] == "memory/no-workspace"


def test_a_bug_and_a_commands_own_exit_pass_through_reported():
    with pytest.raises(ZeroDivisionError):
        with common.reported(False):
            raise ZeroDivisionError()
    with pytest.raises(typer.Exit) as ex:  # never recoded, even by a catch-all
        with common.reported(False, recode={Exception: E.TOKEN_ERROR}):
            raise typer.Exit(7)
    assert ex.value.exit_code == 7


def test_answer_prints_json_or_the_lines_as_written(capsys):
    common.answer(True, {"a": [1]}, "never shown")
    assert json.loads(capsys.readouterr().out) == {"a": [1]}
    common.answer(False, {"a": [1]}, ["one [bold]x[/bold]", "two"])
    assert capsys.readouterr().out.splitlines() == ["one [bold]x[/bold]", "two"]  # no markup read
    common.answer(False, {}, "single")
    assert capsys.readouterr().out == "single\n"


def test_every_command_declares_repo_and_json_the_same_way():
    """Every `--repo PATH` and `--json` flag of the CLI has the same default and, unless it says something of
    its own, the same help as options.py declares it."""
    from jupiter_git_memory.surfaces.cli.main import app

    root = typer.main.get_command(app)  # typer carries its own click: the checks go by shape, not class
    seen: dict[str, list] = {"--repo": [], "--json": []}

    def walk(cmd) -> None:
        for p in cmd.params:
            for flag in seen:
                if flag in getattr(p, "opts", ()):
                    seen[flag].append(p)
        if hasattr(cmd, "list_commands"):
            ctx = cmd.context_class(cmd)
            for name in cmd.list_commands(ctx):
                walk(cmd.get_command(ctx, name))

    walk(root)
    assert len(seen["--repo"]) >= 20 and len(seen["--json"]) >= 30
    assert {p.default for p in seen["--json"]} == {False}
    assert {p.default for p in seen["--repo"] if not p.multiple} == {None}
    assert {p.help for p in seen["--repo"]} == {  # only the daemon's (a store) and serve's (repeatable) say more
        options.REPO_HELP,
        "Repository path whose store is meant (default: the current one).",
        "Repository to serve (repeatable; default: the current one).",
    }
    assert {p.help for p in seen["--json"]} <= {
        options.JSON_HELP,
        None,
        "Print one JSON object per line (ready, seed, stopped).",
    }
