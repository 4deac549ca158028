"""Issue 35 item 10: a status line that retires its decision in plain English, strikes the old word, moves it
with an arrow or hedges it is never read as in force. Each phrase in both shapes (a Nygard `## Status`
section and a MADR `* Status:` bullet), and the qualifiers that must stay accepted. Fixtures are our own
(tests/fixtures/wild/retiring and the texts below). Pure, no index."""

from pathlib import Path

import pytest

from jupiter_git_memory.config import load_settings
from jupiter_git_memory.records.formats import read_record
from jupiter_git_memory.records.formats.status import read_status, status_table_markdown
from jupiter_git_memory.seed import sources
from jupiter_git_memory.seed.reading import read_knowledge

pytestmark = pytest.mark.unit

WILD = Path(__file__).parent / "fixtures" / "wild" / "retiring"


def nygard(status: str) -> str:
    return (
        f"# 4. Keep build caches on the runners\n\nDate: 2022-03-01\n\n## Status\n\n{status}\n\n"
        "## Context\n\nBuilds download the same toolchains every run.\n\n## Decision\n\nCache them.\n\n"
        "## Consequences\n\nRunners need larger disks.\n"
    )


def madr(status: str) -> str:
    return (
        f"# Keep build caches on the runners\n\n* Status: {status}\n* Date: 2022-03-01\n\n"
        "## Context and Problem Statement\n\nBuilds download the same toolchains every run.\n\n"
        "## Decision Outcome\n\nChosen option: cache them, because downloads dominate build time.\n"
    )


SHAPES = {"nygard": (nygard, "docs/adr/0004-build-caches.md"), "madr": (madr, "docs/decisions/0004-build-caches.md")}

# written status -> what it is read as. Undoing a decision is deprecated, withdrawing or cancelling it rejected.
RETIRING = {
    "Accepted, later revoked": "deprecated",
    "Accepted → Revoked": "deprecated",
    "Accepted -> Revoked": "deprecated",
    "Accepted => Rejected": "rejected",
    "~~Accepted~~ Revoked": "deprecated",
    "~Accepted~ Deprecated": "deprecated",
    "<del>Accepted</del> Overturned": "deprecated",
    "Accepted; no longer valid": "deprecated",
    "Approved; overturned": "deprecated",
    "Implemented, later removed": "deprecated",
    "Accepted, removed in 3.0": "deprecated",
    "Accepted (rescinded by the architecture board)": "deprecated",
    "Adopted; repealed 2023-01-10": "deprecated",
    "Accepted, later withdrawn": "rejected",
    "Accepted, later retracted": "rejected",
    "Accepted, no longer in effect": "deprecated",
    "Accepted → Superseded by ADR-9": "superseded",
    "Proposed → Accepted → Deprecated": "deprecated",
}
HEDGED = ["Accepted (draft)", "Accepted?", "**Accepted**?", "Accepted (?)", "Tentatively accepted"]
HEDGED += ["Accepted (tentative)", "Accepted (provisional)", "Approved (not final)", "Accepted draft"]
# Qualifiers that do not doubt or retire the decision: a revision, pending work, a sentence about what it
# removed, a struck retired word, an arrow inside parentheses, a question after the status sentence.
STAYS = {
    "Accepted (revised 2021)": "accepted",
    "Accepted (pending implementation)": "accepted",
    "Accepted (removed the nightly cache job)": "accepted",
    "Accepted; the v1 tokens are no longer valid": "accepted",
    "Accepted (dropped support for the old runners)": "accepted",
    "Accepted ~~Deprecated~~": "accepted",
    "Accepted (migrates ADR-3 -> ADR-5 configs)": "accepted",
    "Accepted. Should we cache test results too?": "accepted",
    "Proposed -> Accepted": "accepted",
    "Active (some sections deprecated in favour of ADR-12)": "accepted",
}


def status_of(shape: str, written: str) -> str | None:
    make, path = SHAPES[shape]
    out = read_record(path, make(written).encode()).outcome
    assert out.record is not None, out.issues
    assert "status_unmapped" not in out.record.metadata, written
    return out.record.status


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("written,status", sorted(RETIRING.items()))
def test_a_retiring_phrase_struck_word_or_arrow_retires(shape, written, status):
    assert status_of(shape, written) == status


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("written", HEDGED)
def test_a_hedge_makes_an_in_force_word_proposed(shape, written):
    assert status_of(shape, written) == "proposed"


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("written,status", sorted(STAYS.items()))
def test_qualifiers_that_neither_retire_nor_doubt_stay_in_force(shape, written, status):
    assert status_of(shape, written) == status


def test_the_rule_says_why_and_links_survive_the_arrow():
    r = read_status([(5, "Accepted → Revoked")], "docs/adr/0001-a.md", {})
    assert (r.status, r.rule) == ("deprecated", "an arrow moves the status to the phrase after it (status table)")
    r = read_status([(5, "Supersedes [ADR-2](0002-x.md) → Accepted")], "docs/adr/0001-a.md", {})
    assert (r.status, r.links) == ("accepted", {"supersedes": ["ADR-0002"]})
    assert "hedge" in read_status([(5, "Accepted?")], "docs/adr/0001-a.md", {}).rule
    # a later retiring line in the section still wins; a line all struck through says nothing
    assert read_status([(5, "~~Proposed~~"), (6, "Accepted")], "docs/adr/0001-a.md", {}).status == "accepted"
    assert read_status([(5, "Accepted"), (6, "Revoked in 2023")], "docs/adr/0001-a.md", {}).status == "deprecated"


def test_a_status_map_entry_still_wins_over_a_hedge():
    assert read_status([(5, "Tentatively accepted")], "a.md", {"tentatively accepted": "accepted"}).status == (
        "accepted"
    )


def test_the_fixture_collection_reads_each_status_and_hides_the_retired_ones():
    settings, k = read_knowledge_of(WILD)
    res = k.resolution
    got = {rid: res.effective[rid] for rid in res.records}
    assert got == {
        "ADR-0001": "deprecated",  # Accepted, later revoked
        "ADR-0002": "deprecated",  # ~~Accepted~~ Revoked
        "ADR-0003": "deprecated",  # Accepted → Revoked
        "ADR-0004": "deprecated",  # Approved; overturned (MADR bullet)
        "ADR-0005": "deprecated",  # Implemented, later removed
        "ADR-0006": "proposed",  # Accepted (draft)
        "ADR-0007": "proposed",  # Accepted?
        "ADR-0008": "accepted",  # Accepted (revised 2021)
        "ADR-0009": "accepted",  # Accepted (removed the per-user cache section in 2022)
    }
    assert not [r.id for r in res.records.values() if "status_unmapped" in r.metadata]
    assert not [i for i in k.issues if i.severity == "error"]


def read_knowledge_of(repo: Path):
    settings = load_settings(repo)
    files, _issues = sources.read_worktree(repo, settings)
    return settings, read_knowledge(files, {}, settings, reuse=False)


def test_the_docs_table_names_the_new_rules():
    table = status_table_markdown()
    for shown in ("Revoked", "Overturned", "No longer valid", "X → Y", "`~~X~~ Y`", "tentatively"):
        assert shown in table


@pytest.mark.parametrize(
    "value,status",
    [("'Accepted, later revoked'", "deprecated"), ("'Accepted (draft)'", "proposed"), ("'Accepted?'", "proposed")],
)
def test_front_matter_status_reads_the_same_way(value, status):
    text = f"---\nstatus: {value}\ndate: 2022-03-01\n---\n# Keep build caches on the runners\n\n## Decision Outcome\n\nCache.\n"
    out = read_record("docs/decisions/0004-build-caches.md", text.encode()).outcome
    assert out.record is not None and out.record.status == status


def test_chinese_revoked_retires():
    assert read_status([(5, "已接受，後來已撤銷")], "docs/adr/0001-a.md", {}).status == "deprecated"
