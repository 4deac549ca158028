"""Citation globs match in linear time (issue 35 item 9): a glob with sixteen nested `**/` made the old
backtracking regex take exponential time (a seed that never finished, `governs` over 120 s). The matcher
(records/globs.py) must answer exactly as the old regex did on ordinary globs, and fast on any glob."""

from __future__ import annotations

import re
import time

import hypothesis.strategies as hs
import pytest
from hypothesis import given, settings

from jupiter_git_memory.recall.service import Recaller
from jupiter_git_memory.recall.task import recall_task
from jupiter_git_memory.records.citations import governs
from jupiter_git_memory.records.drift import PathSet
from jupiter_git_memory.records.globs import Glob, glob_match
from jupiter_git_memory.seed.seeder import Seeder

pytestmark = pytest.mark.unit

NESTED = "**/" * 16 + "*.zzz"
DEEP = "/".join(f"d{i}" for i in range(40))  # 40 folders: the old regex would need centuries on a miss


def old_glob_regex(pattern: str) -> re.Pattern[str]:
    """The matcher before issue 35 item 9, verbatim: the oracle for ordinary globs."""
    out, i, n = [], 0, len(pattern)
    while i < n:
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:[^/]+/)*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[" and "]" in pattern[i + 2 :]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1 : end]
            out.append("[" + ("^" + re.escape(body[1:]) if body.startswith("!") else re.escape(body)) + "]")
            i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    return re.compile("".join(out) + r"\Z")


# small pieces that exercise every construct: `**/`, `**`, `*`, `?`, classes (negated, with `/`, `-`, `]`),
# an unclosed `[`, literals, dots, a newline (which `**` alone does not cross) and empty folders
_PAT = hs.sampled_from(["a", "b", ".", "/", "*", "**", "**/", "?", "[ab]", "[!a]", "[/]", "[a-c]", "[]a]", "[", "\n"])
_PATH = hs.sampled_from(["a", "b", "c", "-", ".", "/", "]", "!", "\n", "ab", "a/", "/b"])


@settings(max_examples=3000, deadline=None)
@given(hs.lists(_PAT, max_size=8), hs.lists(_PATH, max_size=10))
def test_the_matcher_answers_as_the_old_regex_on_ordinary_globs(pat, path):
    pattern, text = "".join(pat), "".join(path)
    if pattern.count("**/") > 3:  # the old regex is too slow to be the oracle there
        return
    try:
        old = old_glob_regex(pattern)
    except re.error:  # `[!]`: the old regex could not compile it (it now means the character `!`)
        return
    want = bool(old.match(text))
    assert glob_match(pattern, text) == want and Glob(pattern).run(text) == want, (pattern, text)


def test_sample_globs_keep_their_meaning():
    assert glob_match("src/**/*.py", "src/a.py") and glob_match("src/**/*.py", "src/a/b/c.py")
    assert not glob_match("src/**/*.py", "src//a.py") and not glob_match("src/*.py", "src/a/b.py")
    assert glob_match("docs/**", "docs/") and glob_match("a**b", "a/x/b") and not glob_match("a**b", "a\nb")
    assert glob_match("x[!a]y", "x/y") and glob_match("[a-c]", "-") and not glob_match("[a-c]", "b")
    assert glob_match("[!]", "!") and glob_match("a[b", "a[b")  # never compiled before / an unclosed `[`


def test_a_deeply_nested_glob_answers_at_once_whatever_the_path():
    """A correctness guard against exponential time (not a speed target): generous bound."""
    paths = [f"{DEEP}/f.py", f"{DEEP}/f.zzz", f"{DEEP}/" + "x" * 500, "a" * 2000]
    paths.append("x" * 3000 + "/a" * 3000)  # `*x**/y`: a `*` then a `**/` would retry every folder count
    for pattern in (NESTED, "**" * 16 + ".zzz", "*a" * 16 + "b", "**/*a" * 16 + "/b", "?**/" * 16 + "z", "*x**/y"):
        t = time.perf_counter()
        got = [glob_match(pattern, p) for p in paths] + [Glob(pattern).run(p) for p in paths]
        assert time.perf_counter() - t < 2.0, pattern
        assert got[0] is False and got[: len(paths)] == got[len(paths) :]
    assert glob_match(NESTED, f"{DEEP}/f.zzz") and glob_match(NESTED, "f.zzz")
    t = time.perf_counter()
    assert governs(NESTED, f"{DEEP}/f.py") is None and governs(NESTED, f"{DEEP}/f.zzz") == "glob"
    ps = PathSet([f"{DEEP}/f{i}.py" for i in range(200)] + [f"{DEEP}/f.zzz"])
    assert ps.covered(NESTED) == [f"{DEEP}/f.zzz"] and ps.names_any(NESTED)
    assert time.perf_counter() - t < 2.0


def test_the_prefilter_never_answers_for_the_automaton():
    """`match` first rules paths out in C (literal runs in order, the first and last as start and end, a final
    class, the folder count); it must only ever say no where the automaton says no."""
    import random

    rng = random.Random(9)
    names = ["src", "a", "b.py", "x.zzz", "ab", "ba", "p", "z", "", "a\nb", "[", "!"]
    paths = ["/".join(rng.choice(names) for _ in range(rng.randint(1, 7))) for _ in range(600)]
    globs = [
        "**/" * 4 + "*.zzz",
        "*a" * 4 + "b",
        "**/*a" * 3 + "/b",
        "?**/" * 4 + "z",
        "*/" * 3 + "*",
        "a*b*a",
        "[!/]*[!a]**/" * 3 + "[pz]",
        "?*?*/" * 2 + "**",
        "src/*/*.py",
        "*/[!a]",
        "ab",
        "a[!b]",
        "a**b",
        "*x**/y",
    ]
    for pattern in globs:
        glob = Glob(pattern)
        assert [glob.match(p) for p in paths] == [glob.run(p) for p in paths], pattern
        assert [glob.match(p) for p in paths] == [bool(old_glob_regex(pattern).match(p)) for p in paths], pattern


def test_a_record_citing_a_deeply_nested_glob_seeds_and_governs_its_files(repo):
    deep = "/".join(f"d{i}" for i in range(24))
    repo.write(f"{deep}/table.zzz", "rows\n")
    repo.write(f"{deep}/other.py", "x = 1\n")
    for i in range(30):
        repo.write(f"src/{deep[:30]}/m{i}.py", "y = 2\n")
    repo.record(
        "dec-zzz-tables",
        title="Tables are kept in zzz files",
        source=f'["{NESTED}"]',
        body="Every table lives in a .zzz file next to the code that reads it.",
    )
    repo.commit("records")
    t = time.perf_counter()
    report = Seeder(repo.path).seed()
    assert not report.errors, report.errors
    assert time.perf_counter() - t < 120  # before: did not finish in 240 s
    rc = Recaller(repo.path)
    res = recall_task(rc, "tidy up", files=[f"{deep}/table.zzz"])
    got = {r["id"]: r for r in res["results"]}
    assert "dec-zzz-tables" in got
    assert got["dec-zzz-tables"]["governs"] == [{"file": f"{deep}/table.zzz", "reason": f"cites {NESTED} (glob)"}]
    res = recall_task(rc, "tidy up", files=[f"{deep}/other.py"])
    assert "dec-zzz-tables" not in {r["id"] for r in res["results"] if r.get("governs")}
