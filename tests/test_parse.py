"""Parsing and every validation error, on the pure parser."""

from jupiter_git_memory.records.model import MAX_RECORD_BYTES
from jupiter_git_memory.records.parse import parse_record


def parse(text: str | bytes, path: str = "knowledge/x.md"):
    return parse_record(path, text.encode() if isinstance(text, str) else text)


def test_full_record_parses_with_metadata():
    out = parse("---\nid: DEC-1\nkind: decision\nstatus: accepted\ntitle: Use Chroma\n"
                "supersedes: [DEC-0]\ntags: [index, chroma]\ndate: 2026-11-30\nsource: docs/x.md\n"
                "scope: backend\nowner: alice\n---\n\nWe use Chroma.\n")
    r = out.record
    assert out.issues == [] and r is not None
    assert (r.id, r.kind, r.status, r.title) == ("DEC-1", "decision", "accepted", "Use Chroma")
    assert r.supersedes == ("DEC-0",) and r.tags == ("index", "chroma")
    assert r.date == "2026-11-30" and r.source == "docs/x.md" and r.scope == "backend"
    assert r.metadata == {"owner": "alice"} and r.body == "We use Chroma."
    assert r.lines["status"] == 4


def test_no_frontmatter_is_skipped_not_error():
    out = parse("# Just notes\n\nNo frontmatter here.\n")
    assert out.record is None and out.issues == [] and out.skipped == "no frontmatter"


def test_missing_required_keys_each_reported():
    out = parse("---\nid: A\nkind: fact\n---\nbody\n")
    msgs = [i.message for i in out.issues]
    assert "missing required key `status`" in msgs and "missing required key `title`" in msgs
    assert all(i.path == "knowledge/x.md" for i in out.issues)


def test_unknown_kind_names_line_and_choices():
    out = parse("---\nid: A\nkind: memo\nstatus: accepted\ntitle: T\n---\n")
    (issue,) = out.issues
    assert "unknown kind 'memo'" in issue.message and issue.line == 3 and "decision" in issue.fix


def test_unknown_status_is_error_never_coerced():
    out = parse("---\nid: A\nkind: decision\nstatus: approved\ntitle: T\n---\n")
    (issue,) = out.issues
    assert out.record is None
    assert "'approved' is not valid for kind 'decision'" in issue.message and issue.line == 4
    assert "accepted" in issue.fix


def test_status_valid_for_other_kind_is_still_error():
    out = parse("---\nid: A\nkind: fact\nstatus: accepted\ntitle: T\n---\n")
    assert out.record is None and "not valid for kind 'fact'" in out.issues[0].message


def test_status_case_is_normalised():
    assert parse("---\nid: A\nkind: adr\nstatus: Accepted\ntitle: T\n---\n").record.status == "accepted"


def test_madr_superseded_by_status():
    r = parse('---\nid: ADR-0001\nkind: adr\nstatus: "superseded by ADR-0123"\ntitle: T\n---\n').record
    assert r.status == "superseded" and r.superseded_by == ("ADR-0123",)


def test_invalid_yaml_reports_file_line():
    out = parse("---\nid: A\nkind: decision\nstatus: [accepted\ntitle: T\n---\n")
    (issue,) = out.issues
    assert issue.message.startswith("frontmatter is not valid YAML") and issue.line is not None and issue.line >= 4


def test_frontmatter_not_mapping():
    out = parse("---\n- a\n- b\n---\nbody\n")
    assert out.record is None and out.issues and "mapping" in out.issues[0].message


def test_bad_id_with_path_tricks():
    for bad in ("../etc/passwd", "a/b", "has space", "-lead"):
        out = parse(f"---\nid: '{bad}'\nkind: fact\nstatus: verified\ntitle: T\n---\n")
        assert out.record is None and "invalid id" in out.issues[0].message, bad


def test_wrong_types():
    out = parse("---\nid: A\nkind: fact\nstatus: verified\ntitle: T\ntags: {a: 1}\nsupersedes: {x: y}\n---\n")
    msgs = " ".join(i.message for i in out.issues)
    assert "`tags` must be a list" in msgs and "`supersedes` must be an id or a list" in msgs


def test_binary_invalid_utf8_and_huge():
    assert "binary" in parse(b"---\nid: A\x00\n---\n").issues[0].message
    bad = parse(b"---\nid: A\nkind: fact\nstatus: verified\ntitle: \xff\xfe\n---\n").issues[0]
    assert "UTF-8" in bad.message and bad.line == 5
    huge = parse("---\nid: A\nkind: fact\nstatus: verified\ntitle: T\n---\n" + "x" * MAX_RECORD_BYTES)
    assert "record limit" in huge.issues[0].message


def test_issue_render_names_file_line_and_fix():
    issue = parse("---\nid: A\nkind: decision\nstatus: approved\ntitle: T\n---\n").issues[0]
    text = issue.render()
    assert text.startswith("knowledge/x.md:4: error:") and "fix: use one of" in text


# --- rules the mutation bench showed no test stated (issue 17) ---

def test_record_round_trips_through_a_dict_with_lists_for_links():
    from jupiter_git_memory.records.model import Record

    r = parse("---\nid: A\nkind: fact\nstatus: verified\ntitle: T\nsupersedes: [B, C]\ntags: x, y\n---\nbody\n").record
    d = r.to_dict()
    assert d["supersedes"] == ["B", "C"] and d["tags"] == ["x", "y"] and d["superseded_by"] == []
    assert Record.from_dict(d) == r
    assert Record.from_dict({**d, "tags": None, "superseded_by": None}).tags == ()


def test_issue_without_a_line_names_the_file_alone():
    from jupiter_git_memory.records.model import Issue

    i = Issue("knowledge/a.md", "boom", "do this", severity="warning")
    assert i.where() == "knowledge/a.md" and i.render().startswith("knowledge/a.md: warning: boom")
    assert "do this" in i.render() and i.to_dict()["fix"] == "do this" and i.to_dict()["line"] is None
