"""Fast paths a no-op reseed takes for every file give exactly the answers of the generic code they replace."""

import fnmatch
from pathlib import PurePosixPath

from hypothesis import given, settings
from hypothesis import strategies as st

from jupiter_git_memory.config import DEFAULT_IGNORE
from jupiter_git_memory.seed.sources import _match

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
