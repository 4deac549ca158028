"""Bad input never crashes: every bad file is reported by path (and line where known), every good file is
still indexed, and an indexed record whose file turns bad keeps its last good version.

The pure parser is fuzzed with hypothesis (any bytes, frontmatter-shaped text, mutated records); the file
system cases run real seeds on real git repos.
"""

from __future__ import annotations

import json
import os

import pytest
import yaml
from cli_helpers import jgm_in
from conftest import record_text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reliability_helpers import assert_consistent, snapshot

from jupiter_git_memory.records.model import KNOWN_KEYS, MAX_RECORD_BYTES
from jupiter_git_memory.records.parse import parse_record
from jupiter_git_memory.seed.seeder import Seeder

pytestmark = pytest.mark.unit

FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PATH = "knowledge/fuzz.md"


def check_outcome(raw: bytes):
    out = parse_record(PATH, raw)  # must not raise
    assert sum([out.record is not None, out.skipped is not None, bool(out.issues)]) == 1
    for i in out.issues:
        assert i.path == PATH and i.message and i.fix and i.severity == "error"
        assert i.line is None or 1 <= i.line <= raw.count(b"\n") + 2
    if out.record:
        assert out.record.path == PATH and out.record.id and out.record.title is not None
        json.dumps(out.record.to_dict())  # what the catalog stores must serialise
    return out


@FUZZ
@given(st.binary(max_size=3000))
def test_parser_never_raises_on_any_bytes(raw):
    check_outcome(raw)


@FUZZ
@given(st.binary(max_size=600))
def test_parser_never_raises_on_bytes_inside_fences(raw):
    check_outcome(b"---\n" + raw + b"\n---\nbody\n")


yaml_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=30) | st.dates(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=8,
)
keys = st.sampled_from(sorted(KNOWN_KEYS) + ["owner", "123", "id "])


@FUZZ
@given(st.dictionaries(keys, yaml_values, max_size=10), st.text(max_size=200))
def test_parser_never_raises_on_wrongly_typed_frontmatter(meta, body):
    text = "---\n" + yaml.safe_dump(meta, allow_unicode=True) + "---\n" + body
    out = check_outcome(text.encode("utf-8", "surrogatepass"))
    required = {"id", "kind", "status", "title"}
    if not required <= {k for k, v in meta.items() if v not in (None, "")}:
        assert out.record is None


VALID = record_text(
    "dec-ok", title="A valid record", body="Some body text.\n\n## Heading\n\nMore.", supersedes="dec-old", tags="[a, b]"
).encode()


@FUZZ
@given(st.lists(st.tuples(st.integers(0, len(VALID)), st.integers(0, 8), st.binary(max_size=6)), max_size=4))
def test_parser_never_raises_on_mutated_records(edits):
    raw = bytearray(VALID)
    for pos, cut, ins in edits:
        pos = min(pos, len(raw))
        raw[pos : pos + cut] = ins
    check_outcome(bytes(raw))


def test_yaml_errors_name_the_offending_line():
    """Regression: lines were off by one (the YAML text starts on the fence line), and an unclosed bracket
    pointed past the closing fence instead of where it opened."""
    cases = [
        ("---\nid: A\ntitle: a: b\nkind: fact\n---\n", 3),
        ("---\n\n\nid: A\ntitle: a: b\n---\nbody\n", 5),
        ("---\nid: A\nkind: decision\nstatus: accepted\ntitle: [unclosed\n---\nbody\n", 5),
        ('---\nid: A\nkind: "open\nstatus: x\n---\n', 3),
    ]
    for text, line in cases:
        (issue,) = parse_record(PATH, text.encode()).issues
        assert issue.message.startswith("frontmatter is not valid YAML") and issue.line == line, (text, issue)


# -------------------------------------------------------------------------------------------- real seeds
def bad_repo(repo, tmp_path):
    """Good records next to one file of every kind of bad input. Returns (good ids, {bad path: line})."""
    good = {"good-1", "good-2", "good-3"}
    for rid in sorted(good):
        repo.record(rid, title=f"Good record {rid}", body=f"The {rid} record is fine and indexed.")
    w = repo.write
    w("knowledge/yaml.md", "---\nid: y1\nkind: decision\nstatus: accepted\ntitle: [unclosed\n---\nbody\n")
    w("knowledge/types.md", "---\nid: t1\nkind: decision\nstatus: accepted\ntitle: {a: 1}\ntags: {x: y}\n---\n")
    w("knowledge/kindlist.md", "---\nid: t2\nkind: [decision]\nstatus: accepted\ntitle: T\n---\n")
    w("knowledge/notmap.md", "---\n- a\n- b\n---\nbody\n")
    w("knowledge/unclosed.md", "---\nid: u1\nkind: decision\nstatus: accepted\ntitle: T\n")
    w("knowledge/huge.md", record_text("big", body="x" * (MAX_RECORD_BYTES + 10)))
    w("knowledge/binary.md", b"---\nid: b1\x00\x01\x02\n---\n")
    w("knowledge/utf8.md", b"---\nid: u8\nkind: fact\nstatus: verified\ntitle: caf\xe9\n---\n")
    w("knowledge/dotdot.md", record_text("../../etc/passwd"))
    w("knowledge/slash.md", record_text("a/b"))
    w("knowledge/space.md", record_text("has space"))
    repo.record("cyc-a", supersedes="cyc-b")
    repo.record("cyc-b", supersedes="cyc-a")
    outside = tmp_path / "outside.md"
    outside.write_text(record_text("outside-secret", body="should never be read"), "utf-8")
    os.symlink(outside, repo.path / "knowledge/escape.md")
    os.symlink("loop.md", repo.path / "knowledge/loop.md")
    os.symlink("missing-target.md", repo.path / "knowledge/dangling.md")
    (tmp_path / "extdir").mkdir()
    (tmp_path / "extdir/far.md").write_text(record_text("far-away"), "utf-8")
    os.symlink(tmp_path / "extdir", repo.path / "knowledge/extdir")
    for i in range(2000):
        w(f"knowledge/dups/d{i:04d}.md", record_text("same-id", title=f"copy {i}"))
    bad = {
        "knowledge/yaml.md": 5,
        "knowledge/types.md": 5,
        "knowledge/kindlist.md": 3,
        "knowledge/notmap.md": 2,
        "knowledge/unclosed.md": 1,
        "knowledge/huge.md": None,
        "knowledge/binary.md": None,
        "knowledge/utf8.md": 5,
        "knowledge/dotdot.md": 2,
        "knowledge/slash.md": 2,
        "knowledge/space.md": 2,
        "knowledge/cyc-a.md": 6,
        "knowledge/cyc-b.md": 6,
        "knowledge/escape.md": None,
        "knowledge/loop.md": None,
        "knowledge/dangling.md": None,
    }
    bad.update({f"knowledge/dups/d{i:04d}.md": 2 for i in range(2000)})
    return good, bad


def test_seed_reports_every_bad_file_and_indexes_every_good_one(repo, tmp_path):
    good, bad = bad_repo(repo, tmp_path)
    repo.commit()
    rep = Seeder(repo.path).seed()
    reported: dict[str, list] = {}
    for e in rep.errors:
        reported.setdefault(e["path"], []).append(e)
    assert set(reported) == set(bad)
    for path, line in bad.items():
        if line is not None:
            assert line in [e["line"] for e in reported[path]], (path, reported[path])
        assert all(e["fix"] for e in reported[path])
    dup = reported["knowledge/dups/d0000.md"][0]["message"]
    assert "duplicate id 'same-id'" in dup and "and 1995 more" in dup and len(dup) < 400
    assert "symlink points outside" in reported["knowledge/escape.md"][0]["message"]
    assert "symlink cannot be resolved" in reported["knowledge/loop.md"][0]["message"]
    assert [w["message"] for w in rep.warnings if w["path"] == "knowledge/extdir"] == [
        "symlinked folder under a knowledge root is not followed"
    ]
    snap = assert_consistent(repo.path, good)
    assert all("should never be read" not in c.text for c in snap["chunks"].values())


@pytest.mark.e2e
def test_cli_seed_and_check_name_file_and_line(repo, tmp_path):
    bad_repo(repo, tmp_path)
    repo.commit()
    p = jgm_in("seed", cwd=repo.path)
    assert p.returncode == 1
    assert "knowledge/yaml.md:5: error: frontmatter is not valid YAML" in p.stderr
    assert "knowledge/huge.md: error: file is" in p.stderr and "fix:" in p.stderr
    c = jgm_in("check", "--json", cwd=repo.path)
    data = json.loads(c.stdout)
    assert c.returncode == 1 and data["records"] == 3


def test_indexed_record_whose_file_turns_bad_is_kept(repo, tmp_path):
    turns = ["yaml", "binary", "huge", "utf8", "badid", "escape", "dupe"]
    for name in turns + ["stays"]:
        repo.record(f"rec-{name}", title=f"Record {name}", body=f"The {name} record body about caching.")
    repo.commit()
    s = Seeder(repo.path)
    s.seed()
    before = snapshot(repo.path)
    w = repo.write
    w("knowledge/rec-yaml.md", "---\nid: rec-yaml\ntitle: [\n---\n")
    w("knowledge/rec-binary.md", b"\x00\x01binary now")
    w("knowledge/rec-huge.md", record_text("rec-huge", body="y" * (MAX_RECORD_BYTES + 1)))
    w("knowledge/rec-utf8.md", b"---\nid: rec-utf8\ntitle: \xff\n---\n")
    w("knowledge/rec-badid.md", record_text("rec badid"))
    (repo.path / "knowledge/rec-escape.md").unlink()
    outside = tmp_path / "x.md"
    outside.write_text(record_text("rec-escape"), "utf-8")
    os.symlink(outside, repo.path / "knowledge/rec-escape.md")
    repo.record("rec-dupe", rel="knowledge/other-dupe.md", title="Second claim")
    rep = s.seed()
    assert {e["path"] for e in rep.errors} >= {f"knowledge/rec-{n}.md" for n in turns}
    assert rep.removed == []
    snap = assert_consistent(repo.path, {f"rec-{n}" for n in turns + ["stays"]})
    for n in turns:
        row = snap["records"][f"rec-{n}"]
        assert row.error and row.content_hash == before["records"][f"rec-{n}"].content_hash
    assert snap["records"]["rec-stays"].error is None
    assert set(snap["vectors"]) == set(before["vectors"])  # nothing re-embedded, nothing lost
    repo.record("rec-yaml", title="Record yaml", body="Fixed again.")
    rep = s.seed()
    assert "rec-yaml" in rep.updated
    assert snapshot(repo.path)["records"]["rec-yaml"].error is None
