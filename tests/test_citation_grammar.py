"""The citation grammar (records/citations.parse) and the region texts drift compares (records/regions.py),
as data in and data out (issue 37, item 1)."""

from __future__ import annotations

import pytest

from jupiter_git_memory.records import regions
from jupiter_git_memory.records.citations import citations_of, governs, parse

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("ref", "kind", "path", "region"),
    [
        ("src/a.py", "file", "src/a.py", None),
        ("./src//a.py", "file", "src/a.py", None),
        ("src/", "folder", "src/", None),
        ("src/**/*.py", "glob", "src/**/*.py", None),
        ("src/[ab].py", "glob", "src/[ab].py", None),
        ("src/notes[draft/2].md", "file", "src/notes[draft/2].md", None),  # a `[…]` across a `/`: a name
        ("src/a.py:22", "line", "src/a.py", (22, 22)),
        ("src/a.py:22:5", "line", "src/a.py", (22, 22)),
        ("src/a.py:10-40", "range", "src/a.py", (10, 40)),
        ("src/a.py#L10-L40", "range", "src/a.py", (10, 40)),
        ("src/a.py#L7", "line", "src/a.py", (7, 7)),
        ("src/a.py::total", "symbol", "src/a.py", "total"),
        ("src/a.py::Invoice.total", "symbol", "src/a.py", "Invoice.total"),
        ("tests/test_a.py::test_pay[eur-2]", "symbol", "tests/test_a.py", "test_pay"),
        ("tests/test_a.py::TestPay::test_eur[a::b]", "symbol", "tests/test_a.py", "TestPay.test_eur"),
        ("https://ci.example.com/run/7#L3", "url", None, None),
        ("commit 4f2a9c1", "commit", None, None),
        ("4f2a9c1d", "commit", None, None),
        ("PAY-42", "ticket", None, None),
        ("#118", "ticket", None, None),
        ("shop/app#7", "ticket", None, None),
        ("the load test of May", "text", None, None),
        ("/var/reports/load.html", "external", None, None),
        ("~/reports/load.html", "external", None, None),
        ("../other-repo/x.py", "external", None, None),
        ("C:\\reports\\load.html", "external", None, None),
        ("src/a.py:0", "text", None, None),  # no line 0: not a region, and no path
    ],
)
def test_each_form_of_citation_is_read_as_written(ref, kind, path, region):
    c = parse(ref)
    assert (c.kind, c.path) == (kind, path)
    if isinstance(region, tuple):
        assert (c.start, c.end) == region
    elif region:
        assert c.symbol == region
    assert c.external == (path is None)


def test_a_region_governs_its_file_and_external_evidence_governs_nothing():
    assert governs("src/a.py::total", "src/a.py") == "exact"
    assert governs("src/a.py:10-40", "src/a.py") == "exact"
    assert governs("/var/reports/load.html", "var/reports/load.html") is None
    assert governs("PAY-42", "PAY-42") is None


def test_a_record_never_cites_its_own_file():
    data = {"path": "doc/adr/0001-x.md", "source": "doc/adr/0001-x.md", "citations": []}
    assert citations_of(data) == []
    data = {"path": "knowledge/d.md", "citations": ["knowledge/d.md", "src/a.py", "knowledge/d.md::x"]}
    assert citations_of(data) == ["src/a.py", "knowledge/d.md::x"]


PY = """\
import os


@cached
def total(items):
    return sum(items)


class Invoice:
    RATE = 2

    def total(self):
        return self.net * self.RATE
"""


def test_python_symbols_by_ast_with_decorators_members_and_constants():
    assert regions.symbol_span(PY, "a.py", "total") == (4, 6)
    assert regions.symbol_span(PY, "a.py", "Invoice.total") == (12, 13)
    assert regions.symbol_span(PY, "a.py", "Invoice.RATE") == (10, 10)
    assert regions.symbol_span(PY, "a.py", "nothing") is None


@pytest.mark.parametrize(
    ("path", "text", "name", "span"),
    [
        (
            "a.js",
            "const x = 1;\nexport async function pay(a) {\n  if (a) {\n    return 1;\n  }\n}\nfunction b() {}\n",
            "pay",
            (2, 6),
        ),
        ("a.go", "package a\n\nfunc (s *Shop) Pay(n int) int {\n\treturn n\n}\n", "Pay", (3, 5)),
        ("a.rs", "pub fn pay(n: u32) -> u32 {\n    n\n}\nfn other() {}\n", "pay", (1, 3)),
        ("a.rb", "class Shop\n  def pay(n)\n    n\n  end\n\n  def other\n  end\nend\n", "Shop.pay", (2, 4)),
        ("a.ts", "class Shop {\n  total() {\n    return 1;\n  }\n}\ninterface Pay {\n  n: number;\n}\n", "Pay", (6, 8)),
    ],
)
def test_other_languages_by_the_declaration_regex(path, text, name, span):
    assert regions.symbol_span(text, path, name) == span


def test_a_range_is_followed_through_a_shift_and_drifts_only_on_a_change_inside():
    old = "a\nb\nc\nd\ne\n"
    assert regions.follow_range(old, "new\nnew\na\nb\nc\nd\ne\n", 3, 4) == (False, 5, 6)
    assert regions.follow_range(old, "a\nb\nc\nd\nE\n", 3, 4) == (False, 3, 4)  # below it
    assert regions.follow_range(old, "a\nb\nC\nd\ne\n", 3, 4)[0] is True
    assert regions.follow_range(old, "a\nb\nc\nx\nd\ne\n", 3, 4)[0] is True  # a line inserted inside
    assert regions.follow_range(old, "a\nb\n   c   \n\nd\ne\n", 3, 4)[0] is False  # whitespace, a blank line
    assert regions.find_block("x\n\nc\n\n  d\n", regions.region(old, 3, 4)) == (3, 5)


def test_whitespace_and_import_edits_are_no_change_to_a_whole_file():
    old = "import os\n\ndef f():\n    return 1\n"
    tidy = "import os\nimport sys\nfrom typing import (\n    Any,\n)\n\n\ndef f():\n  return   1\n"
    assert regions.change_size(old, tidy, "a.py") == (0, 2)
    assert regions.change_size("#include <a.h>\nint x;\n", "#include <b.h>\n\nint  x;\n", "a.c") == (0, 1)
    assert regions.change_size(old, old.replace("return 1", "return 2"), "a.py") == (1, 2)
    assert regions.change_size(None, "x = 1\ny = 2\n", "a.py") == (2, 0)  # added: every line counts


@pytest.mark.parametrize(
    ("changed", "base", "drifts"),
    [
        (0, 0, False),
        (1, 1, True),
        (1, 4, False),
        (2, 4, True),
        (4, 40, False),
        (5, 40, True),
        (29, 300, False),
        (30, 300, True),
    ],
)
def test_the_size_rule(changed, base, drifts):
    assert regions.file_drifted(changed, base) is drifts


class DictTexts:
    """records/drift_judge.Texts over dicts: texts by (rev, path), `None` the view."""

    def __init__(self, texts: dict, trees: dict | None = None, tops: set | None = None):
        self.texts, self.trees, self.tops = texts, trees or {}, tops or set()

    def prefetch(self, specs) -> None:
        list(specs)

    def text(self, rev, path):
        return self.texts.get((rev, path))

    def paths_at(self, rev):
        return self.trees.get(rev, [])

    def ever_had(self, top):
        return top in self.tops

    def search(self, needle, symbol):
        return sorted({p for (rev, p), t in self.texts.items() if rev is None and needle in t})


def _judge(refs, texts, view_files, changed, gone=frozenset()):
    from jupiter_git_memory.records.drift_judge import judge, parsed
    from jupiter_git_memory.records.pathset import PathSet

    repo, external = parsed(refs)
    files = PathSet(view_files)
    covered = {
        c.ref: ([c.path] if files.has(c.path) else []) if c.symbol or c.start else files.covered(c.path) for c in repo
    }
    return {v.ref: v.public() for v in judge(repo, covered, set(changed), set(gone), "B", texts)}, external


def test_judging_a_range_that_moved_to_another_file_and_symbols_gone_or_changed_elsewhere():
    old = "a = 1\ndef f():\n    return 1\n\ndef g():\n    return 2\n"
    texts = DictTexts(
        {
            ("B", "src/x.py"): old,
            (None, "src/x.py"): "a = 1\n",
            (None, "src/y.py"): "import os\n\ndef f():\n    return 1\n\ndef g():\n    return 3\n",
        }
    )
    got, _ = _judge(["src/x.py:2-3", "src/x.py::g", "src/x.py::h"], texts, ["src/x.py", "src/y.py"], ["src/x.py"])
    assert got["src/x.py:2-3"] == {"ref": "src/x.py:2-3", "kind": "range", "state": "moved", "at": "src/y.py:3-4"}
    assert got["src/x.py::g"]["state"] == "drifted" and got["src/x.py::g"]["at"] == "src/y.py::g"
    assert got["src/x.py::h"]["state"] == "unresolved"  # never declared at the baseline: `jgm check`'s


def test_judging_paths_that_name_nothing_now():
    texts = DictTexts({}, trees={"B": ["src/old.py"]}, tops={"src"})
    got, external = _judge(
        ["src/old.py", "src/never.py", "reports/load.html", "https://x.org", "PAY-1"], texts, ["src/a.py"], []
    )
    assert got["src/old.py"]["state"] == "missing"  # existed at the baseline
    assert got["src/never.py"]["state"] == "unresolved"  # under a folder the repository has
    assert got["reports/load.html"]["state"] == "external"  # a folder it never had
    assert external == ["https://x.org", "PAY-1"]


def test_judging_a_folder_sums_its_changed_files_and_counts_a_deleted_one():
    small = "".join(f"v{i} = {i}\n" for i in range(40))
    texts = DictTexts(
        {
            ("B", "src/a.py"): small,
            (None, "src/a.py"): small.replace("v1 = 1", "v1 = 2"),
            ("B", "src/b.py"): small,
            (None, "src/b.py"): small.replace("v2 = 2", "v2 = 3"),
            ("B", "src/c.py"): "".join(f"w{i} = {i}\n" for i in range(8)),
        }
    )
    files = ["src/a.py", "src/b.py"]
    got, _ = _judge(["src/"], texts, files, ["src/a.py", "src/b.py"])
    assert got["src/"]["state"] == "fresh" and got["src/"]["lines"] == 2  # 2 of 80 lines
    got, _ = _judge(["src/"], texts, files, ["src/a.py", "src/b.py", "src/c.py"], gone=["src/c.py"])
    assert got["src/"]["state"] == "drifted" and got["src/"]["lines"] == 10  # a deleted file counts whole
