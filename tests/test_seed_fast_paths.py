"""Fast paths a no-op reseed takes for every file give exactly the answers of the generic code they replace."""

import fnmatch
from pathlib import PurePosixPath

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jupiter_git_memory.config import DEFAULT_IGNORE
from jupiter_git_memory.seed.sources import _match

pytestmark = [pytest.mark.unit, pytest.mark.plumbing]

_SEG = st.sampled_from(["docs", "adr", "README.md", "readme.md", "0000-template.md", "x.md", "a", ".", "", "b.txt"])
_PAT = st.sampled_from([*DEFAULT_IGNORE, "*.md", "docs/*", "a/**/x.md", "**/a", "adr/0000-*.md", "x.md", "*/x.md"])


def _old(path: str, pat: str) -> bool:
    p = PurePosixPath(path)
    return p.match(pat) or fnmatch.fnmatch(path, pat) or (pat.startswith("**/") and fnmatch.fnmatch(p.name, pat[3:]))


@settings(max_examples=600, deadline=None)
@given(st.lists(_SEG, min_size=1, max_size=5), _PAT)
def test_fast_match_is_pathlib_match(segments, pat):
    path = "/".join(segments).strip("/") or "x.md"
    assert _match(path, pat) == _old(path, pat)


def test_known_answers():
    assert _match("docs/adr/README.md", "**/README.md")
    assert _match("adr/0000-template.md", "**/0000-template.md")
    assert not _match("adr/0001-use-x.md", "**/README.md")
    assert _match("a/b/x.md", "b/x.md") and not _match("x.md", "b/x.md")


def test_record_to_dict_is_asdicts_answer():
    """`Record.to_dict` skips asdict's generic recursion; its answer must stay asdict's, nested metadata
    deep-copied (a stored row must not share a list with the parsed record)."""
    from dataclasses import asdict

    from jupiter_git_memory.records.model import LINK_KEYS, Record

    r = Record(
        "dec-x",
        "decision",
        "accepted",
        "T",
        "body",
        "knowledge/x.md",
        "h",
        supersedes=("dec-a",),
        tags=("a", "b"),
        metadata={"decision-makers": ["x", {"y": [1, 2]}], "date": "2026-12-01"},
        lines={"id": 2},
    )
    want = asdict(r)
    for k in LINK_KEYS + ("tags", "citations"):
        want[k] = list(want[k])
    got = r.to_dict()
    assert got == want and list(got) == list(want)
    got["metadata"]["decision-makers"][1]["y"].append(3)
    assert r.metadata["decision-makers"][1]["y"] == [1, 2]


_TEXT = st.text(
    alphabet=st.sampled_from(
        [
            "a",
            " ",
            "\t",
            "\n",
            "\r",
            "\x1b",
            "\x7f",
            "\x85",
            "\xa0",
            "\u200b",
            "\u202e",
            "\ufeff",
            "\u2028",
            "é",
            "\U0001f600",
            "\ud800",
        ]
    ),
    max_size=12,
)


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_hidden_chars_fast_path_is_the_per_character_answer(text):
    from jupiter_git_memory.records.text import hidden_chars, is_hidden

    assert hidden_chars(text) == [ch for ch in dict.fromkeys(text) if is_hidden(ch)]


def test_hidden_char_warnings_read_the_parsed_fields_not_only_the_file_text():
    """A YAML escape (`"\\u202e"`) puts a hidden character in a field that the file's text does not hold:
    the one-check shortcut over the fields must still see it, and a record without any says nothing."""
    from jupiter_git_memory.records.model import Record
    from jupiter_git_memory.records.text import hidden_char_warnings

    r = Record(
        "dec-x", "decision", "accepted", "Use \u202eSQL", "body\tand\nmore", "knowledge/x.md", "h", lines={"title": 2}
    )
    got = hidden_char_warnings(r, '---\ntitle: "Use \\u202eSQL"\n---\nbody\tand\nmore\n')
    assert [(i.line, "`title`" in i.message) for i in got] == [(2, True)]
    clean = Record("dec-y", "decision", "accepted", "Use SQL", "body\tand\nmore é \U0001f600", "knowledge/y.md", "h")
    assert hidden_char_warnings(clean, "") == []


def test_dirty_paths_from_the_shared_status_are_what_git_pathspecs_answer(repo):
    """One whole-worktree `git status` serves the seed's dirty paths and drift: filtered in Python, it must
    give what the roots as pathspecs gave (a shallow root's subfolders included, as git's pathspec does),
    for untracked, modified, deleted and renamed files, odd names, and nothing ignored or outside."""
    from jupiter_git_memory.config import Settings
    from jupiter_git_memory.git import drift as drift_git
    from jupiter_git_memory.seed import sources

    for rel in ("knowledge/a.md", "knowledge/old name.md", "docs/adr/0001-x.md", "src/app.py", "top.md", "sub/x.md"):
        repo.write(rel, "x\n")
    repo.write(".gitignore", "*.log\n")
    repo.commit("start")
    repo.write("knowledge/a.md", "changed\n")  # modified
    repo.git("mv", "knowledge/old name.md", "knowledge/néw näme.md")  # a rename: both paths, odd names
    repo.write("knowledge/deep/new file.md", "y\n")  # untracked, below a root
    repo.write("knowledge/debug.log", "ignored\n")  # ignored: never listed
    (repo.path / "docs/adr/0001-x.md").unlink()  # deleted
    repo.write("src/app.py", "outside the roots\n")
    repo.write("top.md", "changed\n")
    repo.write("sub/x.md", "changed under a shallow root\n")
    repo.write("knowledgebase/x.md", "a sibling whose name starts like a root\n")
    status = drift_git.status(repo.path)
    cases = [
        Settings(roots=("knowledge", "docs/adr")),
        Settings(roots=("./knowledge/", "docs//adr")),
        Settings(roots=(".",), shallow_roots=(".",)),
        Settings(roots=(".", "knowledge"), shallow_roots=(".",)),
        Settings(roots=("docs/*",)),  # a pattern: git answers
    ]
    for s in cases:
        assert sources.dirty_paths(repo.path, s, status) == sources.dirty_paths(repo.path, s), s.roots
    assert sources.dirty_paths(repo.path, cases[0], status) == {
        "knowledge/a.md",
        "knowledge/old name.md",
        "knowledge/néw näme.md",
        "knowledge/deep/new file.md",
        "docs/adr/0001-x.md",
    }
    assert "sub/x.md" in sources.dirty_paths(repo.path, cases[2], status)


def test_a_noop_seed_reads_git_status_once_and_still_sees_an_uncommitted_edit_to_cited_code(repo, monkeypatch):
    """The seed's single `git status` feeds both its dirty paths and its drift key: an uncommitted edit to a
    cited file after a seed drifts the record at the next (otherwise no-op) seed, a dirty file outside the
    roots marks no record dirty, and reverting the edit makes the record fresh again."""
    from jupiter_git_memory.git import drift as drift_git
    from jupiter_git_memory.git import state
    from jupiter_git_memory.seed.seeder import Seeder

    repo.write("src/pay.py", "A = 1\n")
    repo.record("dec-pay", title="Payments", source="src/pay.py", body="Payments live in src/pay.py.")
    repo.commit("start")
    s = Seeder(repo.path)
    s.seed()
    calls = []
    real_status, real_git_status = drift_git.status, state.status
    monkeypatch.setattr(drift_git, "status", lambda root: calls.append(root) or real_status(root))
    statuses = []  # every `git status` the seed runs, drift's included (git/state.status is the only one)
    monkeypatch.setattr(state, "status", lambda root, *a, **kw: statuses.append(a) or real_git_status(root, *a, **kw))
    repo.write("src/pay.py", "A = 2\n")  # cited, not committed
    rep = s.seed()
    # src/ is outside the roots: the view is not dirty, but the cited file's edit is seen
    assert statuses == [()], "a second `git status` for the dirty paths"
    assert len(calls) == 1 and not rep.dirty and rep.unchanged == 1 and not (rep.added or rep.updated)
    idx = s.open(view=rep.view, write=False)
    try:
        assert idx.catalog.drift()["dec-pay"]["state"] == "drifted"
        assert idx.catalog.record("dec-pay").dirty is False  # the record's own file is clean
    finally:
        idx.close()
    repo.write("src/pay.py", "A = 1\n")  # reverted: clean again
    rep = s.seed()
    idx = s.open(view=rep.view, write=False)
    try:
        assert idx.catalog.drift()["dec-pay"]["state"] == "fresh" and not rep.dirty
    finally:
        idx.close()


def test_version_chunks_in_batches_is_the_per_version_answer(repo, monkeypatch):
    """The seed asks the catalog for the stored chunks of every record version at once: batched, the answer
    (chunks in order, a version not stored absent, a chunk shared by two records under each) is the one a
    query per version gave."""
    from jupiter_git_memory.index import queries
    from jupiter_git_memory.seed.seeder import Seeder

    long_body = "\n\n".join(f"Paragraph {i} about invoices and their totals in cents. " * 12 for i in range(6))
    repo.record("dec-long", title="A long one", body=long_body)
    repo.record("dec-a", title="Same text", body="Shared words.")
    repo.record("dec-b", title="Same text", body="Shared words.")
    for i in range(4):
        repo.record(f"dec-{i}", title=f"Record {i}", body=f"Body {i}.")
    repo.commit("start")
    s = Seeder(repo.path)
    rep = s.seed()
    idx = s.open(view=rep.view, write=False)
    try:
        cat = idx.catalog
        keys = {(rid, r.content_hash) for rid, r in cat.records().items()} | {("dec-long", "no-such-hash")}

        def one_by_one(key):
            return [
                queries._chunk(r)
                for r in cat._db.execute(
                    "SELECT s.id, s.record_id, vc.ordinal, s.text_hash, s.text, s.body, vc.content_hash "
                    "FROM version_chunks vc JOIN chunk_store s ON s.id = vc.chunk_id "
                    "WHERE vc.record_id = ? AND vc.content_hash = ? ORDER BY vc.ordinal",
                    key,
                )
            ]

        want = {k: got for k in keys if (got := one_by_one(k))}
        monkeypatch.setattr(queries, "_BATCH", 2)  # several batches, one of them short
        got = cat.version_chunks(keys)
        assert got == want and len(want) == len(keys) - 1 and len(want[next(k for k in want if k[0] == "dec-long")]) > 1
    finally:
        idx.close()


def test_record_to_dict_with_flat_metadata_is_still_a_copy_and_nested_is_deep():
    """Flat metadata (strings, numbers, None) is copied without deepcopy's walk: the answer and its
    independence from the record are the same; a date or a list still goes through deepcopy."""
    import datetime
    from dataclasses import asdict

    from jupiter_git_memory.records.model import Record

    flat = Record(
        "a", "decision", "accepted", "T", "b", "k/a.md", "h", metadata={"x": "1", "n": 2, "f": 0.5, "z": None}
    )
    got = flat.to_dict()
    assert got["metadata"] == asdict(flat)["metadata"] and got["metadata"] is not flat.metadata
    got["metadata"]["x"] = "changed"
    assert flat.metadata["x"] == "1"
    dated = Record("b", "decision", "accepted", "T", "b", "k/b.md", "h", metadata={"date": datetime.date(2026, 12, 1)})
    assert dated.to_dict()["metadata"] == {"date": datetime.date(2026, 12, 1)}


def test_path_citations_remembered_per_citation_give_the_same_answer():
    from jupiter_git_memory.records.drift import _repo_path, path_citations

    refs = [
        "./src//a.py",
        "src/a.py",
        "docs/",
        "src/*.py",
        "https://x.org/a",
        "www.x.org",
        "../up.py",
        "a b",
        "abc1234",
    ]
    want = ["src/a.py", "docs/", "src/*.py"]
    assert path_citations(refs) == want and path_citations(refs) == want  # the second answer is from the cache
    assert _repo_path("../up.py") is None and _repo_path("www.x.org") is None
