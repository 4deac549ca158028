"""The ignore matcher's fast path gives exactly what pathlib and fnmatch give (seed/sources.py `_match`)."""

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
