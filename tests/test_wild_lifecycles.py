"""Issue 40: in-force records must not hide behind status words we never met. Status words of other
lifecycles (version-qualified, RFC/KEEP-style), the status in a table row or a bullet under a section,
lifecycle keys beside the status (`superseded-by:`), numbered proposal folders at the repository root, a
numbered decision named `template`, Windows line endings and a BOM, impossible dates, another project's
`kind:`. Fixtures are our own (tests/fixtures/wild/lifecycles, rootproposals). Pure, no index."""

import shutil
from pathlib import Path

import pytest

from jupiter_git_memory.config import load_settings
from jupiter_git_memory.records.formats import read_record
from jupiter_git_memory.records.formats.evidence import examine, is_template
from jupiter_git_memory.records.formats.status import LIFECYCLE, read_status
from jupiter_git_memory.seed import sources
from jupiter_git_memory.seed.reading import read_knowledge

pytestmark = pytest.mark.unit

WILD = Path(__file__).parent / "fixtures" / "wild"


def read(repo: Path):
    settings = load_settings(repo)
    files, _issues = sources.read_worktree(repo, settings)
    return settings, read_knowledge(files, {}, settings, reuse=False)


# id -> (declared status, effective status, where the status was read)
LIFECYCLES = {
    "ADR-0001": ("accepted", "accepted", "a `Status:` bullet"),  # Stable in 1.1
    "ADR-0002": ("accepted", "accepted", "a `Status:` bullet"),  # Implemented in 1.3
    "ADR-0003": ("proposed", "proposed", "a `Status:` bullet"),  # Experimental in 2.2
    "ADR-0004": ("proposed", "proposed", "a `Status:` bullet"),  # Public discussion
    "ADR-0005": ("proposed", "proposed", "a `| Status |` table row"),  # Final Comment Period, not "final"
    "ADR-0006": ("accepted", "accepted", "a `| Status |` table row"),  # | Status | Shipped | as the first row
    "ADR-0007": ("accepted", "accepted", "a `Status:` line"),  # `* Status: Approved` under `## Metadata`
    "ADR-0008": ("rejected", "rejected", "a `Status:` bullet"),  # Dropped
    "ADR-0009": ("accepted", "accepted", "a `Status:` bullet"),  # Active (the loader parts deprecated …)
    "ADR-0010": ("superseded", "superseded", "the `superseded-by` key"),  # status: implemented
    "ADR-0011": ("accepted", "accepted", "front matter `state`"),  # state: shipped
    "ADR-0012": ("accepted", "accepted", "a `Status:` bullet"),  # 0012-template.md: a numbered decision
    "ADR-0013": ("accepted", "accepted", "front matter `status`"),  # kind: language-proposal, a bad date
    "ADR-0014": ("rejected", "superseded", "a `Status:` bullet"),  # Rejected (In favor of [named operators])
    "ADR-0015": ("accepted", "accepted", "a `Status:` bullet"),
}


def test_every_lifecycle_shape_gets_its_status_and_links():
    settings, k = read(WILD / "lifecycles")
    assert settings.roots == ("knowledge", "proposals")
    res = k.resolution
    got = {rid: (r.status, res.effective[rid], r.metadata["status_source"]) for rid, r in res.records.items()}
    assert got == LIFECYCLES
    assert not [r.id for r in res.records.values() if "status_unmapped" in r.metadata]
    assert not [i for i in k.issues if i.severity == "error"]
    # lifecycle keys: `superseded-by: [GDP-0011]` and `supersedes: GDP-0010` name records by a tagged number
    assert res.records["ADR-0010"].superseded_by == ("ADR-0011",) and res.superseded_by["ADR-0010"] == ["ADR-0011"]
    assert res.records["ADR-0011"].supersedes == ("ADR-0010",)
    # a retiring phrase about a part of the record amends it, it does not retire it
    assert res.records["ADR-0009"].amended_by == ("ADR-0012",) and not res.records["ADR-0009"].superseded_by
    # an impossible date is a warning naming its key and line, and the record is kept
    (warning,) = [i for i in k.issues if i.path.endswith("0013-trait-objects.md")]
    assert (warning.severity, warning.line) == ("warning", 4) and "`created: 2021-26-02`" in warning.message
    skipped = {s["path"] for s in k.collected.skipped}
    assert "proposals/0012-template.md" not in skipped


def test_another_projects_kind_goes_to_the_adapter_that_fits_and_says_why():
    reading = read_record(
        "proposals/0013-x.md", b"---\nkind: language-proposal\nstatus: Accepted\n---\n\n# Trait objects\n"
    )
    assert reading.format == "madr3" and reading.outcome.record.status == "accepted"
    assert "its own `kind: language-proposal`, not one of ours" in reading.why
    with_id = read_record("knowledge/x.md", b"---\nid: x\nkind: memo\nstatus: accepted\ntitle: X\n---\nx\n")
    assert with_id.format == "jgm" and "unknown kind 'memo'" in with_id.outcome.issues[0].message  # ours: told
    ours = read_record("knowledge/a.md", b"---\nid: a\nkind: decision\nstatus: accepted\ntitle: A\n---\nx\n")
    assert ours.format == "jgm" and ours.outcome.record.kind == "decision"
    typo = read_record("knowledge/a.md", b"---\nid: a\nkind: decison\nstatus: accepted\ntitle: A\n---\nx\n")
    assert typo.format == "jgm" and "unknown kind" in typo.outcome.issues[0].message  # a typo of ours: told


def test_windows_line_endings_and_a_bom_read_like_any_file(tmp_path):
    repo = tmp_path / "r"
    shutil.copytree(WILD / "lifecycles", repo)
    for i, f in enumerate(sorted((repo / "proposals").glob("*.md"))):
        data = f.read_bytes().replace(b"\n", b"\r\n")
        f.write_bytes((b"\xef\xbb\xbf" if i % 2 else b"") + data)  # every other one with a BOM too
    _settings, k = read(repo)
    res = k.resolution
    got = {rid: (r.status, res.effective[rid], r.metadata["status_source"]) for rid, r in res.records.items()}
    assert got == LIFECYCLES
    assert res.records["ADR-0010"].title == "Null safety, first design"
    assert not [i for i in k.issues if i.severity == "error"]


def test_crlf_front_matter_without_our_keys_is_not_taken_for_ours():
    text = b"---\r\nstatus: accepted\r\ndate: 2021-01-02\r\n---\r\n# Use X\r\n\r\nBody.\r\n"
    reading = read_record("docs/adr/0001-use-x.md", text)
    assert reading.format == "madr3" and reading.outcome.record.status == "accepted"
    assert reading.outcome.record.date == "2021-01-02" and reading.outcome.issues == []


def test_numbered_proposal_folders_at_the_repository_root_are_found():
    settings, k = read(WILD / "rootproposals")
    assert settings.roots == ("knowledge", ".") and settings.shallow_roots == (".",)
    res = k.resolution
    got = {rid: (r.title, r.status, res.effective[rid]) for rid, r in res.records.items()}
    assert got == {
        "WGP-0001": ("Proposal process", "accepted", "accepted"),
        "WGP-0002": ("Frame encoding with CBOR", "deprecated", "superseded"),  # Inactive, Superseded-By
        "WGP-0003": ("Heartbeat interval of thirty seconds", "proposed", "proposed"),  # and a bad date
        "WGP-0004": ("Pairing with a six-digit code", "rejected", "rejected"),
        "WGP-0005": ("Frame encoding with protobuf", "accepted", "accepted"),
    }
    assert res.records["WGP-0005"].supersedes == ("WGP-0002",)
    paths = {r.path for r in res.records.values()}
    assert not paths & {"README.md", "CONTRIBUTING.md", "docs/process-overview.md", "WGP-0005/assets/layout.md"}
    assert [i.line for i in k.issues if i.severity == "warning" and "not a real date" in i.message] == [6]


@pytest.mark.parametrize(
    "written,status",
    [
        ("Stable in 1.1", "accepted"),
        ("Shipped in 2.0", "accepted"),
        ("Released (v3.2.1)", "accepted"),
        ("Implemented in 1.3", "accepted"),
        ("Completed", "accepted"),
        ("Experimental in 2.2", "proposed"),
        ("Public discussion", "proposed"),
        ("Final Comment Period", "proposed"),  # not the "final" of EIPs
        ("FCP", "proposed"),
        ("Dormant", "proposed"),
        ("Dropped", "rejected"),
        ("Declined", "rejected"),
        ("Withdrawn", "rejected"),
        ("Abandoned", "rejected"),
        ("Inactive", "deprecated"),
        ("Deprecated by [X](0004-x.md)", "deprecated"),
        ("Rejected (In favor of [Y](0009-y.md))", "rejected"),
        ("Active (some parts deprecated in favor of [Z](0003-z.md))", "accepted"),
        ("Accepted, later superseded by ADR-9", "superseded"),  # no part named: retired
        ("Implemented (Python 2 support dropped)", "accepted"),  # "dropped" in passing retires nothing
    ],
)
def test_status_words_of_other_lifecycles(written, status):
    got = read_status([(3, written)], "proposals/0001-a.md", {})
    assert (got.status, got.unknown) == (status, None)


def test_status_tables_and_bullets_in_every_place_teams_write_them():
    def status(text: str):
        r = read_record("rfcs/0001-a.md", text.encode()).outcome.record
        return r.status, r.metadata.get("status_source")

    body = "\n\n## Context\n\nc\n"
    assert status("# A\n\n| Status | Accepted |\n| --- | --- |\n| Date | 2020 |" + body)[0] == "accepted"
    assert status("# A\n\n| Author | Status | Date |\n| --- | --- | --- |\n| me | Rejected | 2020 |" + body) == (
        "rejected",
        "a `| Status |` table row",
    )
    assert status("# A\n\n| **Status:** | Withdrawn |\n" + body)[0] == "rejected"
    assert status("* Status: Approved\n* Date: 2020-01-01\n\n# A" + body) == ("accepted", "a `Status:` bullet")
    assert status("# A\n\n- **Status**: Approved" + body)[0] == "accepted"
    above = "---\nlayout: page\n---\n* Status: Approved\n\n# A" + body  # a site generator's front matter
    assert status(above) == ("accepted", "a `Status:` bullet")
    assert status("# A\n\n```\nStatus: Accepted\n```" + body)[0] == "accepted"
    replaced = read_record("rfcs/0001-a.md", b"# A\n\n* Status: Accepted\n* Replaced by: RFC 7\n" + body.encode())
    assert replaced.outcome.record.status == "superseded" and replaced.outcome.record.superseded_by == ("ADR-0007",)
    tasks = "# A\n\n| Task | Status |\n| --- | --- |\n| Write | Completed |\n| Review | Rejected |\n" + body
    assert status(tasks) == ("proposed", "no status anywhere: adr_missing_status")  # a task list says nothing
    assert examine("notes/2021-03-04-standup.md", "# Standup\n\n| Task | Status |\n| --- | --- |\n").marker is None
    assert examine("notes/2021-03-04-standup.md", "# Standup\n\n## Actions\n\n- Status: open\n").marker is None
    fenced = "# A\n\n```\n| Status | Accepted |\n```\n" + body
    assert status(fenced) == ("proposed", "no status anywhere: adr_missing_status")  # an example, not a status
    # a change log's table is the change log's: its oldest row does not become the status
    log = "# A\n\n## History\n\n| Date | Status |\n| --- | --- |\n| 2020 | Proposed |\n| 2021 | Rejected |\n"
    assert status(log) == ("rejected", "a change-log entry")
    for text in ("# A\n\n| Status | Accepted |\n", "# A\n\n## Metadata\n\n* Status: Approved\n"):
        assert examine("rfcs/0001-a.md", text).marker is not None  # discovery sees them too


def test_lifecycle_keys_retire_whatever_the_status_word_says_and_empty_ones_do_not():
    def rec(front: str):
        return read_record("rfcs/0003-c.md", f"---\n{front}---\n# C\n\nx\n".encode()).outcome.record

    for key in ("superseded-by", "superseded_by", "Replaced-By", "supersededBy"):
        r = rec(f"status: implemented\n{key}: [RFC-0107]\n")
        assert (r.status, r.superseded_by) == ("superseded", ("RFC-0107",)), key
        assert LIFECYCLE[r.status] == "retired" and "names its replacement" in r.metadata["status_rule"]
    r = rec("status: active\ndeprecated-by: RFC-0200\n")
    assert (r.status, r.superseded_by) == ("deprecated", ("RFC-0200",))
    for empty in ("", "null", "[]", "N/A", "~"):
        r = rec(f"status: active\nsuperseded-by: {empty}\n")
        assert (r.status, r.superseded_by) == ("accepted", ()), empty
    r = rec("status: rejected\nsuperseded-by: RFC-0009\n")
    assert r.status == "rejected"  # already retired: the word stays, the link is kept
    assert "superseded-by" not in r.metadata  # read as a link, not kept as loose metadata


def test_template_detection_never_drops_a_numbered_decision():
    assert not is_template("proposals/0012-template.md", "12. Template")
    assert not is_template("docs/adr/0023-adr-template.md", "Use a shorter ADR template")
    assert is_template("docs/adr/0000-adr-template.md", "Title")
    assert is_template("docs/adr/adr-template.md") and is_template("docs/adr/template.md")
    assert is_template("rfcs/0012-template.md", "RFC-NNNN Title")  # a placeholder title still says so
    assert is_template("proposal-templates/0001-x.md")  # a templates folder


def test_tool_files_with_a_bom_and_windows_line_endings_name_their_folder(tmp_path):
    from jupiter_git_memory.config.discover import tool_roots

    (tmp_path / "design/records").mkdir(parents=True)
    (tmp_path / ".adr-dir").write_bytes(b"\xef\xbb\xbfdesign/records\r\n")
    (tmp_path / ".log4brains.yml").write_bytes(b"\xef\xbb\xbfproject:\r\n  adrFolder: ./docs/log\r\n")
    assert tool_roots(tmp_path) == ["design/records", "docs/log"]
