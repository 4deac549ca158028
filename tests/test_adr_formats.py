"""ADR format adapters, pure: our own fixtures (tests/fixtures/adr) in each format, with every quirk."""

from pathlib import Path

import pytest

from jupiter_git_memory.lifecycle.resolve import resolve
from jupiter_git_memory.records.formats import AdapterOptions, read_record
from jupiter_git_memory.records.formats.ids import adr_id, link_targets
from jupiter_git_memory.records.formats.status import normalise

pytestmark = pytest.mark.unit

FIX = Path(__file__).parent / "fixtures" / "adr"


def read_all(fmt: str, options: AdapterOptions | None = None):
    base = FIX / fmt
    out = {}
    for p in sorted(base.rglob("*.md")):
        if p.name in ("README.md", "index.md", "template.md", "adr-template.md") or "template" in p.name:
            continue
        rel = p.relative_to(base).as_posix()
        out[rel] = read_record(rel, p.read_bytes(), options)
    return out


def records(readings):
    return {r.outcome.record.id: r.outcome.record for r in readings.values() if r.outcome.record}


@pytest.mark.parametrize(
    "path,expected",
    [
        ("doc/adr/0012-use-x.md", "ADR-0012"),
        ("docs/decisions/12-use-x.md", "ADR-0012"),
        ("adr/adr-012-use-x.md", "ADR-0012"),
        ("adr/ADR-0012.md", "ADR-0012"),
        ("adr/0000-intro.md", "ADR-0000"),
        ("docs/adr/20201016-use-slugs.md", "20201016-use-slugs"),
        ("docs/adr/2020-10-16-use-slugs.md", "2020-10-16-use-slugs"),
        ("decisions/use postgres.md", "use-postgres"),
    ],
)
def test_id_rule(path, expected):
    assert adr_id(path)[0] == expected


@pytest.mark.parametrize(
    "written,targets",
    [
        ("superseded by 0002", ["ADR-0002"]),
        ("ADR-2", ["ADR-0002"]),
        ("adr-0002", ["ADR-0002"]),
        ("[ADR-0002](0002-new.md)", ["ADR-0002"]),
        ("[2. Use X](0002-use-x.md)", ["ADR-0002"]),
        ("[20201016-use-slugs](20201016-use-slugs.md)", ["20201016-use-slugs"]),
        ("[x](https://example.com/0003-x.md)", []),
        ("ADR 7 and ADR 9", ["ADR-0007", "ADR-0009"]),
    ],
)
def test_link_forms(written, targets):
    assert link_targets(written, "docs/adr/0001-a.md") == targets


@pytest.mark.parametrize(
    "written,key",
    [
        ("✅ Accepted", "accepted"),
        ("Accepted (2019-03-01)", "accepted"),
        ("**Approved**", "approved"),
        ("⌛️ Pending", "pending"),
        ("On hold.", "on hold"),
        ("Accepted on 2020-01-02", "accepted"),
        ("accepted <!-- optional -->", "accepted"),
    ],
)
def test_status_normalisation_drops_emoji_parentheticals_and_dates(written, key):
    assert normalise(written) == key


def test_nygard_fixture():
    readings = read_all("nygard")
    recs = records(readings)
    assert {r.format for r in readings.values()} == {"nygard"}
    a3 = recs["ADR-0003"]
    assert (a3.title, a3.status, a3.date, a3.kind) == (
        "Publish domain events through Kafka",
        "accepted",
        "2019-02-11",
        "adr",
    )
    assert a3.amended_by == ("ADR-0007", "ADR-0008") and a3.source == "doc/adr/0003-publish-events-through-kafka.md"
    assert recs["ADR-0001"].status == "accepted"  # ✅ Accepted
    assert recs["ADR-0002"].status == "superseded" and recs["ADR-0002"].superseded_by == ("ADR-0005",)
    assert recs["ADR-0005"].supersedes == ("ADR-0002",)  # adr-tools' "Supercedes"
    assert recs["ADR-0007"].amends == ("ADR-0003",) and recs["ADR-0008"].amends == ("ADR-0003",)
    assert {
        i: recs[i].status for i in ("ADR-0004", "ADR-0006", "ADR-0007", "ADR-0008", "ADR-0009", "ADR-0011", "ADR-0012")
    } == {
        "ADR-0004": "accepted",
        "ADR-0006": "proposed",
        "ADR-0007": "proposed",
        "ADR-0008": "proposed",
        "ADR-0009": "proposed",
        "ADR-0011": "rejected",
        "ADR-0012": "deprecated",
    }
    # no status: proposed (never in force); the collection-level note is the reading's (test_wild_reading)
    none = readings["doc/adr/0010-run-batch-settlement-nightly.md"].outcome
    assert none.record.status == "proposed" and none.issues == []
    assert none.record.metadata["status_source"].startswith("no status anywhere")
    # "Under discussion" is in the table since issue 27: proposed, read from its line
    talk = readings["doc/adr/0013-choose-feature-flag-service.md"].outcome.record
    assert (talk.status, talk.lines["status"], talk.metadata["status_rule"]) == ("proposed", 7, "status table")


def test_status_map_and_missing_status_options():
    opts = AdapterOptions(status_map={"under discussion": "accepted"}, missing_status="error")
    readings = read_all("nygard", opts)
    assert readings["doc/adr/0013-choose-feature-flag-service.md"].outcome.record.status == "accepted"  # map wins
    missing = readings["doc/adr/0010-run-batch-settlement-nightly.md"].outcome
    assert missing.record is None and "adr_missing_status" in missing.issues[0].fix
    accepted = read_all("nygard", AdapterOptions(missing_status="accepted"))
    assert accepted["doc/adr/0010-run-batch-settlement-nightly.md"].outcome.record.status == "accepted"


def test_madr2_fixture():
    readings = read_all("madr2")
    recs = records(readings)
    assert {r.outcome.record.format for r in readings.values()} == {"madr2"} and len(recs) == 8
    assert recs["ADR-0002"].status == "superseded" and recs["ADR-0002"].superseded_by == ("ADR-0004",)
    assert recs["ADR-0004"].status == "accepted" and recs["ADR-0004"].supersedes == ("ADR-0002",)
    assert recs["ADR-0006"].superseded_by == ("ADR-0007",)  # bare "superseded by 0007"
    assert recs["ADR-0003"].status == "accepted" and recs["ADR-0005"].status == "rejected"  # Agreed, Declined
    assert recs["ADR-0001"].metadata["decision-makers"] == ["Ana Ruiz", "Tomasz Nowak"]
    assert recs["ADR-0001"].title == "Use Markdown Architectural Decision Records"
    # a site generator's front matter above the bullets; commentary after the status word's sentence
    hugo = recs["ADR-0008"]
    assert (hugo.status, hugo.title, hugo.date, hugo.tags) == (
        "proposed",
        "Keep raw traces for seven days",
        "2021-11-02",
        ("retention",),
    )
    assert hugo.metadata["decision-makers"] == ["Priya Shah", "Ana Ruiz"] and hugo.lines["status"] == 8


def test_madr3_fixture():
    readings = read_all("madr3")
    recs = records(readings)
    assert {r.format for r in readings.values()} == {"madr3"} and len(recs) == 6
    assert recs["ADR-0002"].status == "superseded" and recs["ADR-0002"].superseded_by == ("ADR-0004",)
    assert recs["ADR-0001"].metadata["decision-makers"] == ["Lena Vogel", "Marc Dubois"]
    assert recs["ADR-0002"].metadata["decision-makers"] == "Marc Dubois"  # MADR 3 `deciders`
    assert recs["ADR-0001"].date == "2023-02-14" and recs["ADR-0001"].title == "Choose Svelte for the booking frontend"
    assert recs["ADR-0005"].status == "deprecated" and recs["ADR-0003"].status == "proposed"
    assert recs["ADR-0006"].status == "proposed" and recs["ADR-0006"].metadata["nav_order"] == 6  # no status


def test_log4brains_fixture():
    recs = records(read_all("log4brains"))
    old = recs["20220214-scan-images-with-trivy"]
    assert old.format == "log4brains" and old.status == "superseded"
    assert old.superseded_by == ("20230301-scan-images-in-the-registry",)
    assert old.tags == ("security",) and old.metadata["decision-makers"] == ["Jonas Weber", "Eva Lind"]
    assert recs["20220322-garbage-collect-untagged-manifests"].status == "proposed"  # draft
    assert recs["20230515-replicate-registry-to-second-region"].status == "accepted"  # ✅ Approved


@pytest.mark.parametrize("fmt", ["nygard", "madr2", "madr3", "log4brains"])
def test_links_resolve_and_superseded_retire(fmt):
    res = resolve(list(records(read_all(fmt)).values()))
    assert [i for i in res.issues if "unknown id" in i.message] == []
    superseded = {rid for rid, s in res.effective.items() if s == "superseded"}
    expected = {
        "nygard": {"ADR-0002"},
        "madr2": {"ADR-0002", "ADR-0006"},
        "madr3": {"ADR-0002"},
        "log4brains": {"20220214-scan-images-with-trivy"},
    }[fmt]
    assert superseded == expected
    if fmt == "nygard":  # amends never retires
        assert res.effective["ADR-0003"] == "accepted"


def test_our_format_wins_and_links_reach_its_id():
    native = b"---\nid: dec-ledger-db\nkind: decision\nstatus: accepted\ntitle: Ledger DB\n---\n## Status\n\nRejected\n"
    got = read_record("doc/adr/0020-ledger-db.md", native)
    assert got.format == "jgm" and got.outcome.record.id == "dec-ledger-db" and got.outcome.record.status == "accepted"
    old = read_record("doc/adr/0019-x.md", b"# 19. X\n\n## Status\n\nSuperseded by [20. Ledger](0020-ledger-db.md)\n")
    res = resolve([got.outcome.record, old.outcome.record])
    assert res.records["ADR-0019"].superseded_by == ("dec-ledger-db",)
    assert res.effective["ADR-0019"] == "superseded"


def test_forced_format_and_plain_notes_are_skipped():
    note = b"# Meeting notes\n\nWe talked about the roadmap.\n"
    assert read_record("docs/adr/notes.md", note).outcome.skipped
    forced = read_record("docs/adr/notes.md", note, AdapterOptions(formats={"docs/adr": "nygard"}))
    assert forced.format == "nygard" and forced.outcome.record.id == "notes"


@pytest.mark.parametrize(
    "name,dated",
    [
        ("20201016-x.md", True),
        ("2020-10-16-x.md", True),
        ("2020-02-29_x.md", True),
        ("2021-02-29-x.md", False),
        ("20201345-x.md", False),
        ("00000101-x.md", False),
    ],
)
def test_only_real_calendar_dates_make_a_date_named_file(name, dated):
    from jupiter_git_memory.records.formats.ids import date_named

    assert date_named(f"docs/adr/{name}") is dated
    assert adr_id(f"docs/adr/{name}")[1].startswith("date-named") is dated


# --- each adapter, field by field: what an agent later cites (id, title, status, links, lines) ---
MADR3 = (
    "\ufeff---\nstatus: accepted\ndate: 2024-05-01\ndecision-makers: [alice, bob]\ntags: [db, storage]\n"
    "consulted: carol\n---\n# 7. Use PostgreSQL\n\n## Context\nWe need a database.\n"
)
HUGO_MADR2 = (
    "---\ntitle: Hugo page\nweight: 3\ntags: ops, queue\n---\n# Use Kafka\n\n"
    "* Status: superseded by [ADR-0009](0009-x.md)\n* Deciders: alice, bob\n* Date: 2023-01-02\n\n## Context\ntext\n"
)
MADR2 = (
    "Intro line\n# 10. Use X\n\n* Status: accepted <!-- optional -->\n* Deciders: alice\n* Date: 2020-01-01\n"
    "* Tags: a, b\n* Technical Story: #12\n\n## Context\nbody\n"
)
NYGARD = "# 11. Record decisions\n\nDate: 2019-02-03\n\nStatus: Accepted\n\n## Context\nWe record.\n"


def fields(path: str, text: str, options: AdapterOptions | None = None):
    import hashlib

    reading = read_record(path, text.encode(), options)
    r = reading.outcome.record
    assert reading.outcome.issues == [] and r.kind == "adr" and r.source == path == r.path
    assert r.content_hash == hashlib.sha256(text.encode()).hexdigest()
    return reading.format, r


def test_madr3_front_matter_fields_and_lines():
    fmt, r = fields("docs/decisions/0007-use-postgres.md", MADR3)
    assert (fmt, r.format, r.id, r.status, r.title, r.date) == (
        "madr3",
        "madr3",
        "ADR-0007",
        "accepted",
        "Use PostgreSQL",
        "2024-05-01",
    )
    assert r.body == "## Context\nWe need a database." and r.tags == ("db", "storage")
    assert r.metadata == {
        "consulted": "carol",
        "decision-makers": ["alice", "bob"],
        "status_as_written": "accepted",
        "status_source": "front matter `status`",
        "status_rule": "status table",
    }
    assert r.lines == {"title": 8, "status": 2}  # file lines: the BOM and the front matter count


def test_madr2_bullets_below_a_site_generators_front_matter():
    fmt, r = fields("docs/decisions/0008-use-kafka.md", HUGO_MADR2)
    assert (fmt, r.format, r.id, r.status, r.superseded_by) == (
        "madr3",
        "madr2",
        "ADR-0008",
        "superseded",
        ("ADR-0009",),
    )
    assert (r.title, r.date, r.tags) == ("Hugo page", "2023-01-02", ("ops", "queue"))
    assert r.body.startswith("* Status:") and r.body.endswith("## Context\ntext")
    assert r.metadata == {
        "weight": 3,
        "decision-makers": ["alice", "bob"],
        "status_as_written": "superseded by [ADR-0009](0009-x.md)",
        "status_source": "a `Status:` bullet",
        "status_rule": "link line `superseded by`",
    }
    assert r.lines == {"title": 6, "status": 8}


def test_madr2_bullets_fields_and_lines():
    fmt, r = fields("docs/decisions/0010-use-x.md", MADR2)
    assert (fmt, r.format, r.id, r.status, r.title, r.date, r.tags) == (
        "madr2",
        "madr2",
        "ADR-0010",
        "accepted",
        "Use X",
        "2020-01-01",
        ("a", "b"),
    )
    assert r.metadata == {
        "technical-story": "#12",
        "decision-makers": "alice",
        "status_as_written": "accepted",
        "status_source": "a `Status:` bullet",
        "status_rule": "status table",
    }
    assert r.lines == {"title": 2, "status": 4} and r.body.endswith("## Context\nbody") and "Intro" not in r.body


def test_nygard_status_and_date_lines():
    fmt, r = fields("doc/adr/0011-record.md", NYGARD)
    assert (fmt, r.id, r.status, r.title, r.date) == (
        "nygard",
        "ADR-0011",
        "accepted",
        "Record decisions",
        "2019-02-03",
    )
    assert r.lines == {"title": 1, "status": 5} and r.metadata == {
        "status_as_written": "Accepted",
        "status_source": "a `Status:` line",
        "status_rule": "status table",
    }
    assert r.body == "Date: 2019-02-03\n\nStatus: Accepted\n\n## Context\nWe record."


def test_unreadable_madr_front_matter_names_the_file_and_the_fix():
    opts = AdapterOptions(formats={"docs": "madr3"})
    (issue,) = read_record("docs/x/0001-a.md", b"---\nstatus: [accepted\n---\n# T\n", opts).outcome.issues
    assert (issue.path, issue.line, issue.severity) == ("docs/x/0001-a.md", 1, "error")
    assert "flow sequence" in issue.message and "`---`" in issue.fix


def _status(*lines):
    from jupiter_git_memory.records.formats.status import read_status

    r = read_status(list(enumerate(lines, start=10)), "docs/adr/0001-a.md", {})
    return r.status, r.written, r.line, r.unknown, r.links, r.other_links


def test_partly_superseded_stays_in_force_and_links_its_amendments():
    amended = ("accepted", "Partly superseded by [ADR-3](0003-x.md)", 10, None, {"amended_by": ["ADR-0003"]}, [])
    assert _status("Partly superseded by [ADR-3](0003-x.md)") == amended
    assert _status("Accepted", "", "Partly superseded by [ADR-3](0003-x.md)")[:3] == ("accepted", "Accepted", 10)
    assert _status("Accepted", "Amended by [ADR-4](0004-x.md)", "Amended by ADR-4, ADR-6")[4] == {
        "amended_by": ["ADR-0004", "ADR-0006"]
    }  # each target once, in order
    assert _status("Accepted, supersedes ADR-2")[:5] == (
        "accepted",
        "Accepted, supersedes ADR-2",
        10,
        None,
        {"supersedes": ["ADR-0002"]},
    )


def test_links_with_unknown_verbs_are_kept_beside_the_status():
    assert _status("Accepted", "See also [ADR-5](0005-y.md)")[::5] == ("accepted", ["See also [ADR-5](0005-y.md)"])
    assert _status("Related: [ADR-5](0005-y.md)", "Accepted") == (
        "accepted",
        "Accepted",
        11,
        None,
        {},
        ["Related: [ADR-5](0005-y.md)"],
    )


def test_the_first_status_word_counts_a_later_retiring_one_wins_and_an_unknown_one_is_kept_with_its_line():
    assert _status("Accepted <!-- was: draft -->", "Proposed")[:3] == ("accepted", "Accepted", 10)
    assert _status("Accepted <!-- was: draft -->", "Rejected")[:3] == ("rejected", "Rejected", 11)
    assert _status("Proposed. We could not agree - maybe later")[0] == "proposed"  # commentary after the word
    assert _status("Wibble", "Accepted")[:4] == (None, "Wibble", 10, ("wibble", 10))
    assert _status("Draftish", "Superseded by ADR-7") == (  # a superseding link settles it
        "superseded",
        "Superseded by ADR-7",
        11,
        None,
        {"superseded_by": ["ADR-0007"]},
        [],
    )


@pytest.mark.parametrize(
    "front,fmt",
    [
        ("id: A\nstatus: accepted\n", "jgm"),
        ("kind: fact\n", "jgm"),
        ("status: [unclosed\n", "jgm"),
        ("- a\n", "jgm"),
        ("id: A\ntitle: Docusaurus page\n", "madr3"),
        ("status: accepted\n", "madr3"),
        ("", "madr3"),
    ],
)
def test_our_front_matter_is_kind_or_id_with_status_and_anything_unreadable(front, fmt):
    from jupiter_git_memory.records.formats import detect

    assert detect("docs/adr/0001-a.md", f"---\n{front}---\n# T\n")[0] == fmt
    assert detect("docs/adr/0001-a.md", f"\ufeff---\n{front}---\n# T\n")[0] == fmt
    assert detect("docs/adr/0001-a.md", f"---\n{front}# T\n")[0] == "jgm"  # unclosed: our parser says why


def test_binary_oversized_and_non_utf8_files_are_reported_by_our_parser():
    from jupiter_git_memory.records.model import MAX_RECORD_BYTES

    text = NYGARD.encode()
    for raw, what in (
        (text + b"\x00", "binary"),
        (text + b"x" * MAX_RECORD_BYTES, "record limit"),
        (text + b"\xff", "UTF-8"),
    ):
        reading = read_record("doc/adr/0011-record.md", raw)
        (issue,) = reading.outcome.issues
        assert reading.format == "jgm" and what in issue.message and issue.path == "doc/adr/0011-record.md"
    at_limit = text + b"x" * (MAX_RECORD_BYTES - len(text))
    assert read_record("doc/adr/0011-record.md", at_limit).format == "nygard"


def test_a_forced_format_names_its_root_and_reads_madr3_without_front_matter():
    reading = read_record("docs/decisions/0010-use-x.md", MADR2.encode(), AdapterOptions(formats={"docs": "madr3"}))
    assert reading.format == "madr3" and "'docs'" in reading.why
    r = reading.outcome.record
    assert (r.format, r.id, r.status, r.title, r.date) == ("madr3", "ADR-0010", "accepted", "Use X", "2020-01-01")
    whole = read_record("x/0010-use-x.md", MADR2.encode(), AdapterOptions(formats={"": "madr2"}))
    assert whole.format == "madr2" and "the repository" in whole.why


@pytest.mark.parametrize(
    "written,targets",
    [
        ("[the new decision](0002-x.md#context)", ["ADR-0002"]),  # an anchor does not hide the file
        (
            "[old](https://e.com/0001-a.md), [ADR-3](0003-y.md)",
            ["ADR-0003"],
        ),  # an external link is skipped, not the end
        ("[new](0002-x.markdown)", ["ADR-0002"]),
        ("[ADR-7](../issues/7)", ["ADR-0007"]),  # not a file: the label
        ("[**ADR-2**](../decisions/2)", ["ADR-0002"]),
        ("[Xenon](../decisions/xenon)", ["Xenon"]),
        ("Superseded by 0002-use-x.md", ["ADR-0002"]),
        ("Superseded by 0002-use-x.markdown", ["ADR-0002"]),
        ("ADR-2 and ADR-0002", ["ADR-0002"]),  # each target once
    ],
)
def test_link_targets_read_files_labels_and_bare_references(written, targets):
    assert link_targets(written, "docs/adr/0001-a.md") == targets


def test_header_lines_right_under_the_title_are_read_and_lines_above_it_are_not():
    _, r = fields(
        "docs/decisions/0010-use-x.md", "* Status: rejected\n# 10. Use X\n* Status: accepted\n* Decision-Makers: a, b\n"
    )
    assert (r.status, r.lines, r.metadata["decision-makers"]) == ("accepted", {"title": 2, "status": 3}, ["a", "b"])
    _, r = fields("docs/decisions/0010-use-x.md", "# Use X\n* Status: accepted\n* Decision makers: carol\n")
    assert (r.date, r.metadata["decision-makers"]) == (None, "carol")
    _, r = fields("doc/adr/0012-use-x.md", "# 12. Use X\n## Status\nAccepted\n## Context\nWe use X.\n")
    assert (r.status, r.lines, r.date, r.body) == (
        "accepted",
        {"title": 1, "status": 3},
        None,
        "## Status\nAccepted\n## Context\nWe use X.",
    )


def test_a_date_line_deep_in_the_body_is_not_the_adr_date():
    def text(filler: int) -> str:  # the Date line is line 4 + filler
        return "# 13. X\n\nStatus: Accepted\n" + "".join(f"line {i}\n" for i in range(filler)) + "Date: 2020-01-01\n"

    _, r = fields("doc/adr/0013-x.md", text(37))
    assert r.date is None and r.status == "accepted"
    _, r = fields("doc/adr/0013-x.md", text(36))
    assert r.date == "2020-01-01"  # line 40: still the header


def test_adr_problems_name_the_file_the_line_and_the_setting_that_fixes_them():
    path = "doc/adr/0014-x.md"
    no_status = "Intro\n# 14. Use X\n\n## Context\nWe use X.\n"
    out = read_record(path, no_status.encode()).outcome
    assert out.record.status == "proposed" and out.issues == []  # said once per root by the reading
    (err,) = read_record(path, no_status.encode(), AdapterOptions(missing_status="error")).outcome.issues
    assert (err.path, err.line, err.severity) == (path, 2, "error") and "adr_missing_status" in err.fix
    unknown = read_record(path, b"# 14. Use X\n\nStatus: Wibble\n").outcome.record
    assert (unknown.status, unknown.lines["status"], unknown.metadata["status_unmapped"]) == ("proposed", 3, "wibble")
    untitled = read_record(path, b"Status: Accepted\n\nNo heading here.\n").outcome.record
    assert (untitled.title, untitled.metadata["title_from"]) == ("X", "the file name")  # 0014-x.md


def test_a_forced_madr_front_matter_that_is_not_a_mapping_is_ignored():
    opts = AdapterOptions(formats={"docs": "madr3"})
    r = read_record("docs/x/0001-a.md", b"---\n- a\n---\n# Use T\n\n* Status: proposed\n", opts).outcome.record
    assert (r.format, r.status, r.title, r.metadata["status_as_written"]) == ("madr2", "proposed", "Use T", "proposed")


def test_links_reach_the_id_a_record_really_has_and_ambiguous_ones_stay_as_written():
    from jupiter_git_memory.records.links import resolve_links
    from jupiter_git_memory.records.model import Record

    def rec(rid, path, **links):
        return Record(id=rid, kind="adr", status="accepted", title=rid, body="", path=path, content_hash=rid, **links)

    ours = rec("use-postgres", "docs/adr/0002-use-postgres.md")  # our format: its own id, a numbered file name
    twins = [rec("a", "x/0005-a.md"), rec("b", "y/0005-b.md")]  # two files numbered 5
    linker = rec(
        "ADR-0009",
        "docs/adr/0009-x.md",
        supersedes=("ADR-2", "0002-use-postgres.md", "USE-POSTGRES"),
        amends=("ADR-5", "nowhere"),
        superseded_by=("ADR-0009",),
        amended_by=(),
    )
    out = {r.id: r for r in resolve_links([ours, *twins, linker])}
    assert out["ADR-0009"].supersedes == ("use-postgres",)  # every spelling, once
    assert out["ADR-0009"].amends == ("ADR-5", "nowhere")  # ambiguous and unknown: left for the lifecycle to report
    assert out["ADR-0009"].superseded_by == ("ADR-0009",) and out["use-postgres"] == ours


def test_a_heading_inside_a_code_fence_is_not_the_title():
    for fence in ("```", "~~~", "  ```"):
        text = f"{fence}\n# not the title\n{fence}\n# 15. Real title\n\n## Status\n\nAccepted\n"
        _, r = fields("doc/adr/0015-x.md", text)
        assert (r.title, r.lines["title"]) == ("Real title", 4), fence


def test_status_links_with_unknown_verbs_are_kept_in_metadata():
    text = "# 16. X\n\n## Status\n\nAccepted\n\nSee also [ADR-5](0005-y.md)\n\n## Context\nc\n"
    _, r = fields("doc/adr/0016-x.md", text)
    assert r.metadata["other_links"] == ["See also [ADR-5](0005-y.md)"] and r.status == "accepted"


def test_the_longest_formats_root_wins_and_slashes_do_not_matter():
    opts = AdapterOptions(formats={"docs": "madr2", "/docs/adr/": "nygard"})
    assert opts.forced("docs/adr/0001-a.md") == ("nygard", "docs/adr")
    assert opts.forced("docs/x.md") == ("madr2", "docs")
    assert opts.forced("docsx/a.md") is None and opts.forced("other/docs/a.md") is None
