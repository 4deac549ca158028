"""Lifecycle resolution: supersede links in both directions, in-force rule, false facts, cycles, duplicates."""

from jupiter_git_memory.lifecycle.resolve import resolve
from jupiter_git_memory.records.parse import parse_record


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
    res = resolve([rec("F1", kind="fact", status="verified"), rec("F2", kind="fact", status="verified", supersedes="F1")])
    assert res.effective["F1"] == "superseded"


def test_false_fact_is_invalidated_and_unverified_stays():
    res = resolve([rec("F", kind="fact", status="false"), rec("G", kind="finding", status="unverified")])
    assert res.effective == {"F": "invalidated", "G": "unverified"}


def test_declared_superseded_stays_superseded():
    assert resolve([rec("OLD", status="superseded")]).effective["OLD"] == "superseded"


def test_madr_link_retires_when_target_accepted():
    a = parse_record("knowledge/a.md", b'---\nid: ADR-1\nkind: adr\nstatus: "superseded by ADR-2"\ntitle: t\n---\n').record
    res = resolve([a, rec("ADR-2", kind="adr")])
    assert res.effective["ADR-1"] == "superseded" and res.superseded_by["ADR-1"] == ["ADR-2"]


def test_dangling_link_is_warning():
    res = resolve([rec("A", supersedes="GHOST")])
    (w,) = res.issues
    assert w.severity == "warning" and "GHOST" in w.message and res.effective["A"] == "accepted"


def test_cycle_is_error_for_every_member():
    res = resolve([rec("A", supersedes="B"), rec("B", supersedes="C"), rec("C", supersedes="A"), rec("D", supersedes="A")])
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
    recs = [rec("R0")] + [rec(f"R{i}", supersedes=f"R{i-1}") for i in range(1, 3000)]
    res = resolve(recs)
    assert res.effective["R0"] == "superseded" and res.effective["R2999"] == "accepted"
