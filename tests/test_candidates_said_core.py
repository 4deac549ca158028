"""What the reviewer sees of what an agent sent (issue 37, item 3), in its pure parts: every field CandidateInput
declares is listed (from the declaration, in its order, empty ones left out), the candidate page renders them
escaped, and the near-duplicate diff marks words that differ, not words deleted."""

from __future__ import annotations

import dataclasses
import re
from html.parser import HTMLParser
from types import SimpleNamespace

import pytest

from jupiter_git_memory.candidates.fields import CandidateInput
from jupiter_git_memory.candidates.model import new_row, view
from jupiter_git_memory.candidates.said import candidate_values, said
from jupiter_git_memory.candidates.worddiff import ADDED, DIFFERS, REMOVED, SAME, compare, word_diff
from jupiter_git_memory.surfaces.web import views_review
from jupiter_git_memory.surfaces.web.pages import env

pytestmark = pytest.mark.unit

DECLARED = [f.name for f in dataclasses.fields(CandidateInput)]
HOSTILE = "<script>window.__pwned=1</script> \x1b[31mred\x1b[0m"


def every_field() -> dict:
    """A value for every declared field, each its own (a list for a `many` field)."""
    return {
        f.name: [f"{f.name}-1 {HOSTILE}", f"{f.name}-2"] if f.metadata["many"] else f"{f.name} said {HOSTILE}"
        for f in dataclasses.fields(CandidateInput)
    }


def test_said_lists_every_declared_field_in_order_and_leaves_out_the_empty_ones():
    values = every_field()
    assert [s.name for s in said(values)] == DECLARED
    assert [s.name for s in said(values, skip=("title", "body"))] == [n for n in DECLARED if n not in ("title", "body")]
    blank = {n: ([] if isinstance(v, list) else "  ") for n, v in values.items()}
    blank["files"] = ["", "  ", None]
    assert said(blank) == [] and said({}) == []
    trig = next(s for s in said({"trigger": " line one\nline two ", "files": "src/a.py"}) if s.name == "trigger")
    assert (trig.value, trig.multiline, trig.many) == ("line one\nline two", True, False)
    assert said({"files": "src/a.py"})[0].value == ["src/a.py"]  # a `many` field is a list even when sent alone
    assert said({"work_item": "WI-1"})[0].label == "work item"


def test_every_field_an_agent_sends_is_stored_and_in_the_candidate_answer():
    """A candidate recorded with every declared field answers with each of them as sent: a field added to
    CandidateInput but not stored (fields.structured) or not shown (model.view) fails here first."""
    values = {
        f.name: [f"{f.name}-x"] if f.metadata["many"] else f"{f.name} value" for f in dataclasses.fields(CandidateInput)
    }
    values["kind"] = "finding"
    shown = view(new_row("cand-0123456789ab", CandidateInput(**values), None, []))
    got = {s.name: s.value for s in said(candidate_values(shown))}
    assert got == values


def test_candidate_values_reads_provenance_and_the_recorders_own_backing():
    shown = {
        "title": "T",
        "kind": "fact",
        "trigger": "the symptom",
        "supersedes": ["dec-old"],
        "provenance": {"agent": "codex-7", "run_key": "r1"},
        "evidence": [{"agent": "codex-7", "evidence": ["ops/a.md"]}, {"agent": "other", "evidence": ["ops/b.md"]}],
    }
    got = {s.name: s.value for s in said(candidate_values(shown))}
    assert got == {
        "kind": "fact",
        "title": "T",
        "evidence": ["ops/a.md"],  # the recorder's; a later observation is listed under itself
        "agent": "codex-7",
        "run_key": "r1",
        "trigger": "the symptom",
        "supersedes": ["dec-old"],
    }


def test_compare_marks_both_sides_as_differing_and_a_revision_keeps_removed_and_added():
    d = compare("Exports peak at 2,470 requests on 63 workers.", "Exports peak at 1,860 requests on 41 workers.")
    assert [p.text for p in d.left if p.change == DIFFERS] == ["2,470", "63"]
    assert [p.text for p in d.right if p.change == DIFFERS] == ["1,860", "41"]
    assert {p.change for p in d.left + d.right} == {SAME, DIFFERS}  # nothing on either side is "removed"
    assert d.changed_numbers == (["2,470", "63"], ["1,860", "41"])
    r = word_diff("Tokens expire after 24 hours.", "Tokens expire after 12 hours.")
    assert [(p.text, p.change) for p in r.left + r.right if p.change != SAME] == [("24", REMOVED), ("12", ADDED)]


class _Rows(HTMLParser):
    """The `said` tables of a page: {data-field: text of its cell}, per table id (or data-observation)."""

    def __init__(self):
        super().__init__()
        self.tables: dict[str, dict[str, str]] = {}
        self.table = self.field = None
        self.in_td = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and "said" in (a.get("class") or ""):
            self.table = self.tables.setdefault(a.get("id") or f"obs-{a.get('data-observation')}", {})
        elif tag == "tr" and self.table is not None:
            self.field = a.get("data-field")
        elif tag == "td" and self.field:
            self.in_td = True
            self.table[self.field] = ""

    def handle_endtag(self, tag):
        if tag == "td":
            self.in_td = False
        elif tag == "table":
            self.table = None

    def handle_data(self, data):
        if self.in_td:
            self.table[self.field] += data


def _render(cand: dict) -> str:
    return env.get_template("candidate.html").render(
        request=SimpleNamespace(query_params={}, url=SimpleNamespace(path="/ui/w/ws1/candidates/x")),
        base="",
        session=None,
        csrf="",
        ws="ws1",
        c=cand,
        near=[],
        near_error=None,
        warning_groups=[],
        revisions=[],
        duplicate_cos=0.9,
        similar_cos=0.7,
        gh=False,
        proposed=None,
        done="",
        **views_review.what_was_said(cand),
    )


def _view(values: dict, observations: list[dict]) -> dict:
    prov = {k: values[k] for k in ("agent", "session", "work_item", "run_key")}
    rest = {k: v for k, v in values.items() if k not in prov and k != "evidence"}
    # proposed: the page without the revise form, whose fields hold the text as it is, to be edited
    return dict(
        rest,
        id="cand-0123456789ab",
        state="proposed",
        status="candidate",
        created_at=1.8e9,
        provenance=prov,
        evidence=observations,
    )


def test_the_candidate_page_shows_every_field_escaped_and_nothing_for_empty_ones():
    values = every_field()
    second = {"agent": "agent-two", "trigger": f"second {HOSTILE}", "files": ["src/b.py"], "title": "also"}
    html = _render(_view(values, [{"agent": values["agent"], "evidence": values["evidence"]}, second]))
    assert "<script>window" not in html and "\x1b" not in html  # escaped: as text, the control character as `\x1b`
    rows = _Rows()
    rows.feed(html)
    shown = rows.tables["said-fields"]
    assert list(shown) == [n for n in DECLARED if n not in ("title", "body")]
    for name, value in values.items():
        if name in ("title", "body"):
            continue
        want = "".join(value) if isinstance(value, list) else value
        assert shown[name] == want.replace("\x1b", "\\x1b"), name  # the agent's exact words, made visible
    # a later observation lists what its line does not name: here its trigger and files, exactly
    assert rows.tables["obs-1"] == {"trigger": "second " + HOSTILE.replace("\x1b", "\\x1b"), "files": "src/b.py"}
    assert "obs-0" not in rows.tables  # the recorder's own observation is the table above
    sparse = dict(values, trigger=None, change="", files=[], session=None)
    page = _render(_view(sparse, [{"agent": values["agent"]}]))
    rows = _Rows()
    rows.feed(page)
    assert not {"trigger", "change", "files", "session"} & set(rows.tables["said-fields"])
    assert "verification" in rows.tables["said-fields"]
    assert not re.search(r"<td>\s*(<div[^>]*>)?\s*(—|None)?\s*(</div>)?\s*</td>", page)  # no blank cells
