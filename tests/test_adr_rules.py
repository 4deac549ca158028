"""ADR adapter rules, one documented behaviour per test (pure): ids, status words and links, MADR bullets
and front matter. Each test states a rule a mutation of the adapters broke without any test noticing."""

import pytest

from jupiter_git_memory.records.formats import AdapterOptions, detect, read_record
from jupiter_git_memory.records.formats.ids import adr_id, link_targets
from jupiter_git_memory.records.formats.status import normalise, read_status

pytestmark = pytest.mark.unit

PATH = "docs/decisions/0010-use-x.md"


def record(text: str, options: AdapterOptions | None = None, path: str = PATH):
    out = read_record(path, text.encode(), options).outcome
    assert out.record is not None, out.issues
    return out.record, out.issues


def test_ids_keep_the_file_name_without_its_extension_and_bad_characters():
    assert adr_id("decisions/use-postgres.markdown")[0] == "use-postgres"
    assert adr_id("decisions/use-postgres.MD")[0] == "use-postgres"
    assert adr_id("decisions/-use x-.md")[0] == "use-x"  # no leading or trailing separators
    assert adr_id("decisions/Xenon_.md")[0] == "Xenon"  # letters at the edges stay
    assert adr_id("decisions/+++.md")[0] == "adr"  # nothing left: a fixed fallback
    assert adr_id("decisions/" + "a" * 200 + ".md")[0] == "a" * 128  # capped at 128 characters


def test_a_link_target_is_the_file_before_the_first_anchor():
    assert link_targets("[next](0002-x.md#a#b)", "docs/adr/0001-a.md") == ["ADR-0002"]


def test_status_words_lose_backticks_and_underscore_emphasis():
    assert [normalise(w) for w in ("`Accepted`", "_Accepted_", "__Xeno__", "Approved by X.")] == [
        "accepted",
        "accepted",
        "xeno",
        "approved by x",
    ]


def _read(*lines, status_map=None):
    return read_status(list(enumerate(lines, start=10)), "docs/adr/0001-a.md", status_map or {})


def test_a_link_verb_mapped_in_status_map_is_read_as_a_status_word():
    r = _read("Superseded", status_map={"superseded": "deprecated"})
    assert (r.status, r.line, r.links) == ("deprecated", 10, {})


def test_emphasis_around_the_verb_does_not_hide_the_link_target():
    r = _read("**Superseded** by ADR-7")
    assert (r.status, r.links) == ("superseded", {"superseded_by": ["ADR-0007"]})


def test_partially_superseded_is_read_like_partly_superseded():
    r = _read("Partially superseded by [ADR-3](0003-x.md)")
    assert (r.status, r.line, r.unknown, r.links) == ("accepted", 10, None, {"amended_by": ["ADR-0003"]})


def test_a_status_sentence_with_a_link_is_still_a_status():
    r = _read("Accepted. See [ADR-5](0005-y.md) for the context")
    assert (r.status, r.line) == ("accepted", 10)


def test_a_superseding_line_counts_after_notes_and_other_links():
    r = _read("Accepted", "See also [ADR-5](0005-y.md)", "Some note", "Superseded by ADR-9")
    assert (r.status, r.line, r.links["superseded_by"]) == ("superseded", 13, ["ADR-0009"])


def test_madr2_bullets_first_one_wins_comments_dropped_and_empty_deciders_left_out():
    r, issues = record(
        "# Use X\n* Status: accepted\n* Status: rejected\n* Deciders: alice <!-- all -->\n"
        "* Date: 2020-01-01 <!-- when -->\n"
    )
    assert (issues, r.status, r.lines["status"], r.date, r.metadata["decision-makers"]) == (
        [],
        "accepted",
        2,
        "2020-01-01",
        "alice",
    )
    assert r.body.startswith("* Status: accepted")  # the body starts right under the title
    r, _ = record("# Use X\n* Status: accepted\n* Deciders:\n")
    assert "decision-makers" not in r.metadata


def test_a_forced_madr2_file_without_status_follows_adr_missing_status():
    opts = AdapterOptions(formats={"docs": "madr2"}, missing_status="error")
    (err,) = read_record(PATH, b"# Use X\n\nbody\n", opts).outcome.issues
    assert (err.path, err.line, err.severity) == (PATH, 1, "error") and "status" in err.message
    r, issues = record("# Use X\n\nbody\n", AdapterOptions(formats={"docs": "madr2"}))
    assert (r.status, issues) == ("proposed", [])


def test_madr3_front_matter_title_without_heading_status_line_and_no_tags():
    r, issues = record(
        "---\ntitle: Use X\ndate: 2024-05-01\nconsulted: carol\ninformed: dave\nstatus: accepted\n---\nbody text\n"
    )
    assert (issues, r.title, r.status, r.tags, r.lines) == ([], "Use X", "accepted", (), {"status": 6})
    r, _ = record("---\nstatus: accepted\n---\nno heading\n")
    assert (r.title, r.metadata["title_from"]) == ("Use x", "the file name")
    r, _ = record("---\nstatus: accepted  # reviewed: yes\n---\n# Use X\nWe chose X.\n")
    assert (r.lines, r.body) == ({"title": 4, "status": 2}, "We chose X.")
    r, _ = record('---\n"status": accepted\n---\n# Use X\nstatus: see the table\n')
    assert r.status == "accepted" and "status" not in r.lines  # the status line is a front matter line


def test_madr3_deciders_are_decision_makers_once_and_an_empty_list_is_left_out():
    r, _ = record("---\nstatus: accepted\ndeciders: [a, b]\n---\n# Use X\n")
    assert r.metadata["decision-makers"] == ["a", "b"] and r.metadata["status_as_written"] == "accepted"
    r, _ = record("---\nstatus: accepted\ndecision-makers: []\n---\n# Use X\n")
    assert "decision-makers" not in r.metadata


def test_madr3_status_links_and_an_empty_status_falls_back_to_bullets():
    r, _ = record("---\nstatus: superseded by [ADR-9](0009-x.md)\n---\n# Use X\n")
    assert (r.status, r.superseded_by) == ("superseded", ("ADR-0009",))
    r, issues = record('---\nstatus: ""\n---\n# Use X\n* Status: proposed\n')
    assert (issues, r.format, r.status, r.lines["status"]) == ([], "madr2", "proposed", 5)
    r, issues = record("---\ntags: a\n---\n* Status: rejected\n# Use X\n* Status: accepted\n")
    assert (issues, r.status, r.lines["status"]) == ([], "accepted", 6)  # bullets above the title are not read
    r, issues = record("---\ntitle: Use X\n---\n* Status: rejected\n\nbody\n")
    assert (issues, r.status, r.lines) == ([], "rejected", {"status": 4})  # no heading: bullets from the top


def test_an_indented_front_matter_is_read_as_madr3():
    assert detect(PATH, "---\n  status: accepted\n  title: X\n---\n# T\n")[0] == "madr3"


def test_a_status_line_is_looked_for_in_the_first_40_lines_only():
    def text(filler: int) -> str:  # the Status line is line 2 + filler
        return "# 13. X\n" + "".join(f"line {i}\n" for i in range(filler)) + "Status: Rejected\n"

    assert record(text(38), path="doc/adr/0013-x.md")[0].status == "rejected"
    r, issues = record(text(39), path="doc/adr/0013-x.md")
    assert (r.status, issues, r.metadata["status_source"][:9]) == ("proposed", [], "no status")


def test_every_reading_says_why_it_was_read_or_skipped():
    for raw in (b"\x00", b"\xff", b"just a note\n"):
        reading = read_record("notes/a.md", raw)
        assert reading.why and isinstance(reading.why, str)
    skipped = read_record("notes/a.md", b"just a note\n")
    assert skipped.format is None and skipped.why == skipped.outcome.skipped


def test_forced_roots_keep_their_letters_and_the_first_of_equal_roots_wins():
    assert AdapterOptions(formats={"Xdocs/": "madr2"}).forced("Xdocs/a.md") == ("madr2", "Xdocs")
    assert AdapterOptions(formats={"docs": "madr2", "/docs/": "nygard"}).forced("docs/a.md") == ("madr2", "docs")


def test_a_status_bullet_on_the_first_line_makes_the_file_madr2():
    assert detect(PATH, "* Status: accepted\n\n# Use X\n")[0] == "madr2"
