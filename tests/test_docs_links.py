"""The docs hold together: every relative link and `#anchor` in README.md and docs/*.md resolves (anchors as
GitHub makes them from headings), the README's map names every page, and its quickstart is the two commands
.ci/run relies on. Pure text checks, no index."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

PROJECT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", flags=re.S)


def pages() -> list[Path]:
    return [PROJECT / "README.md", *sorted((PROJECT / "docs").glob("*.md"))]


def _outside_fences(text: str) -> list[tuple[int, str]]:
    """(line number, line) for every line outside fenced code blocks (fence lines themselves blank)."""
    out, fence = [], ""
    for n, line in enumerate(text.splitlines(), 1):
        opener = re.match(r"^\s*(```+|~~~+)", line)
        if opener and (not fence or opener.group(1).startswith(fence)):
            fence = "" if fence else opener.group(1)
            line = ""
        out.append((n, "" if fence else line))
    return out


def _prose(text: str) -> list[tuple[int, str]]:
    """Lines outside code: fences dropped and inline code spans (which may run over a line break within a
    paragraph) blanked out, so `[x](y)` written as code is not a link."""
    lines = _outside_fences(text)
    joined = "\n".join(line for _, line in lines)
    paras = re.split(r"(\n[ \t]*\n)", joined)
    blanked = "".join(CODE_SPAN.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), p) for p in paras)
    return [(n, line) for (n, _), line in zip(lines, blanked.split("\n"), strict=True)]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text lower-cased, punctuation but `-` and `_` dropped, spaces to `-`."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "")
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for _, line in _outside_fences(text):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            base = slug(m.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
    return found


def broken_links(path: Path, text: str | None = None) -> list[str]:
    """Each relative link or anchor in a Markdown file that leads nowhere, as `file:line: target (why)`."""
    text = path.read_text("utf-8") if text is None else text
    problems = []
    for n, line in _prose(text):
        for target in LINK.findall(line):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, flags=re.I):  # https:, mailto: …
                continue
            file_part, _, anchor = target.partition("#")
            dest = (path.parent / file_part).resolve()
            where = f"{path.relative_to(PROJECT)}:{n}: {target}"
            if file_part and not dest.exists():
                problems.append(f"{where} (no file {dest})")
            elif anchor and (not file_part or dest.suffix == ".md"):
                if anchor not in anchors(dest.read_text("utf-8") if file_part else text):
                    problems.append(f"{where} (no heading makes #{anchor} in {dest.name if file_part else path.name})")
    return problems


def test_every_relative_link_and_anchor_in_the_docs_resolves():
    problems = [p for page in pages() for p in broken_links(page)]
    assert not problems, "\n".join(problems)
    # the check itself sees a missing file, a missing anchor, and ignores links in code
    fake = PROJECT / "docs" / "x.md"
    bad = "# T\n[a](nope.md) [b](#t) [c](#nope) [d](records.md#record-format) `[e](gone.md)`\n```\n[f](gone.md)\n```\n"
    bad += "a `code span\nover [g](gone.md) two lines`\n"
    got = broken_links(fake, bad)
    assert len(got) == 2 and "nope.md" in got[0] and "#nope" in got[1], got


def test_anchors_are_made_like_githubs():
    assert slug("MCP server: `jgm mcp`") == "mcp-server-jgm-mcp"
    assert slug("Views: each worktree, and any commit, answers for itself") == (
        "views-each-worktree-and-any-commit-answers-for-itself"
    )
    assert anchors("# A\n## A\n```\n# not a heading\n```\n") == {"a", "a-1"}


def test_the_readme_maps_every_docs_page():
    readme = (PROJECT / "README.md").read_text("utf-8")
    linked = {t.partition("#")[0] for _, line in _prose(readme) for t in LINK.findall(line)}
    missing = [f"docs/{p.name}" for p in sorted((PROJECT / "docs").glob("*.md")) if f"docs/{p.name}" not in linked]
    assert not missing, f"README.md's map of the docs lacks {missing}"


def test_the_quickstart_is_two_commands_and_ci_runs_the_second():
    readme = (PROJECT / "README.md").read_text("utf-8")
    quickstart = readme.split("\n## Quickstart", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", quickstart, flags=re.S)
    assert len(blocks) == 2 and all(b.count("\n") == 1 for b in blocks), blocks
    first, second = (shlex.split(b) for b in blocks)
    assert "install" in first and "." in first and ".venv/bin/jgm" in first and "seed" in first, first
    assert second[-4:] == [".venv/bin/python", "-m", "pytest", "-q"], second
    steps = (PROJECT / ".ci" / "run").read_text("utf-8")
    extras = second[second.index("install") + 1 : second.index("&&", second.index("install"))]
    assert f"pip install -q {shlex.join(extras)}" in steps.replace('"', "'"), (extras, "not what .ci/run installs")
    assert "python -m pytest -q" in steps
