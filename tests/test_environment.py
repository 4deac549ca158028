"""Every `JGM_*` variable jgm reads is defined once, in base/environment.py (issue 36), as error codes are in
base/error_codes.py: the source reads none the table lacks, reads none except through it, and the table in
docs/configuration.md is generated from it."""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest

from jupiter_git_memory.base import environment
from jupiter_git_memory.base.environment import VARIABLES

pytestmark = pytest.mark.unit  # raised by the fixtures a test uses (tests/tiers.py)

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "jupiter_git_memory"
TABLE = PACKAGE / "base" / "environment.py"
NAME = re.compile(r"JGM_[A-Z][A-Z0-9_]*")
# named in the source but not read from the environment: the hook shim's own shell variable, written into it
# at install, and the example of a name that is *not* a setting
NOT_VARIABLES = {"JGM_PYTHON", "JGM_FLOOR"}


def _strings(path: Path) -> list[tuple[int, str]]:
    return [
        (n.lineno, n.value)
        for n in ast.walk(ast.parse(path.read_text("utf-8")))
        if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]


def named_in_source() -> dict[str, str]:
    """Every JGM_* name in the package's strings (messages, docstrings, help) and its shell hooks: where."""
    found: dict[str, str] = {}
    for p in sorted(PACKAGE.rglob("*.py")):
        for line, text in _strings(p):
            for name in NAME.findall(text):
                found.setdefault(name, f"{p.relative_to(ROOT)}:{line}")
    for p in sorted((PACKAGE / "freshness" / "hook_scripts").iterdir()):
        for name in re.findall(r"\$\{?(JGM_[A-Z][A-Z0-9_]*)", p.read_text("utf-8")):
            found.setdefault(name, str(p.relative_to(ROOT)))
    return found


def bare_names(path: Path) -> list[str]:
    """The string constants of `path` that are a whole variable name (what os.environ.get, a dict key or
    typer's envvar= take): reading a variable without its entry."""
    return [f"{path.relative_to(ROOT)}:{line} {text}" for line, text in _strings(path) if NAME.fullmatch(text)]


def test_every_variable_the_source_names_is_in_the_table():
    missing = {n: where for n, where in named_in_source().items() if n not in VARIABLES and n not in NOT_VARIABLES}
    assert not missing, f"add these to jupiter_git_memory/base/environment.py: {missing}"
    assert not NOT_VARIABLES & set(VARIABLES)


def test_variables_are_read_only_through_the_table():
    bad = [b for p in sorted(PACKAGE.rglob("*.py")) if p != TABLE for b in bare_names(p)]
    assert not bad, f"read these through jupiter_git_memory/base/environment.py: {bad}"


def test_the_scans_can_fail(tmp_path):
    """Both checks see what they look for: an unlisted name in a message, a bare read."""
    p = tmp_path / "m.py"
    p.write_text('import os\nx = os.environ.get("JGM_NEW")\ny = f"set JGM_OTHER={x}"\n')
    names = {n for _, t in _strings(p) for n in NAME.findall(t)}
    assert names == {"JGM_NEW", "JGM_OTHER"} and not names & set(VARIABLES)
    assert len([t for _, t in _strings(p) if NAME.fullmatch(t)]) == 1


def test_the_settings_read_from_the_environment_are_the_tables_settings():
    from jupiter_git_memory.config.schema import ENV_KEYS, ENV_PREFIX

    assert ENV_PREFIX == environment.PREFIX
    assert {ENV_PREFIX + k.upper() for k in ENV_KEYS} == {v.name for v in VARIABLES.values() if v.setting}


def test_defaults_the_table_states_are_the_codes():
    from jupiter_git_memory.surfaces.agent.hook import DEADLINE_SECONDS
    from jupiter_git_memory.surfaces.daemon.client import ANSWER_TIMEOUT

    assert float(environment.DAEMON_TIMEOUT.default) == ANSWER_TIMEOUT
    assert float(environment.HOOK_DEADLINE.default) == DEADLINE_SECONDS


def test_a_variable_is_read_from_the_environment_given(monkeypatch):
    monkeypatch.setenv("JGM_THREADS", "3")
    assert environment.THREADS.get() == "3" and environment.THREADS.get({}) is None
    monkeypatch.delenv("JGM_THREADS")
    assert environment.THREADS.get() is None and environment.THREADS.get_or(0) == 0
    assert environment.HOOK_SYNC.get_or("x", {"JGM_HOOK_SYNC": "1"}) == "1"


def test_the_generated_table_in_docs_is_current():
    spec = importlib.util.spec_from_file_location("env_reference", ROOT / ".ci" / "env_reference.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    doc = (ROOT / "docs" / "configuration.md").read_text("utf-8")
    assert mod.replaced(doc) == doc, "run `python .ci/env_reference.py --write`"
    for name in VARIABLES:
        assert f"| `{name}` |" in doc


def test_the_cli_options_read_from_the_environment_name_table_variables():
    """typer reads `--agent` / `--session` from JGM_AGENT / JGM_SESSION itself: those names come from the table."""
    import click
    import typer

    from jupiter_git_memory.surfaces.cli.main import app

    def walk(cmd: click.Command):
        yield cmd
        for sub in getattr(cmd, "commands", {}).values():
            yield from walk(sub)

    envvars = {p.envvar for c in walk(typer.main.get_command(app)) for p in c.params if p.envvar}
    assert {environment.AGENT.name, environment.SESSION.name} <= envvars
    assert envvars <= set(VARIABLES), envvars - set(VARIABLES)
