"""SQL lives in index/ (issue 36): no module of the application layer or of a surface imports sqlite3 or
runs a statement, so a query is one named method of the catalog, not a string some surface writes again."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import jupiter_git_memory

pytestmark = pytest.mark.unit  # raised by the fixtures a test uses (tests/tiers.py)

PACKAGE = Path(jupiter_git_memory.__file__).parent
RUNS_SQL = {"execute", "executemany", "executescript"}


def sql_users(folder: Path) -> list[str]:
    """`file:line` of each sqlite3 import and each `.execute*(...)` call under `folder`."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            runs = isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in RUNS_SQL
            if runs or any(n == "sqlite3" or n.startswith("sqlite3.") for n in names):
                found.append(f"{path.relative_to(folder)}:{node.lineno}")
    return found


def test_no_surface_and_no_app_module_touches_sqlite():
    assert sql_users(PACKAGE / "surfaces") == []
    assert sql_users(PACKAGE / "app") == []


def test_the_scan_sees_an_import_and_a_statement(tmp_path):
    (tmp_path / "a.py").write_text("import os\nimport sqlite3 as db\n")
    (tmp_path / "b.py").write_text("def f():\n    from sqlite3 import connect\n")
    (tmp_path / "c.py").write_text("def g(cat):\n    return cat._db.execute('SELECT 1')\n")
    assert sql_users(tmp_path) == ["a.py:2", "b.py:2", "c.py:2"]
