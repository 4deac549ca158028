"""Parsing and every validation error, on the pure parser."""

import pytest

from jupiter_git_memory.records.citations import as_citations, citations_of, classify
from jupiter_git_memory.records.model import MAX_RECORD_BYTES
from jupiter_git_memory.records.parse import parse_record

pytestmark = pytest.mark.unit


def parse(text: str | bytes, path: str = "knowledge/x.md"):
    return parse_record(path, text.encode() if isinstance(text, str) else text)


def test_full_record_parses_with_metadata():
    out = parse(
        "---\nid: DEC-1\nkind: decision\nstatus: accepted\ntitle: Use Chroma\n"
        "supersedes: [DEC-0]\ntags: [index, chroma]\ndate: 2026-11-30\nsource: docs/x.md\n"
        "scope: backend\nowner: alice\n---\n\nWe use Chroma.\n"
    )
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


HEAD = "---\nid: A\nkind: fact\nstatus: verified\ntitle: T\n"


def test_a_file_exactly_at_the_size_limit_is_parsed():
    text = HEAD + "---\n"
    at_limit = text + "x" * (MAX_RECORD_BYTES - len(text))
    assert parse(at_limit).record is not None
    (over,) = parse(at_limit + "x").issues
    assert str(MAX_RECORD_BYTES + 1) in over.message and "split" in over.fix and over.path == "knowledge/x.md"


def test_binary_and_encoding_errors_name_the_fix():
    assert "`ignore`" in parse(b"---\nid: A\x00\n---\n").issues[0].fix
    bad = parse(b"---\nid: A\nkind: fact\nstatus: verified\ntitle: \xff\n---\n").issues[0]
    assert "byte 45" in bad.message and "UTF-8" in bad.fix and bad.path == "knowledge/x.md"


def test_yaml_errors_point_at_the_line_of_the_problem():
    assert parse("---\nid: A\nkind: decision\nstatus: [accepted\ntitle: T\n---\n").issues[0].line == 5
    assert parse("---\nid: A\nkind: x: y: z\n---\n").issues[0].line == 3
    unterminated = parse('---\nid: A\nkind: decision\nstatus: accepted\ntitle: "T\n---\nbody\n').issues[0]
    assert unterminated.line == 5 and "`---`" in unterminated.fix  # where the quote began, not the stream end
    assert parse("\ufeff---\nid: A\nkind: x: y\n---\n").issues[0].line == 3  # a BOM does not shift lines


def test_unclosed_empty_and_non_mapping_frontmatter():
    (unclosed,) = parse(HEAD).issues
    assert unclosed.line == 1 and "`---`" in unclosed.fix and "not closed" in unclosed.message
    empty = parse("---\n---\nbody\n").issues
    assert len(empty) == 4 and {i.line for i in empty} == {2} and all("add `" in i.fix for i in empty)
    (listy,) = parse("---\n- a\n---\n").issues
    assert listy.line == 2 and "key: value" in listy.fix


def test_opening_fence_variants_are_frontmatter():
    for text in (
        "\ufeff" + HEAD + "---\nb\n",
        HEAD.replace("---\n", "--- \t\n", 1) + "---\nb\n",
        (HEAD + "---\nb\n").replace("\n", "\r\n"),
    ):
        r = parse(text).record
        assert r is not None and r.id == "A" and r.title == "T", repr(text)
    assert parse("----\nid: A\n----\n").skipped == "no frontmatter"
    assert parse("x\n---\nid: A\n---\n").skipped == "no frontmatter"


def test_empty_required_value_is_missing():
    (i,) = parse("---\nid: A\nkind: fact\nstatus: verified\ntitle: ''\n---\n").issues
    assert "`title`" in i.message and i.line == 2


def test_every_record_error_carries_its_line():
    out = parse(
        "---\nid: 'a b'\nkind: fact\nstatus: verified\ntitle: [x]\ntags: {a: 1}\nsupersedes: {x: y}\n"
        "superseded_by: [[1]]\n---\n"
    )
    lines = {i.message.split()[0]: i.line for i in out.issues}
    assert lines == {"invalid": 2, "`title`": 5, "`tags`": 6, "`supersedes`": 7, "`superseded_by`": 8}
    assert all(i.fix for i in out.issues) and any("[A, B]" in i.fix for i in out.issues)
    kind = parse("---\nid: A\nstatus: verified\ntitle: T\nkind: memo\n---\n").issues[0]
    assert kind.line == 5


def test_long_invalid_ids_are_cut_in_the_message():
    (i,) = parse(f"---\nid: '{'x' * 150} y'\nkind: fact\nstatus: verified\ntitle: T\n---\n").issues
    assert "x" * 80 in i.message and "x" * 81 not in i.message and "128" in i.fix


def test_values_are_normalised():
    r = parse(
        "---\nid: ' A-1 '\nkind: ' Fact '\nstatus: ' Verified '\ntitle: '  Spaced  '\n"
        "supersedes: [' B ', '', 7]\nsuperseded_by: C\ntags: 'a, , b'\nsource: 42\n---\n\n  Body.  \n\n"
    ).record
    assert (r.id, r.kind, r.status, r.title, r.body) == ("A-1", "fact", "verified", "Spaced", "Body.")
    assert r.supersedes == ("B", "7") and r.superseded_by == ("C",) and r.tags == ("a", "b") and r.source == "42"
    assert parse(HEAD + "tags: [1, x, 2.5]\n---\n").record.tags == ("1", "x", "2.5")
    assert parse(HEAD + "title2: x\n---\n").record.date is None


def test_madr_link_is_added_once_and_stripped_of_brackets():
    r = parse('---\nid: A\nkind: adr\nstatus: "Superseded by [ADR-7]"\ntitle: T\nsuperseded_by: ADR-7\n---\n').record
    assert r.status == "superseded" and r.superseded_by == ("ADR-7",)
    r = parse("---\nid: A\nkind: adr\nstatus: superseded by (ADR-8)\ntitle: T\nsuperseded_by: ADR-7\n---\n").record
    assert r.superseded_by == ("ADR-7", "ADR-8")


def test_key_lines_are_top_level_frontmatter_keys_only():
    r = parse(
        "---\nid: A\nkind: fact\nstatus: verified\ntitle: T\nnested:\n  status: x\ntitle2: y\n---\n"
        "other: not frontmatter\n"
    ).record
    assert r.lines == {"id": 2, "kind": 3, "status": 4, "title": 5, "nested": 6, "title2": 8}


def test_content_hash_covers_the_raw_bytes_and_metadata_stays_json_safe():
    import hashlib
    import json

    raw = HEAD + "when: 2026-01-02\nextra: {at: 2026-01-03, list: [1, 2026-01-04, {b: true}], n: null}\n---\n"
    r = parse(raw).record
    assert r.content_hash == hashlib.sha256(raw.encode()).hexdigest()
    assert r.metadata == {
        "when": "2026-01-02",
        "extra": {"at": "2026-01-03", "list": [1, "2026-01-04", {"b": True}], "n": None},
    }
    json.dumps(r.metadata)
    assert parse(HEAD + "date: 2026-01-02 10:00:00\n---\n").record.date.startswith("2026-01-02T10:00")


def test_every_parse_error_names_the_file():
    bad = [
        b"---\nid: A\x00\n---\n",
        b"---\nid: \xff\n---\n",
        HEAD.encode(),
        b"---\n- a\n---\n",
        b"---\nid: A\nkind: x: y\n---\n",
        b"---\n---\n",
        (HEAD + "supersedes: {a: 1}\n---\n").encode(),
        (HEAD + "---\n" + "x" * MAX_RECORD_BYTES).encode(),
        (HEAD + "superseded_by: {a: 1}\n---\n").encode(),
        (HEAD + "tags: {a: 1}\n---\n").encode(),
        b"---\nid: a b\nkind: memo\nstatus: s\ntitle: [t]\n---\n",
    ]
    for raw in bad:
        out = parse_record("knowledge/sub/y.md", raw)
        assert out.record is None and out.issues and all(i.path == "knowledge/sub/y.md" for i in out.issues), raw[:30]


def test_yaml_errors_quote_the_problem_and_never_crash():
    flow = parse("---\nid: A\nkind: decision\nstatus: [accepted\ntitle: T\n---\n").issues[0]
    assert "expected ',' or ']'" in flow.message  # the problem, not the context line
    assert "mapping values are not allowed" in parse("---\nid: A\nkind: x: y\n---\n").issues[0].message
    (ctrl,) = parse("---\nid: A\x01\nkind: fact\n---\n").issues  # a reader error has no marks
    assert "unacceptable character" in ctrl.message and ctrl.path == "knowledge/x.md" and "`---`" in ctrl.fix


def test_a_body_repeating_the_frontmatter_does_not_move_the_error_line():
    fm = "---\nid: A\nkind: x: y\n---\n"
    assert parse(fm + "\n" + fm).issues[0].line == 3


def test_no_tags_is_an_empty_tuple_and_ids_ending_in_x_survive_madr_links():
    assert parse(HEAD + "---\n").record.tags == ()
    r = parse("---\nid: A\nkind: adr\nstatus: superseded by ADR-X\ntitle: T\n---\n").record
    assert r.superseded_by == ("ADR-X",)


# --- bounded frontmatter (records/safe_yaml.py): every refusal names the file and its line ---


def _refusal(extra: str):
    (issue,) = parse(HEAD + extra + "---\nbody\n").issues
    assert issue.path == "knowledge/x.md" and issue.fix
    return issue


def test_anchors_and_aliases_are_refused_on_their_line():
    alias = _refusal("a: &x [1]\nb: *x\n")
    assert alias.line == 6 and "alias" in alias.message and "in full" in alias.fix
    assert _refusal("b: *x\n").line == 6  # an alias alone (undefined) is refused the same way
    assert _refusal("a: &x 1\n").line == 6  # and so is an anchor nobody uses


def test_nesting_is_allowed_up_to_the_limit_and_refused_past_it():
    from jupiter_git_memory.records.safe_yaml import MAX_DEPTH

    def nested(depth: int) -> str:  # the top-level mapping is the first level
        return "x: " + "[" * (depth - 1) + "]" * (depth - 1) + "\n"

    assert parse(HEAD + nested(MAX_DEPTH) + "---\n").record is not None
    deep = _refusal(nested(MAX_DEPTH + 1))
    assert deep.line == 6 and str(MAX_DEPTH) in deep.message and "flatten" in deep.fix
    assert parse(HEAD + "a: [[1]]\nb: [[2]]\n" + nested(MAX_DEPTH) + "---\n").record is not None  # depth unwinds
    after_sibling = (
        "x: [[1], " + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + "]\n"
    )  # 17 levels, past a nested sibling
    assert _refusal(after_sibling).line == 6


def test_literal_keys_stay_as_written_wherever_they_stand():
    from jupiter_git_memory.records.safe_yaml import load_frontmatter

    meta = load_frontmatter("date: 2024-01-01\nweight: 3\nid: 0012\nsupersedes: [0011, 1.50]\n")
    assert (meta["id"], meta["supersedes"], meta["weight"]) == ("0012", ["0011", "1.50"], 3)


def test_values_are_counted_up_to_the_limit():
    from jupiter_git_memory.records.safe_yaml import MAX_NODES

    # the top-level mapping, 4 keys with values, `x` and its list: 11 values before the items
    def many(items: int) -> str:
        return "x: [" + ", ".join(["1"] * items) + "]\n"

    assert parse(HEAD + many(MAX_NODES - 11) + "---\n").record is not None
    over = _refusal(many(MAX_NODES - 10))
    assert over.line == 6 and str(MAX_NODES) in over.message and "body" in over.fix


def test_unreadable_values_and_lone_surrogates_are_refused_on_their_line():
    huge = _refusal("weight: " + "9" * 5000 + "\n")
    assert huge.line == 6 and "ValueError" in huge.message and "quote" in huge.fix
    assert parse(HEAD + "date: '2024-13-45'\n---\n").record.date == "2024-13-45"
    (sur,) = parse('---\nid: A\nkind: fact\nstatus: verified\ntitle: "a \\ud800"\n---\n').issues
    assert sur.line == 5 and "surrogate" in sur.message and "escape" in sur.fix


@pytest.mark.parametrize(
    "extra,line",
    [  # a merge key anywhere: at the top, nested, or spelled with an explicit tag
        ("<<: {id: 0012, title: yes, supersedes: 0x1F}\n", 6),
        ("links:\n  note: x\n  <<: {rank: 0x1F}\n", 8),
        ("? !!merge x\n: {id: 0012}\n", 6),
    ],
)
def test_merge_keys_are_refused_with_the_line_and_what_to_write(extra, line):
    """`<<: {id: 0012, title: yes}` would set id 10 and title True, keys that a diff does not show as keys."""
    issue = _refusal(extra)
    assert "merge key (`<<`)" in issue.message and issue.line == line
    assert "`id: 0012`" in issue.fix and '"<<"' in issue.fix
    quoted = parse(HEAD + '"<<": {a: 1}\n---\n').record  # a key literally named <<, quoted, is plain data
    assert quoted is not None and quoted.metadata == {"<<": {"a": 1}}


def test_a_non_scalar_key_is_an_error_not_a_crash():
    (issue,) = parse(HEAD + "? [a, b]\n: 1\n---\n").issues
    assert issue.line == 6 and issue.path == "knowledge/x.md"


def test_frontmatter_is_allowed_up_to_its_byte_limit():
    from jupiter_git_memory.records.safe_yaml import MAX_BYTES

    def sized(n: int) -> str:  # frontmatter text (from the fence's newline) of n UTF-8 bytes; `é` is two bytes
        pad = n - len(("\n" + HEAD[4:] + "p: \n").encode())
        return HEAD + "p: " + "é" * (pad // 2) + "x" * (pad % 2) + "\n"

    assert parse(sized(MAX_BYTES) + "---\n").record is not None
    (over,) = parse(sized(MAX_BYTES + 1) + "---\n").issues
    assert over.line == 1 and str(MAX_BYTES + 1) in over.message and "body" in over.fix


def test_ids_links_and_titles_are_read_as_written():
    r = parse(
        "---\nid: 0012\nkind: fact\nstatus: verified\ntitle: yes\nsupersedes: [1.50, 007]\n"
        "superseded_by: 0x1F\ntags: [on, 1e3]\nsource: 2024-01-01\nscope: 1_000\npriority: 1.50\n---\n"
    ).record
    assert (r.id, r.title, r.supersedes, r.superseded_by) == ("0012", "yes", ("1.50", "007"), ("0x1F",))
    assert (r.tags, r.source, r.scope) == (("on", "1e3"), "2024-01-01", "1_000")
    assert r.metadata == {"priority": 1.5}  # other keys keep YAML's types
    kind = parse("---\nid: A\nkind: null\nstatus: verified\ntitle: T\n---\n").issues[0]
    assert "`kind`" in kind.message  # null stays null: missing, not the text "null"
    assert parse(HEAD + "supersedes: ~\n---\n").record.supersedes == ()


def test_hidden_characters_are_named_escaped_and_flagged_per_field():
    from jupiter_git_memory.records.text import describe_hidden, escape_nonprintable, hidden_char_warnings, show_hidden

    assert describe_hidden("a\u202eb\u200bc\x1bd\te\nf") == (
        "U+202E (RIGHT-TO-LEFT OVERRIDE), U+200B (ZERO WIDTH SPACE), U+001B (ESCAPE)"
    )
    assert (
        describe_hidden("a\u2066b\u2069c\u200dd\ufeff")
        == "U+2066 (LEFT-TO-RIGHT ISOLATE), U+2069 (POP DIRECTIONAL ISOLATE), U+200D (ZERO WIDTH JOINER) and 1 more"
    )
    assert describe_hidden("plain text, tabs\tand\nlines, café") is None
    assert show_hidden("x\u202ey\x07\tz\n") == "x\\u202ey\\x07\tz\n"  # tab and newline stay layout
    assert escape_nonprintable("k\x1b]0;\u202e\U000e0001\n") == "k\\x1b]0;\\u202e\\U000e0001\n"
    text = "---\nid: A\nkind: fact\nstatus: verified\ntitle: T \u202eX\ntags: [a\u200b]\n---\nline one\nsecond \u2066line\n"
    rec = parse(text).record
    flagged = {(i.line, i.message.split("`")[1], i.severity) for i in hidden_char_warnings(rec, text)}
    assert flagged == {(5, "title", "warning"), (6, "tags", "warning"), (9, "body", "warning")}
    assert hidden_char_warnings(parse(HEAD + "---\r\nbody\r\nmore\r\n").record, HEAD) == []  # CRLF is plain


def test_source_and_evidence_are_read_as_lists_of_citations():
    raw = (
        b"---\nid: f\nkind: fact\nstatus: verified\ntitle: T\n"
        b"source: [parcelhub/storage/, 'parcelhub/**/*.py']\nevidence: [commit 4f2a9c1, https://e.example/a, 7]\n---\nb\n"
    )
    rec = parse_record("k/f.md", raw).record
    assert rec.citations == ("parcelhub/storage/", "parcelhub/**/*.py", "commit 4f2a9c1", "https://e.example/a", "7")
    assert rec.source == "parcelhub/storage/, parcelhub/**/*.py"  # text, never a Python list's repr
    one = parse_record("k/g.md", raw.replace(b"source: [parcelhub/storage/, 'parcelhub/**/*.py']", b"source: a.py"))
    assert one.record.citations[0] == "a.py" and one.record.source == "a.py"
    bad = parse_record("k/h.md", raw.replace(b"evidence: [", b"evidence: {a: 1}\nx: ["))
    assert bad.record is None and bad.issues[0].line == 7 and "`evidence` must be a citation" in bad.issues[0].message
    assert as_citations([{"a": 1}])[1] is not None
    assert [
        classify(c) for c in ("https://x.example/y", "commit 4f2a9c1", "a/*.py", "src/", "a/b.py", "two words")
    ] == [
        "url",
        "commit",
        "glob",
        "folder",
        "file",
        "text",
    ]
    # a version parsed before citations were data (its list stored as text) reads the same
    assert citations_of({"source": "['a/b.py', 'c/']", "metadata": {"evidence": ["d"]}}) == ["a/b.py", "c/", "d"]


def test_an_impossible_date_is_a_warning_on_its_key_and_the_record_is_kept():
    """Issue 40: `created: 2021-26-02` cost the whole file; now the text is kept and the key is named."""
    out = parse(HEAD + "date: 2024-13-45\ncreated: 2021-26-02\n---\nbody\n")
    assert out.record is not None and out.record.date == "2024-13-45"
    assert out.record.metadata["created"] == "2021-26-02"
    assert [(i.severity, i.line, i.message.split(" is ")[0]) for i in out.issues] == [
        ("warning", 6, "`date: 2024-13-45`"),
        ("warning", 7, "`created: 2021-26-02`"),
    ]
    assert "month must be in 1..12" in out.issues[0].message and "YYYY-MM-DD" in out.issues[0].fix
    good = parse(HEAD + "date: 2024-02-29\n---\nbody\n")
    assert good.record.date == "2024-02-29" and good.issues == []
