"""Hostile record files (issue 10, items 1-3 and 7): no value, nesting, alias or file name stops a seed;
each bad file is named with its line, and `jgm check` agrees with the seed on what is an error.

The hypothesis test drives real seeds over real git repos with generated frontmatter values and file
names; its examples are bounded so it runs in CI.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
import yaml
from cli_helpers import jgm_in
from conftest import Repo, record_text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reliability_helpers import snapshot

from jupiter_git_memory.records.parse import parse_record
from jupiter_git_memory.seed.seeder import Seeder

pytestmark = pytest.mark.unit

FENCE = "---\nid: {id}\nkind: decision\nstatus: accepted\ntitle: {title}\n{extra}---\nBody of {id}.\n"


def rec(rid: str, title: str | None = None, extra: str = "") -> str:
    return FENCE.format(id=rid, title=title or f"Record {rid}", extra=extra)


def alias_bomb(levels: int) -> str:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels + 1):
        prev = f"*a{i - 1}"
        lines.append(f"a{i}: &a{i} [{', '.join([prev] * 9)}]")
    return "\n".join(lines) + "\n"


HOSTILE = {  # file -> (text, line the error must name)
    "knowledge/deep.md": (rec("deep", extra="x: " + "[" * 5000 + "]" * 5000 + "\n"), 6),
    "knowledge/surrogate.md": (rec("surrogate", title='"bad \\ud800 title"'), 5),
    "knowledge/bomb.md": (rec("bomb", extra=alias_bomb(9)), 6),
    "knowledge/bigint.md": (rec("bigint", extra="n: " + "9" * 6000 + "\n"), 6),
    "knowledge/merge.md": (rec("merge", extra="<<: {id: 0012, title: yes, supersedes: 0x1F}\n"), 6),
}
BAD_NAME = b"knowledge/name-\xff.md"


def hostile_repo(repo: Repo) -> set[str]:
    good = {"good-1", "good-2", "bad-date"}
    for rid in good - {"bad-date"}:
        repo.record(rid, title=f"Good record {rid}", body=f"The {rid} record is fine.")
    repo.write("knowledge/bad-date.md", rec("bad-date", extra="date: 2024-13-45\n"))  # a warning, kept (issue 40)
    for path, (text, _line) in HOSTILE.items():
        repo.write(path, text)
    Path(os.fsdecode(repo.path / os.fsdecode(BAD_NAME))).write_text(rec("bytename"), "utf-8")
    return good


@pytest.mark.e2e
def test_hostile_values_never_stop_a_seed_and_each_file_is_named(repo):
    good = hostile_repo(repo)
    repo.commit()
    rep = Seeder(repo.path).seed()
    by_path = {e["path"]: e for e in rep.errors}
    for path, (_text, line) in HOSTILE.items():
        assert by_path[path]["line"] == line, (path, by_path.get(path))
    assert "knowledge/name-\\xff.md" in by_path and "UTF-8" in by_path["knowledge/name-\\xff.md"]["message"]
    assert "anchor or alias" in by_path["knowledge/bomb.md"]["message"]
    assert "merge key (`<<`)" in by_path["knowledge/merge.md"]["message"]
    assert set(snapshot(repo.path)["records"]) == good
    (bad_date,) = [w for w in rep.warnings if w["path"] == "knowledge/bad-date.md"]
    assert bad_date["line"] == 6 and "not a real date" in bad_date["message"]
    rev = Seeder(repo.path).seed(rev="HEAD")  # Git objects: the same files, the same verdicts
    assert {e["path"] for e in rev.errors} == set(by_path)
    p = jgm_in("check", "--json", cwd=repo.path)  # check and seed agree on what is an error
    assert p.returncode == 1 and {e["path"] for e in json.loads(p.stdout)["errors"]} == set(by_path)


def test_aliases_and_anchors_are_refused_before_they_expand():
    out = parse_record("k/bomb.md", rec("bomb", extra=alias_bomb(12)).encode())
    (issue,) = out.issues
    assert "anchor or alias" in issue.message and issue.line == 6 and issue.path == "k/bomb.md"
    (issue,) = parse_record("k/a.md", rec("a", extra="x: &keep 1\n").encode()).issues
    assert issue.line == 6
    (issue,) = parse_record("k/m.md", rec("m", extra="base: {a: 1}\nother:\n  <<: *base\n").encode()).issues
    assert "anchor or alias" in issue.message


@pytest.mark.parametrize(
    "extra,needle",
    [  # the caps: 16 levels, 5,000 values, 64 KiB
        ("x: " + "[" * 17 + "]" * 17 + "\n", "nested more than"),
        ("x: [" + ", ".join(["1"] * 5001) + "]\n", "more than"),
        ("x: '" + "y" * (64 * 1024 + 1) + "'\n", "frontmatter limit"),
    ],
)
def test_frontmatter_depth_node_count_and_size_are_capped(extra, needle):
    (issue,) = parse_record("k/x.md", rec("x", extra=extra).encode()).issues
    assert needle in issue.message and issue.fix and issue.line


def test_ids_and_link_targets_are_read_as_written():
    text = (
        "---\nid: 0012\nkind: decision\nstatus: accepted\ntitle: 1.50\nsupersedes: [0011, yes, 1.50]\n"
        "superseded_by: 2024-01-02\ntags: [on, 010]\nrank: 0012\n---\nbody\n"
    )
    r = parse_record("k/x.md", text.encode()).record
    assert (r.id, r.title, r.supersedes, r.superseded_by, r.tags) == (
        "0012",
        "1.50",
        ("0011", "yes", "1.50"),
        ("2024-01-02",),
        ("on", "010"),
    )
    assert r.metadata["rank"] == 10  # other keys keep YAML 1.1 types (0012 is octal)
    assert parse_record("k/y.md", rec("yes").replace("id: yes", "id: yes").encode()).record.id == "yes"
    assert parse_record(
        "k/n.md", b"---\nid:\nkind: fact\nstatus: verified\ntitle: t\n---\n"
    ).issues  # null stays missing


def test_a_knowledge_root_that_links_out_of_the_repo_is_not_followed(repo, tmp_path):
    outside = tmp_path / "outside-kb"
    outside.mkdir()
    (outside / "leak.md").write_text(record_text("leaked", body="must never be indexed"), "utf-8")
    repo.record("inside", rel="docs/inside.md")
    repo.write("jgm.toml", 'roots = ["knowledge", "docs"]\n')
    os.symlink(outside, repo.path / "knowledge")
    repo.commit()
    rep = Seeder(repo.path).seed()
    assert [e["path"] for e in rep.errors] == ["knowledge"] and "outside the repository" in rep.errors[0]["message"]
    assert set(snapshot(repo.path)["records"]) == {"inside"}


# -------------------------------------------------------------------------------- fuzz through a real seed
text_values = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
safe_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | text_values | st.dates(),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text("abcxyz_", min_size=1, max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
name_chars = st.text(st.sampled_from("abcdefgh-_é日1"), max_size=8).map(lambda s: "d" + s)  # `_x` is ignored
HOSTILE_SNIPPETS = [t for t, _ in HOSTILE.values()] + [
    "---\nid: x\nkind: decision\nstatus: accepted\ntitle: [unclosed\n---\n",
    "---\n- a\n- b\n---\n",
    "---\nid: has space\nkind: decision\nstatus: accepted\ntitle: t\n---\n",
    "---\nid: y\nkind: fact\nstatus: accepted\ntitle: t\n---\n",
]


@st.composite
def kb_files(draw):
    """(files {relative bytes path: bytes}, good ids, bad paths as reported)."""
    files, good, bad = {}, set(), set()
    for i in range(draw(st.integers(1, 3))):
        rid = f"ok-{i}-{draw(st.text('abcdef0123', min_size=1, max_size=6))}"
        extra = (
            yaml.safe_dump(
                draw(st.dictionaries(st.sampled_from(["owner", "meta", "when", "n"]), safe_values, max_size=3)),
                allow_unicode=True,
            )
            if draw(st.booleans())
            else ""
        )
        name = f"knowledge/{draw(name_chars)}/{rid}.md"
        files[name.encode()] = rec(rid, title=f"Valid record {rid}", extra="" if extra == "{}\n" else extra).encode()
        good.add(rid)
    for i in range(draw(st.integers(1, 3))):
        if draw(st.booleans()):
            name = f"knowledge/bad-{i}-{draw(name_chars)}.md"
            files[name.encode()] = draw(st.sampled_from(HOSTILE_SNIPPETS)).replace("bad-date", f"bd{i}").encode()
            bad.add(name)
        else:
            files[
                b"knowledge/raw-"
                + str(i).encode()
                + b"\xfe"
                + draw(st.binary(max_size=3)).replace(b"/", b"").replace(b"\0", b"")
                + b".md"
            ] = rec(f"named-{i}").encode()
            bad.add(None)  # counted below: its reported path is the escaped name
    return files, good, bad


@settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@pytest.mark.integration
@given(kb_files())
def test_fuzz_valid_records_are_always_indexed_and_each_bad_file_is_named(tmp_path, case):
    files, good, bad = case
    repo = Repo(Path(tempfile.mkdtemp(dir=tmp_path)))
    for rel, data in files.items():
        p = os.fsencode(repo.path) + b"/" + rel
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data)
    rep = Seeder(repo.path).seed()
    reported = {e["path"] for e in rep.errors}
    named = {p for p in bad if p} | {rel.decode("utf-8", "backslashreplace") for rel in files if b"\xfe" in rel}
    assert named <= reported, (named - reported, rep.errors)
    assert good <= set(rep.added), rep.errors
