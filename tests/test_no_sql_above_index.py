"""SQL lives in index/ (issue 36): no module of the application layer or of a surface imports sqlite3,
so a query is one named method of the catalog, not a string some surface writes again."""

from __future__ import annotations

import ast
from pathlib import Path

import jupiter_git_memory

PACKAGE = Path(jupiter_git_memory.__file__).parent


def sqlite_importers(folder: Path) -> list[str]:
    found = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            if any(n == "sqlite3" or n.startswith("sqlite3.") for n in names):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    return found


def test_no_surface_and_no_app_module_imports_sqlite3():
    assert sqlite_importers(PACKAGE / "surfaces") == []
    assert sqlite_importers(PACKAGE / "app") == []


def test_the_scan_sees_an_import(tmp_path):
    (tmp_path / "a.py").write_text("import os\nimport sqlite3 as db\n")
    (tmp_path / "b.py").write_text("def f():\n    from sqlite3 import connect\n")
    global PACKAGE
    kept, PACKAGE = PACKAGE, tmp_path
    try:
        assert sqlite_importers(tmp_path) == ["a.py:2", "b.py:2"]
    finally:
        PACKAGE = kept
