"""No import circles between the modules of jupiter_git_memory (issue 36).

The layers contract (test_layers.py) orders packages; it cannot see two modules of one package importing
each other. A circle means neither module can be understood, tested or moved without the other, and it once
let a read build a second `Recaller` inside the first (recall: service -> freshness -> calibrate -> service).

Every import counts: top-level ones, lazy ones inside a function (a circle hidden in a function body is
still a circle), and ones under `if TYPE_CHECKING:` (moving an import there hides a circle from the
interpreter, not from the reader; a type that both sides need belongs in a module below both).
The graph is grimp's (import-linter's own parser), built from the source files, nothing imported.
"""

from __future__ import annotations

import textwrap

import grimp
import pytest

from jupiter_git_memory.lifecycle.resolve import _cycle_members

pytestmark = pytest.mark.unit  # raised by the fixtures a test uses (tests/tiers.py)


def circles(package: str) -> list[str]:
    """Every module of `package` that can reach itself through imports (the members of its strongly connected
    components, by the Tarjan walk lifecycle/resolve.py runs on supersede chains), sorted."""
    graph = grimp.build_graph(package, cache_dir=None)  # exclude_type_checking_imports=False: they count
    edges = {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    return sorted(_cycle_members(edges, set(edges)))


def explain(package: str, members: list[str]) -> str:
    """Each import that closes a circle (its target imports its way back), with its line: what to move down
    or hand in."""
    graph = grimp.build_graph(package, cache_dir=None)
    lines = []
    for a in members:
        for b in sorted(graph.find_modules_directly_imported_by(a)):
            if b in members and graph.chain_exists(importer=b, imported=a):
                for d in graph.get_import_details(importer=a, imported=b):
                    lines.append(f"  {a}:{d['line_number']} imports {b}: {d['line_contents']}")
    return "\n".join(lines)


def test_no_import_circles():
    found = circles("jupiter_git_memory")
    assert not found, "import circles (move what both need to a module below them, or hand it in):\n" + explain(
        "jupiter_git_memory", found
    )


def test_a_circle_is_found_however_it_is_hidden(tmp_path, monkeypatch):
    """The check itself: a lazy import and a TYPE_CHECKING one still close a circle; a one-way chain does not."""
    pkg = tmp_path / "circpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from .b import g\n    return g()\n")
    (pkg / "b.py").write_text(
        textwrap.dedent("""\
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from .c import C
        def g(): return 1
        """)
    )
    (pkg / "c.py").write_text("from . import a\nclass C: pass\n")
    (pkg / "d.py").write_text("from . import a\n")  # imports into the circle, not part of it
    monkeypatch.syspath_prepend(str(tmp_path))
    assert circles("circpkg") == ["circpkg.a", "circpkg.b", "circpkg.c"]
    assert "circpkg.b:3 imports circpkg.c" in explain("circpkg", ["circpkg.a", "circpkg.b", "circpkg.c"])
    (pkg / "c.py").write_text("class C: pass\n")  # the circle broken: the type lives below both
    assert circles("circpkg") == []
