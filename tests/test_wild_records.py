"""Issue 27, records: duplicate numbers keep both files under distinct ids, titles fall back sensibly, a
numbered folder's README is named by its folder. Pure."""

import pytest

from jupiter_git_memory.lifecycle.resolve import resolve
from jupiter_git_memory.records.formats import BARE_FOLDER_README, detect, read_record
from jupiter_git_memory.records.formats.common import clean_title, title_from_name
from jupiter_git_memory.records.formats.ids import adr_id, attachment_folder, collection_number, folder_record
from jupiter_git_memory.records.links import distinct_numbers

pytestmark = pytest.mark.unit

RFC = "---\nstage: released\n---\n\n# Summary\n\n{s}\n\n# Motivation\n\nm\n\n# Detailed design\n\nd\n"


def rec(path: str, text: str):
    out = read_record(path, text.encode()).outcome
    assert out.record is not None, out.issues
    return out.record


def test_two_files_sharing_a_number_are_both_indexed_under_distinct_ids_with_a_warning():
    a = rec("text/0003-cli-doctor.md", RFC.format(s="A doctor command."))
    b = rec("text/0003-block-params.md", RFC.format(s="Block parameters."))
    c = rec("text/0004-other.md", RFC.format(s="Another one."))
    res = resolve([a, b, c])
    assert sorted(res.records) == ["ADR-0003-block-params", "ADR-0003-cli-doctor", "ADR-0004"]
    assert res.rejected_paths == set()
    warns = {i.path: i for i in res.issues}
    assert warns["text/0003-cli-doctor.md"].severity == "warning"
    assert "also used by text/0003-block-params.md" in warns["text/0003-cli-doctor.md"].message
    assert "ADR-0003-cli-doctor" in warns["text/0003-cli-doctor.md"].fix


def test_the_same_file_name_in_two_folders_adds_the_folder_and_our_own_ids_stay_strict():
    a = rec("docs/adr/core/0007-release.md", "# 7. Release\n\n## Status\n\nAccepted\n")
    b = rec("docs/adr/devops/0007-release.md", "# 7. Release\n\n## Status\n\nAccepted\n")
    out, issues, shared = distinct_numbers([a, b])
    assert shared == {"ADR-0007": ["ADR-0007-core-release", "ADR-0007-devops-release"]}
    assert sorted(r.id for r in out) == ["ADR-0007-core-release", "ADR-0007-devops-release"] and len(issues) == 2
    ours = "---\nid: ADR-0007\nkind: decision\nstatus: accepted\ntitle: T\n---\nbody\n"
    mine = read_record("knowledge/ADR-0007.md", ours.encode()).outcome.record
    res = resolve([mine, rec("docs/adr/0007-x.md", "# 7. X\n\n## Status\n\nAccepted\n")])
    assert res.rejected_paths == {"knowledge/ADR-0007.md", "docs/adr/0007-x.md"}  # a real conflict: both errors


def test_a_link_to_a_shared_number_is_ambiguous_and_reported_not_guessed():
    a = rec("text/0003-a.md", "# A\n\n## Status\n\nAccepted\n")
    b = rec("text/0003-b.md", "# B\n\n## Status\n\nAccepted\n")
    old = rec("text/0001-old.md", "# Old\n\n## Status\n\nSuperseded by ADR-3\n")
    res = resolve([a, b, old])
    assert res.records["ADR-0001"].superseded_by == ("ADR-0003",) and res.effective["ADR-0001"] == "superseded"
    (dangling,) = [i for i in res.issues if i.path == "text/0001-old.md"]
    assert "'ADR-0003', a number 2 files share (ADR-0003-a, ADR-0003-b)" in dangling.message


@pytest.mark.parametrize(
    "heading,title",
    [
        ("# 12. Use X", "Use X"),
        ("# ADR 101: Mempool lanes", "Mempool lanes"),
        ("# RFC-0006 Flux receivers", "Flux receivers"),
        ("# KEP-1287: In-place updates", "In-place updates"),
        ("# Proposal: Monotonic time", "Monotonic time"),
        ("# Proposal: testing: sub-tests", "testing: sub-tests"),
        ("# Architecture Decision Record: Configuration", "Configuration"),
        ("# SE-0001: Keywords as labels", "Keywords as labels"),
        ("# Allow (most) keywords as argument labels", "Allow (most) keywords as argument labels"),
    ],
)
def test_titles_lose_their_number_and_kind_of_document(heading, title):
    assert clean_title(heading[2:]) == title


def test_a_section_heading_or_no_heading_gives_the_title_from_the_file_name():
    r = rec("text/0001-private-fields.md", "- Start Date: 2014-03-11\n\n## Summary\n\nFields are private.\n")
    assert (r.title, r.lines.get("title"), r.format) == ("Private fields", None, "plain")
    r = rec("active-rfcs/0013-composition-api.md", "- Start Date: 2019-07-10\n\n# Summary\n\nx\n\n# Motivation\n")
    assert (r.title, r.date) == ("Composition api", "2019-07-10")  # the Start Date bullet is the date
    r = rec("EIPS/eip-1046.md", "---\neip: 1046\nstatus: Moved\n---\n\nThis file was moved.\n")
    assert (r.title, r.status) == ("eip-1046", "deprecated")  # a stub with no title keeps its name
    assert title_from_name("rfcs/0006-cdevents/README.md") == "Cdevents"
    assert title_from_name("docs/adr/2020-10-16-use-slugs.md") == "Use slugs"


def test_a_numbered_folder_readme_is_the_record_of_that_folder():
    text = "# RFC-0006 Receivers\n\n**Status:** implementable\n\n## Summary\n\ns\n\n## Motivation\n\nm\n"
    r = rec("rfcs/0006-cdevents/README.md", text)
    assert (r.id, r.title, r.status) == ("ADR-0006", "Receivers", "accepted")
    assert adr_id("rfcs/0006-cdevents/README.md")[1].startswith("README of a numbered folder")
    assert folder_record("rfcs/0006-cdevents/index.md") and not folder_record("rfcs/README.md")
    bare = "# Design document\n\nThe real document is generated from the other file.\n"
    assert detect("design/44167/README.md", bare) == (None, BARE_FOLDER_README)


def test_files_in_a_record_folder_are_its_attachments_and_dates_or_years_are_not_numbers():
    assert attachment_folder("text/3392-council/motivation.md") == "3392-council"
    assert attachment_folder("docs/adr/devops/0007/notes.md") == "0007"
    assert attachment_folder("rfcs/0006-x/README.md") is None  # the record itself
    assert attachment_folder("decisions/2023/0001-x.md") is None and attachment_folder("d/2023-05/0001-x.md") is None
    assert attachment_folder("docs/python3/x.md") is None and attachment_folder("docs/v2/x.md") is None
    assert detect("text/3392-council/motivation.md", "# Motivation\n\n## Status\n\nAccepted\n")[0] is None
    assert [collection_number(n) for n in ("0012-x.md", "adr-012-x.md", "rfc-100-x.md", "eip-1559.md", "2021")] == [
        12,
        12,
        100,
        1559,
        None,
    ]


def test_a_numbered_file_with_only_second_level_headings_is_read():
    r = rec("text/0002-let-else.md", "- Feature Name: `let_else`\n\n## Summary\n\nx\n\n## Motivation\n\ny\n")
    assert (r.id, r.status, r.format) == ("ADR-0002", "proposed", "plain")
    assert detect("text/0002-x.md", "just prose, no heading at all\n")[0] is None
