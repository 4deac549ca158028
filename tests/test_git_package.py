"""Git lives in one package (issue 36): only jupiter_git_memory/git/ builds a git command line; the rest of
the package, the surfaces above all, calls its named operations. And each flag that guards the user's
repository is written once."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit  # raised by the fixtures a test uses (tests/tiers.py)

PACKAGE = Path(__file__).resolve().parent.parent / "jupiter_git_memory"
GIT_PACKAGE = PACKAGE / "git"
RAW_RUNNERS = {"git", "git_proc", "git_argv"}  # git/runner.py's command-line builders


def _outside() -> list[tuple[Path, ast.AST]]:
    return [
        (p, ast.parse(p.read_text("utf-8"), str(p)))
        for p in sorted(PACKAGE.rglob("*.py"))
        if GIT_PACKAGE not in p.parents
    ]


def _first_is_git(node: ast.AST) -> bool:
    return (
        isinstance(node, (ast.List, ast.Tuple))
        and bool(node.elts)
        and isinstance(node.elts[0], ast.Constant)
        and node.elts[0].value == "git"
    )


def git_argvs(tree: ast.AST) -> list[int]:
    """Lines where `tree` builds a git command line: a list or tuple starting with "git", or a raw runner of
    git/runner.py imported to pass it arguments."""
    found = [n.lineno for n in ast.walk(tree) if _first_is_git(n)]
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and (n.module or "").endswith("git.runner"):
            found += [n.lineno for a in n.names if a.name in RAW_RUNNERS]
        if isinstance(n, ast.ImportFrom) and (n.module or "").endswith("git") and n.level >= 1:
            found += [n.lineno for a in n.names if a.name == "runner"]
        if isinstance(n, ast.Attribute) and n.attr in RAW_RUNNERS and getattr(n.value, "id", "") == "runner":
            found.append(n.lineno)
    return found


def test_no_module_outside_the_git_package_builds_a_git_command_line():
    bad = [f"{p.relative_to(PACKAGE)}:{line}" for p, tree in _outside() for line in git_argvs(tree)]
    assert not bad, bad


def test_the_scan_sees_each_way_of_building_one():
    """The check above must be able to fail: each form the package used before git/ existed is caught."""
    samples = [
        'run(["git", "-C", str(root), "merge-base", "--is-ancestor", old, new])',
        'subprocess.run(("git", "status"), env=env, timeout=1)',
        "from ..git.runner import git",
        "from ...git import runner",
    ]
    for src in samples:
        assert git_argvs(ast.parse(src)), src
    assert not git_argvs(ast.parse('run(["gh", "pr", "create"]); x = ["status", "git"]'))


def _constants(value: str) -> list[str]:
    return [
        str(p.relative_to(PACKAGE))
        for p in sorted(PACKAGE.rglob("*.py"))
        for n in ast.walk(ast.parse(p.read_text("utf-8")))
        if isinstance(n, ast.Constant) and n.value == value
    ]


def test_the_flags_that_guard_the_users_repository_are_written_once():
    """`--no-optional-locks` (a seed next to the user's git must not take index.lock) and `--porcelain=v1`
    (the one `git status` a seed and drift share) in git/state.py; `--end-of-options` (a revision the user
    typed is never read as an option) in git/revisions.py."""
    assert _constants("--no-optional-locks") == ["git/state.py"]
    assert _constants("--porcelain=v1") == ["git/state.py"]
    assert _constants("--end-of-options") == ["git/revisions.py"]
