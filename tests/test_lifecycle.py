"""Lifecycle resolution: supersede links in both directions, in-force rule, false facts, cycles, duplicates."""

import pytest

from jupiter_git_memory.lifecycle.resolve import resolve
from jupiter_git_memory.records.model import Record
from jupiter_git_memory.records.parse import parse_record

pytestmark = pytest.mark.unit


def rec(id, kind="decision", status="accepted", path=None, **links):
    extra = "".join(f"{k}: {v}\n" for k, v in links.items())
    text = f"---\nid: {id}\nkind: {kind}\nstatus: {status}\ntitle: {id}\n{extra}---\nbody\n"
    out = parse_record(path or f"knowledge/{id}.md", text.encode())
    assert out.record, out.issues
    return out.record


def test_accepted_supersedes_link_on_new_record():
    res = resolve([rec("OLD"), rec("NEW", supersedes="OLD")])
    assert res.effective == {"OLD": "superseded", "NEW": "accepted"}
    assert res.superseded_by == {"OLD": ["NEW"]}


def test_link_written_on_old_record():
    res = resolve([rec("OLD", superseded_by="NEW"), rec("NEW")])
    assert res.effective["OLD"] == "superseded"


def test_proposed_superseder_does_not_retire():
    res = resolve([rec("OLD"), rec("NEW", status="proposed", supersedes="OLD")])
    assert res.effective["OLD"] == "accepted" and res.effective["NEW"] == "proposed"


def test_verified_fact_supersedes_fact():
    res = resolve(
        [rec("F1", kind="fact", status="verified"), rec("F2", kind="fact", status="verified", supersedes="F1")]
    )
    assert res.effective["F1"] == "superseded"


def test_false_fact_is_invalidated_and_unverified_stays():
    res = resolve([rec("F", kind="fact", status="false"), rec("G", kind="finding", status="unverified")])
    assert res.effective == {"F": "invalidated", "G": "unverified"}


def test_declared_superseded_stays_superseded():
    assert resolve([rec("OLD", status="superseded")]).effective["OLD"] == "superseded"


def test_madr_link_retires_when_target_accepted():
    a = parse_record(
        "knowledge/a.md", b'---\nid: ADR-1\nkind: adr\nstatus: "superseded by ADR-2"\ntitle: t\n---\n'
    ).record
    res = resolve([a, rec("ADR-2", kind="adr")])
    assert res.effective["ADR-1"] == "superseded" and res.superseded_by["ADR-1"] == ["ADR-2"]


def test_dangling_link_is_warning():
    res = resolve([rec("A", supersedes="GHOST")])
    (w,) = res.issues
    assert w.severity == "warning" and "GHOST" in w.message and res.effective["A"] == "accepted"


def test_cycle_is_error_for_every_member():
    res = resolve(
        [rec("A", supersedes="B"), rec("B", supersedes="C"), rec("C", supersedes="A"), rec("D", supersedes="A")]
    )
    errs = sorted(i.record_id for i in res.issues if i.severity == "error")
    assert errs == ["A", "B", "C"] and set(res.records) == {"D"}
    assert res.rejected_paths == {"knowledge/A.md", "knowledge/B.md", "knowledge/C.md"}


def test_self_supersede_is_cycle():
    res = resolve([rec("A", supersedes="A")])
    assert res.records == {} and "cycle" in res.issues[0].message


def test_duplicate_ids_error_every_file():
    res = resolve([rec("X", path="knowledge/a.md"), rec("X", path="knowledge/b.md"), rec("Y")])
    dup = [i for i in res.issues if "duplicate id" in i.message]
    assert sorted(i.path for i in dup) == ["knowledge/a.md", "knowledge/b.md"]
    assert set(res.records) == {"Y"}


def test_long_chain_resolves_without_recursion():
    def plain(rid, *olds):  # built directly: parsing 3000 files would make this the suite's slowest unit test
        return Record(rid, "decision", "accepted", rid, "", f"knowledge/{rid}.md", "h", supersedes=olds)

    recs = [plain("R0")] + [plain(f"R{i}", f"R{i - 1}") for i in range(1, 3000)]
    res = resolve(recs)
    assert res.effective["R0"] == "superseded" and res.effective["R2999"] == "accepted"


# --- rules the mutation bench showed no test stated (issue 17) ---


def test_two_record_cycle_is_error_for_both():
    res = resolve([rec("A", supersedes="B"), rec("B", supersedes="A"), rec("C")])
    assert sorted(i.record_id for i in res.issues if i.severity == "error") == ["A", "B"]
    assert set(res.records) == {"C"} and set(res.effective) == {"C"}


def test_cycle_through_superseded_by_links_too():
    res = resolve([rec("A", superseded_by="B"), rec("B", superseded_by="A")])
    assert res.records == {} and {i.record_id for i in res.issues} == {"A", "B"}


def test_on_cycle_exactly_when_a_record_reaches_itself():
    """Random small supersede graphs: the errors are exactly the records that reach themselves."""
    import random

    rnd = random.Random(17)
    for _ in range(150):
        n = rnd.randint(1, 7)
        ids = [f"N{i}" for i in range(n)]
        edges = {i: sorted(rnd.sample(ids, rnd.randint(0, min(2, n)))) for i in ids}
        recs = [
            Record(i, "decision", "accepted", i, "", f"knowledge/{i}.md", "h", supersedes=tuple(e))
            for i, e in edges.items()
        ]

        def reaches_itself(start):
            seen, todo = set(), list(edges[start])
            while todo:
                x = todo.pop()
                if x == start:
                    return True
                if x not in seen:
                    seen.add(x)
                    todo.extend(edges[x])
            return False

        res = resolve(recs)
        expected = {i for i in ids if reaches_itself(i)}
        assert {i.record_id for i in res.issues} == expected, edges
        assert set(res.records) == set(ids) - expected


def test_every_lifecycle_error_carries_its_line():
    dup = resolve([rec("X", path="knowledge/a.md"), rec("X", path="knowledge/b.md")]).issues
    assert [i.line for i in dup] == [2, 2]  # the `id:` line
    (dangling,) = resolve([rec("A", supersedes="GHOST")]).issues
    assert dangling.line == 6  # the `supersedes:` line
    (back,) = resolve([rec("A", superseded_by="GHOST")]).issues
    assert back.line == 6
    cyc = resolve([rec("A", supersedes="B"), rec("B", supersedes="A")]).issues
    assert [i.line for i in cyc] == [6, 6]
    cyc_back = resolve([rec("A", superseded_by="B"), rec("B", superseded_by="A")]).issues
    assert [i.line for i in cyc_back] == [6, 6]


def test_madr_status_link_points_at_the_status_line():
    a = parse_record(
        "knowledge/a.md", b'---\nid: ADR-1\nkind: adr\nstatus: "superseded by ADR-9"\ntitle: t\n---\n'
    ).record
    (w,) = resolve([a]).issues
    assert w.severity == "warning" and w.line == 4 and w.record_id == "ADR-1" and "ADR-9" in w.message


def test_lifecycle_issues_name_the_record_and_the_fix():
    dup = resolve([rec("X", path="knowledge/a.md"), rec("X", path="knowledge/b.md")]).issues
    assert all(i.severity == "error" and i.record_id == "X" and "unique" in i.fix for i in dup)
    assert "knowledge/b.md" in dup[0].message and "knowledge/a.md" in dup[1].message
    (w,) = resolve([rec("A", supersedes="GHOST")]).issues
    assert w.record_id == "A" and "supersedes" in w.message and "remove the link" in w.fix
    (c,) = resolve([rec("A", supersedes="A")]).issues
    assert c.severity == "error" and c.record_id == "A" and "break the cycle" in c.fix


def test_many_duplicates_name_five_files_and_count_the_rest():
    res = resolve([rec("X", path=f"knowledge/{n}.md") for n in range(7)])
    msg = res.issues[0].message
    assert all(f"knowledge/{n}.md" in msg for n in range(5)) and "knowledge/5.md" not in msg and " 2 more" in msg
    assert len(res.issues) == 7 and res.rejected_paths == {f"knowledge/{n}.md" for n in range(7)}
    few = resolve([rec("Y", path=f"knowledge/{n}.md") for n in range(5)]).issues[0].message
    assert "more" not in few
    six = resolve([rec("Z", path=f"knowledge/{n}.md") for n in range(6)]).issues[0].message
    assert " 1 more" in six


def test_link_to_a_duplicated_id_is_not_dangling():
    res = resolve([rec("X", path="knowledge/a.md"), rec("X", path="knowledge/b.md"), rec("A", supersedes="X")])
    assert all(i.record_id == "X" for i in res.issues) and res.effective == {"A": "accepted"}


def test_false_finding_is_invalidated_even_when_superseded():
    res = resolve(
        [rec("F", kind="finding", status="false"), rec("G", kind="finding", status="verified", supersedes="F")]
    )
    assert res.effective["F"] == "invalidated" and res.superseded_by == {"F": ["G"]}


def test_superseders_are_listed_sorted():
    res = resolve([rec("OLD"), rec("ZED", supersedes="OLD"), rec("ALPHA", supersedes="OLD")])
    assert res.superseded_by == {"OLD": ["ALPHA", "ZED"]}


def test_unverified_fact_retires_nothing():
    res = resolve(
        [rec("F1", kind="fact", status="verified"), rec("F2", kind="fact", status="unverified", supersedes="F1")]
    )
    assert res.effective["F1"] == "verified" and res.superseded_by == {}


def test_dangling_and_cycle_issues_name_their_file():
    (w,) = resolve([rec("A", path="knowledge/sub/a.md", supersedes="GHOST")]).issues
    assert w.path == "knowledge/sub/a.md"
    (c,) = resolve([rec("B", path="knowledge/sub/b.md", supersedes="B")]).issues
    assert c.path == "knowledge/sub/b.md"


def test_a_superseder_not_in_force_does_not_stop_the_others():
    res = resolve(
        [rec("OLD1"), rec("P", status="proposed", supersedes="OLD1"), rec("NEW", supersedes="OLD2"), rec("OLD2")]
    )
    assert res.effective["OLD1"] == "accepted" and res.effective["OLD2"] == "superseded"
