"""Issue 27, statuses: the vocabularies found in the wild map to our lifecycle out of the box, a retiring phrase
wins, a status jgm cannot map is never in force, links in these formats resolve. Pure, no index."""

import re
import tomllib
from pathlib import Path

import pytest

from jupiter_git_memory.lifecycle.resolve import resolve
from jupiter_git_memory.records.formats import AdapterOptions, read_record
from jupiter_git_memory.records.formats.common import folder_status, status_hint_toml
from jupiter_git_memory.records.formats.status import (
    ADR_STATUSES,
    LIFECYCLE,
    STATUS_TABLE,
    first_words,
    hint_key,
    read_status,
    status_table_markdown,
)

pytestmark = pytest.mark.unit

ADR_PAGE = Path(__file__).resolve().parents[1] / "docs" / "adr-formats.md"


def one(value: str, status_map: dict | None = None):
    r = read_status([(7, value)], "proposals/0001-a.md", status_map or {})
    return r.status, r.links, r.unknown


@pytest.mark.parametrize(
    "written,status",
    [
        # bullet and bold headers (`* Status: **X**`), several words, qualified words
        ("**Implemented (Orbit 5.9)**", "accepted"),
        ("**Accepted with modifications (2024-11-02)**", "accepted"),
        ("**Active review (March 1...March 14, 2025)**", "proposed"),
        ("**Returned for revision** ([Rationale](https://forum.example.org/t/3))", "rejected"),
        ("**Rejected** ([Rationale](https://forum.example.org/t/2))", "rejected"),
        ("Accepted | Implemented", "accepted"),
        ("Accepted on 2021-03-04", "accepted"),
        ("** Approved ** (by TSC vote on 3/15/21)", "approved" and "accepted"),
        ("**Approved** by TSC Vote on 4/28/22", "accepted"),
        ("Accepted: tracking issue [\\#3297].", "accepted"),
        ("Partially Accepted", "accepted"),
        ("In Review.", "proposed"),
        # RFC and proposal life cycles
        ("draft", "proposed"),
        ("active", "accepted"),
        ("final", "accepted"),
        ("Living", "accepted"),
        ("Last Call", "proposed"),
        ("Stagnant", "proposed"),
        ("provisional", "proposed"),
        ("implementable", "accepted"),
        ("withdrawn", "rejected"),
        ("deferred", "proposed"),
        ("postponed", "proposed"),
        ("reverted", "deprecated"),
        ("obsolete", "deprecated"),
        ("replaced", "superseded"),
        ("Moved", "deprecated"),
        # Ember stages
        ("recommended", "accepted"),
        ("ready-for-release", "accepted"),
        ("released", "accepted"),
        ("discontinued", "deprecated"),
        ("exploring", "proposed"),
    ],
)
def test_status_vocabularies_of_the_wild_map_out_of_the_box(written, status):
    assert one(written)[0] == status


@pytest.mark.parametrize(
    "written,status,links",
    [
        ("Implemented. Superseded by [ADR-013](0013-x.md)", "superseded", {"superseded_by": ["ADR-0013"]}),
        ("Deprecated in favor of [ADR-7](0007-x.md)", "deprecated", {"superseded_by": ["ADR-0007"]}),
        ("Accepted (superseded by OR-0009 in 2024)", "superseded", {"superseded_by": ["OR-0009"]}),
        ("Accepted, later deprecated", "deprecated", {}),
        ("Approved, then reverted in v2", "deprecated", {}),
        ("Rejected in favour of ADR 111", "rejected", {"superseded_by": ["ADR-0111"]}),
        ("Accepted. Replaced by [the new one](0009-new.md)", "superseded", {"superseded_by": ["ADR-0009"]}),
        ("Implemented (moved to another repository)", "accepted", {}),  # "moved" in passing retires nothing
        ("Accepted. This replaces ADR-3, which was deprecated", "accepted", {"supersedes": ["ADR-0003"]}),
        ("Accepted, obsoletes RFC 2119", "accepted", {"supersedes": ["ADR-2119"]}),
    ],
)
def test_a_retiring_phrase_anywhere_wins_over_an_in_force_word_before_it(written, status, links):
    assert one(written)[:2] == (status, links)


def test_a_later_retiring_line_of_a_status_section_wins_and_prose_does_not():
    def section(*lines):
        return read_status(list(enumerate(lines, start=3)), "docs/adr/0001-a.md", {})

    assert section("Accepted", "", "Replaced by [ADR 104](0104-x.md)").status == "superseded"
    assert section("Accepted", "Deprecated").status == "deprecated"
    assert section("Accepted", "The old variant was rejected by the board.").status == "accepted"
    quoted = section('> A decision may be "proposed" if it has not been agreed yet.', "{Deprecated|Proposed|Accepted}")
    assert (quoted.status, quoted.unknown) == (None, None)  # a template left in place says nothing


def test_an_unmapped_status_is_never_in_force_and_names_one_key():
    for written in ("Awaiting TSC vote on 2025-02-01", "Leave as is", "Not yet (see the forum)", "Frozen"):
        record = read_record("proposals/0001-a.md", f"# A\n\n* Status: **{written}**\n".encode()).outcome.record
        assert record.status == "proposed" and LIFECYCLE[record.status] != "in force"
        assert record.metadata["status_unmapped"] == hint_key(first_words(written))
    assert hint_key(first_words("Awaiting TSC vote on 2025-02-01")) == "awaiting tsc vote"
    assert hint_key(first_words("**Leave as is**")) == "leave as is"
    mapped = read_record(
        "proposals/0001-a.md",
        b"# A\n\n* Status: **Awaiting TSC vote on 2025-03-09**\n",
        AdapterOptions({"awaiting tsc vote": "accepted"}),
    ).outcome.record
    assert mapped.status == "accepted" and "status_unmapped" not in mapped.metadata


def test_a_status_map_entry_wins_over_the_table_and_its_link_phrases():
    assert one("Accepted with modifications", {"accepted with modifications": "proposed"})[0] == "proposed"
    assert one("Superseded", {"superseded": "deprecated"})[:2] == ("deprecated", {})


def test_fix_hints_are_valid_toml_one_line_per_distinct_word():
    keys = ["awaiting tsc vote", 'say "maybe"', "leave as is"]
    block = status_hint_toml(keys)
    assert tomllib.loads(block) == {"status_map": dict.fromkeys(keys, "proposed")}
    assert block.count("\n") == len(keys)


def test_links_in_the_wild_forms_resolve_to_the_records_they_name():
    def rec(path, text):
        return read_record(path, text.encode()).outcome.record

    new = rec("proposals/0390-new.md", "# New\n\n* Status: **Implemented (Orbit 6)**\n")
    old = rec("proposals/0100-old.md", "# Old\n\n* Status: **Superseded by SE-0390**\n")
    sibling = rec("proposals/0101-older.md", "# Older\n\n* Status: **Replaced by [the new one](0390-new.md)**\n")
    folder = rec("rfcs/0007-x/README.md", "# RFC-0007 X\n\n**Status:** replaced by [RFC-0009](../0009-y/README.md)\n")
    obsoleter = rec("rfcs/0009-y/README.md", "# RFC-0009 Y\n\n**Status:** implemented, obsoletes RFC 7\n")
    res = resolve([new, old, sibling, folder, obsoleter])
    assert res.records["ADR-0100"].superseded_by == ("ADR-0390",)  # a tagged number: SE-0390
    assert res.records["ADR-0101"].superseded_by == ("ADR-0390",)  # a sibling file
    assert res.records["ADR-0007"].superseded_by == ("ADR-0009",)  # a numbered folder's README
    assert res.records["ADR-0009"].supersedes == ("ADR-0007",)  # "Obsoletes RFC 7"
    assert {k: res.effective[k] for k in ("ADR-0100", "ADR-0101", "ADR-0007")} == dict.fromkeys(
        ("ADR-0100", "ADR-0101", "ADR-0007"), "superseded"
    )
    assert not [i for i in res.issues if "unknown id" in i.message]


def test_an_eip_number_resolves_to_the_file_named_by_it():
    final = read_record("EIPS/eip-1559.md", b"---\neip: 1559\ntitle: Fees\nstatus: Final\n---\n\n## Abstract\n\nx\n")
    moved = read_record("EIPS/eip-2.md", b"---\ntitle: Old fees\nstatus: Superseded by EIP-1559\n---\n\nx\n")
    res = resolve([final.outcome.record, moved.outcome.record])
    assert res.records["eip-2"].superseded_by == ("eip-1559",) and res.effective["eip-2"] == "superseded"


def test_records_without_status_are_proposed_unless_a_folder_default_says_otherwise():
    text = b"- Start Date: 2016-02-01\n\n## Summary\n\nS.\n\n## Motivation\n\nM.\n"
    plain = read_record("text/0001-a.md", text).outcome.record
    assert (plain.status, plain.format, plain.metadata["status_source"]) == (
        "proposed",
        "plain",
        "no status anywhere: adr_missing_status",
    )
    opts = AdapterOptions(folder_defaults={"text": "accepted", "text/old": "deprecated"})
    assert read_record("text/0001-a.md", text, opts).outcome.record.status == "accepted"
    assert read_record("text/old/0001-a.md", text, opts).outcome.record.status == "deprecated"  # longest folder
    assert read_record("other/0001-a.md", text, opts).outcome.record.status == "proposed"
    said = read_record("text/0001-a.md", b"# A\n\n## Status\n\nRejected\n", opts).outcome.record
    assert said.status == "rejected"  # the file's own status wins over the folder default


def test_status_map_folder_keys_come_from_the_config(tmp_path):
    from jupiter_git_memory.config import ConfigError, load_settings

    (tmp_path / "text").mkdir()
    (tmp_path / "jgm.toml").write_text('roots = ["text"]\n[status_map]\n"text/" = "accepted"\n"/" = "proposed"\n')
    opts = load_settings(tmp_path).adapter_options()
    assert opts.folder_defaults == {"text": "accepted", "": "proposed"} and opts.status_map == {}
    (tmp_path / "jgm.toml").write_text('[status_map]\n"../x/" = "accepted"\n')
    with pytest.raises(ConfigError, match="relative path"):
        load_settings(tmp_path)


def test_the_change_log_and_the_folder_name_say_the_status_when_nothing_else_does():
    log = "# X\n\n## Change Log\n<!--\nState is one of: pending, approved, deprecated.\n-->\n- [proposed](https://e.org/1) (2021-12-28)\n- [approved](https://e.org/2) (2022-02-18)\n\n## Context\n\nc\n"
    r = read_record("docs/adr/0004-x.md", log.encode()).outcome.record
    assert (r.status, r.metadata["status_source"], r.lines["status"]) == ("accepted", "a change-log entry", 7)
    table = (
        "# X\n\n## History\n\n| Date | State |\n| --- | --- |\n| 2020-01-01 | Proposed |\n| 2021-01-01 | Rejected |\n"
    )
    assert read_record("docs/adr/0004-x.md", table.encode()).outcome.record.status == "rejected"
    assert folder_status("withdrawn/0006-x.md") == ("rejected", "withdrawn")
    assert folder_status("active-rfcs/0001-x.md") == ("accepted", "active-rfcs")
    assert folder_status("drafts/0001-x.md") == ("proposed", "drafts")
    assert folder_status("text/0001-x.md") is None
    r = read_record("withdrawn/0006-x.md", b"---\ntitle: X\n---\n# X\n\n## Summary\n\ns\n").outcome.record
    assert (r.status, r.metadata["status_source"]) == ("rejected", "the folder name `withdrawn/`")


def test_ember_stage_front_matter_without_kind_and_a_summary_heading():
    text = b"---\nstage: recommended\nstart-date: 2019-04-01T00:00:00.000Z\n---\n\n# Summary\n\nRoutes own their query params.\n"
    r = read_record("text/0001-query-params.md", text).outcome.record
    assert (r.format, r.status, r.title, r.metadata["title_from"]) == (
        "madr3",
        "accepted",
        "Query params",
        "the file name (the first heading is only 'Summary')",
    )
    assert r.metadata["status_source"] == "front matter `stage`" and "stage" not in r.metadata


def test_the_docs_status_table_is_the_code_table():
    text = ADR_PAGE.read_text("utf-8")
    assert status_table_markdown() in text, "regenerate the docs/adr-formats.md table from status_table_markdown()"
    assert set(STATUS_TABLE.values()) == set(ADR_STATUSES) == set(LIFECYCLE)
    # keys as lookup normalises them: lower-case words, or one run of Chinese characters
    assert all(re.fullmatch(r"[a-z]+(?: [a-z]+)*|[\u4e00-\u9fff]+", w) for w in STATUS_TABLE)
