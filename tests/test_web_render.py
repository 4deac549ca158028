"""The review UI's pure parts: untrusted Markdown, the status explanation, the relation graph, login redirects."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from jupiter_git_memory.surfaces.web import graph, render
from jupiter_git_memory.surfaces.web.app import _safe_next

pytestmark = pytest.mark.unit


def test_markdown_escapes_raw_html_and_drops_script_links():
    html = render.markdown("**ok** <script>alert(1)</script> <img src=x onerror=alert(2)> [x](javascript:alert(3))")
    assert "<strong>ok</strong>" in html
    assert "<script" not in html and "<img" not in html and 'href="javascript' not in html
    assert "&lt;script&gt;" in html and "onerror=alert(2)&gt;" in html


def edge(id, status, retires=True, declared=None, missing=False, title="t"):
    return {
        "id": id,
        "status": status,
        "declared_status": declared or status,
        "retires": retires,
        "missing": missing,
        "title": title,
    }


def test_status_why_names_the_record_that_retires_it():
    rec = {"status": "superseded", "declared_status": "accepted", "origin": "file"}
    rel = {"superseded_by": [edge("ADR-0015", "accepted")], "supersedes": []}
    assert render.status_why(rec, rel) == "superseded by ADR-0015 (accepted)"
    live = {"status": "accepted", "declared_status": "accepted", "origin": "file"}
    assert "nothing in force supersedes it" in render.status_why(live, {"superseded_by": []})
    pending = {"superseded_by": [edge("dec-new", "proposed", retires=False)]}
    assert "dec-new (proposed) would supersede it once in force" in render.status_why(live, pending)
    false = {"status": "invalidated", "declared_status": "false", "origin": "file"}
    assert render.status_why(false, {}).startswith("declared false")
    cand = {"status": "rejected", "origin": "candidate", "state": "rejected", "reason": "a duplicate"}
    assert render.status_why(cand, {}) == "a rejected candidate: a duplicate"


def test_graph_links_every_related_record_and_reads_new_relation_kinds():
    rel = {
        "id": "dec-b",
        "title": "B",
        "status": "accepted",
        "supersedes": [edge("dec-a", "superseded")],
        "superseded_by": [edge("dec-c", "proposed", retires=False)],
        "amends": [edge("adr-7", "accepted")],
        "current": ["dec-b"],
        "note": "text",
    }
    svg = graph.svg(rel, lambda rid: f"/ui/w/ws/records/{rid}")
    for rid in ("dec-a", "dec-c", "adr-7"):
        assert f'href="/ui/w/ws/records/{rid}"' in svg
    assert "amends" in svg and "superseded by" in svg
    assert "stroke-dasharray" in svg  # a link that does not retire is drawn dashed
    assert graph.svg({"id": "x", "supersedes": [], "superseded_by": []}, str) == ""
    hostile = {"id": "x", "supersedes": [edge('"><script>', "accepted", title="<b>")]}
    assert "<script>" not in graph.svg(hostile, lambda rid: "/r/" + rid)


def test_login_only_returns_to_pages_inside_the_ui():
    req = SimpleNamespace(scope={"root_path": "/ui"})
    assert _safe_next(req, "/ui/w/ws/records?kind=fact") == "/ui/w/ws/records?kind=fact"
    for bad in ("https://evil.example/", "//evil.example/ui/", "/elsewhere", "/ui\\@evil", "javascript:alert(1)"):
        assert _safe_next(req, bad) == "/ui/"
