"""Does a Markdown file look like a decision record, and does a folder of them make a collection (pure).

Discovery (config/discover.py) reads a repository with no `roots` and asks this module about each Markdown
file and each folder. A file *looks like a decision record* when its name (or its folder's, for a README)
carries a number or a date, it is not an ordinary doc or a template, it has a heading, and it either
says a status (front matter `status`/`stage`, a `Status:` bullet or line, a `## Status` section) or has
the section structure of a decision record (Context / Decision / Consequences, Motivation / Detailed
design / Drawbacks, Abstract / Proposal / Rationale, …). A folder is a *collection* when at least
`MIN_RECORDS` of its Markdown files look like decision records and they are at least `MIN_SHARE` of them:
a guide with numbered chapters, a folder of dated meeting notes, a docs tree with a few numbered pages
fail one of the two.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from posixpath import basename, dirname

from .ids import attachment_folder, collection_number, date_named, folder_record, stem

MIN_RECORDS = 3
MIN_SHARE = 0.5
# Section headings only decision records have (an ordinary page rarely has two of them).
STRONG_SECTIONS = (
    "context",
    "decision",
    "consequences",
    "status",
    "rationale",
    "alternatives",
    "motivation",
    "drawbacks",
    "unresolved questions",
    "open questions",
    "prior art",
    "detailed design",
    "design details",
    "proposal",
    "proposed solution",
    "proposed design",
    "considered options",
    "decision outcome",
    "decision drivers",
    "pros and cons of the options",
    "specification",
    "backwards compatibility",
    "backward compatibility",
    "security considerations",
    "guide-level explanation",
    "reference-level explanation",
    "how we teach this",
    "adoption strategy",
    "trade-offs",
    "tradeoffs",
    "compatibility",
    "non-goals",
    "source compatibility",
    "internal details",
    "future possibilities",
    "test plan",
    # the same sections in Chinese (Traditional and Simplified): Nygard's 背景 / 決策 / 後果, MADR's options
    "背景",
    "上下文",
    "決策",
    "决策",
    "後果",
    "后果",
    "狀態",
    "状态",
    "決策結果",
    "决策结果",
    "考慮的選項",
    "考虑的选项",
    "備選方案",
    "备选方案",
    "替代方案",
    "決策驅動因素",
    "决策驱动因素",
)
# Headings decision records share with ordinary pages: they count only beside a strong one.
WEAK_SECTIONS = (
    "summary",
    "abstract",
    "background",
    "goals",
    "implementation",
    "introduction",
    "overview",
    "problem",
    "references",
    "risks",
    "future work",
    "explanation",
    "requirements",
    "discussion",
    "use cases",
    "結果",
    "结果",
    "摘要",
    "概述",
    "簡介",
    "简介",
    "目標",
    "目标",
    "問題",
    "问题",
    "參考",
    "参考",
    "實施",
    "实施",
    "討論",
    "讨论",
)
# File names that are never records, whatever they contain (case ignored; our own front matter still wins).
ORDINARY_NAMES = frozenset(
    {
        "readme",
        "index",
        "changelog",
        "changes",
        "history",
        "contributing",
        "code_of_conduct",
        "code-of-conduct",
        "security",
        "license",
        "licence",
        "authors",
        "maintainers",
        "codeowners",
        "governance",
        "support",
        "summary",
        "toc",
        "glossary",
        "faq",
    }
)
# First headings that name a section, not the record: the title then comes from the file name.
GENERIC_TITLES = frozenset(
    {"summary", "abstract", "motivation", "introduction", "overview", "context", "background", "tl;dr", "tldr"}
    | {"背景", "摘要", "概述", "簡介", "简介"}
)
_HEADING_RE = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
_SECTION_NUM_RE = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[ivx]+\.)\s+", re.IGNORECASE)
_PLACEHOLDER_TITLE_RE = re.compile(r"\b(?:NNNN|XXXX)\b|^[\[{<].*[\]}>]$|^title$", re.IGNORECASE)
_FRONT_RE = re.compile(r"\A\ufeff?---[ \t]*\r?\n(.*?)^---[ \t]*\r?$", re.DOTALL | re.MULTILINE)
_FRONT_STATUS_RE = re.compile(r"^(?:status|stage|state|狀態|状态)\s*:\s*\S", re.IGNORECASE | re.MULTILINE)
_FRONT_TITLE_RE = re.compile(r"^title\s*:\s*\S", re.IGNORECASE | re.MULTILINE)


def _words_re(words: Iterable[str]) -> re.Pattern[str]:
    """A heading that opens with one of `words` as a whole word; a Chinese one ends the heading or is joined to
    the next by 與/和/及 or punctuation (`背景與問題陳述`, not `狀態管理`: state management)."""
    ordered = sorted(words, key=len, reverse=True)
    latin = "|".join(re.escape(w) for w in ordered if w.isascii())
    cjk = "|".join(re.escape(w) for w in ordered if not w.isascii())
    return re.compile(f"({latin})(?: |$)|({cjk})(?:$|[\\s與与和及、，,：:（(/])")


_STRONG_RE, _WEAK_RE = _words_re(STRONG_SECTIONS), _words_re(WEAK_SECTIONS)


def headings(lines: list[str]) -> Iterator[tuple[int, str]]:
    """(level, text) of every heading outside code fences, in order."""
    fence = False
    for line in lines:
        if line.lstrip()[:3] in ("```", "~~~"):
            fence = not fence
        elif not fence and line[:1] == "#" and (m := _HEADING_RE.match(line)):
            yield len(m.group(1)), m.group(2)


def section_name(heading: str) -> str:
    """A heading as a section name: no numbering, emphasis or trailing colon, lower case."""
    t = re.sub(r"[*_`]", "", heading).strip()
    t = _SECTION_NUM_RE.sub("", t).rstrip(":").strip()
    return " ".join(t.lower().split())


def decision_sections(heads: Iterable[tuple[int, str]]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(strong, weak) decision-record section names among the headings, each once, in order; it stops at
    three strong ones (enough for any verdict)."""
    strong: list[str] = []
    weak: list[str] = []
    for _level, text in heads:
        if len(strong) >= 3:
            break
        name = section_name(text)
        if (m := _STRONG_RE.match(name)) is not None:
            if (word := m.group(1) or m.group(2)) not in strong:
                strong.append(word)
        elif (m := _WEAK_RE.match(name)) is not None and (word := m.group(1) or m.group(2)) not in weak:
            weak.append(word)
    return tuple(strong), tuple(weak)


def is_template(path: str, title: str | None = None) -> bool:
    """A template to copy, not a record: `template` closing or opening the name of a file numbered 0 or not at
    all, or of its folder (any case: `0000-TEMPLATE.md`, `adr-template.md`, `proposal-templates/`), or a
    placeholder title (`RFC-NNNN Title`). `0014-project-templates.md` and `0012-template.md` (numbered, with a
    real title) are decisions."""
    name = stem(path).lower()
    if re.search(r"(?:^|[-_ .])(?:template|模板|範本|范本)$|^(?:template|模板|範本|范本)(?:[-_ .]|$)", name):
        if not collection_number(name):  # no number, or 0
            return True
    if re.search(r"(?:^|[-_ .])templates?$|^templates?(?:[-_ .]|$)", basename(dirname(path)).lower()):
        return True
    return bool(title and _PLACEHOLDER_TITLE_RE.search(title.strip()))


def ordinary_name(path: str) -> bool:
    """README, CHANGELOG, CONTRIBUTING, … : an ordinary doc by its name (a numbered folder's README is not)."""
    return not folder_record(path) and stem(path).lower() in ORDINARY_NAMES


def generic_title(title: str) -> bool:
    return section_name(title) in GENERIC_TITLES


# Sections that hold a record's header fields: a `* Status:` bullet there is the record's status (elsewhere,
# in a dated note's action items, it is not).
METADATA_SECTIONS = frozenset({"metadata", "meta", "info", "information", "details", "header", "document info"})
METADATA_SECTIONS |= {"元數據", "元数据", "基本資訊", "基本信息"}
_STATUS_WORD = "(?:status|狀態|状态)"
_STATUS_HEAD_RE = re.compile(rf"^#{{1,6}}[ \t]*{_STATUS_WORD}[ \t]*[:：]?[ \t]*$", re.IGNORECASE)
_STATUS_BULLET_RE = re.compile(rf"^\s*[*-]\s+\**{_STATUS_WORD}\**\s*[:：]", re.IGNORECASE)
_STATUS_LINE_RE = re.compile(rf"^\s*(?:[*+-]\s+)?[*_]*{_STATUS_WORD}[*_]*\s*[:：]\s*[*_]*\s*\S", re.IGNORECASE)
_STATUS_ROW_RE = re.compile(rf"^\s*\|\s*[*_]*{_STATUS_WORD}[*_]*\s*[:：]?\s*\|\s*\S", re.IGNORECASE)  # | Status | X |


def status_marker(text: str, lines: list[str]) -> str | None:
    """Where the file says its status, or None: the places the adapters read, checked on the lines that
    name a status only (discovery looks at many files)."""
    front = _FRONT_RE.match(text)
    if front and _FRONT_STATUS_RE.search(front.group(1)):
        return "front matter `status`/`stage`"
    section = False  # past the header: a `##` heading was seen
    metadata = False  # in a section that holds the header's fields (`## Metadata`)
    for i, line in enumerate(lines):
        if line.startswith("##"):
            section = True
            metadata = section_name(line.lstrip("#")) in METADATA_SECTIONS
        if "tatus" not in line and "TATUS" not in line and "狀態" not in line and "状态" not in line:
            continue
        if _STATUS_HEAD_RE.match(line.strip()):
            return "a `Status` section"
        if (not section or metadata) and _STATUS_BULLET_RE.match(line):
            return "a `Status:` bullet"
        if i < 40 and _STATUS_LINE_RE.match(line) and not _STATUS_BULLET_RE.match(line):
            return "a `Status:` line"
        if i < 80 and _STATUS_ROW_RE.match(line):
            return "a `| Status |` table row"
    return None


@dataclass(frozen=True)
class Evidence:
    """What one Markdown file shows of a decision record."""

    path: str
    number: int | None
    dated: bool
    titled: bool
    marker: str | None
    strong: tuple[str, ...]
    weak: tuple[str, ...]
    ordinary: bool
    template: bool
    attachment: bool

    @property
    def structured(self) -> bool:
        """Two decision-record sections, or one beside two shared ones."""
        return len(self.strong) >= 2 or (len(self.strong) == 1 and len(self.weak) >= 2)

    @property
    def decision_like(self) -> bool:
        named = self.number is not None or self.dated
        plain = not (self.ordinary or self.template or self.attachment)
        return named and plain and self.titled and (self.marker is not None or self.structured)

    @property
    def folder(self) -> str:
        """The collection folder this file belongs to: its own, or its numbered folder's parent."""
        d = dirname(self.path)
        return dirname(d) if folder_record(self.path) else d


def examine(path: str, text: str) -> Evidence:
    """The evidence of one decoded Markdown file (only its first part needs to be given)."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    lines = text.splitlines()
    heads = list(itertools.islice(headings(lines), 80))
    h1 = next((t for level, t in heads if level == 1), None)
    front = _FRONT_RE.match(text)
    titled = bool(heads) or bool(front and _FRONT_TITLE_RE.search(front.group(1)))
    strong, weak = decision_sections(heads)
    name = basename(dirname(path)) if folder_record(path) else basename(path)
    return Evidence(
        path=path,
        number=collection_number(name),
        dated=date_named(path),
        titled=titled,
        marker=status_marker(text, lines),
        strong=strong,
        weak=weak,
        ordinary=ordinary_name(path),
        template=is_template(path, h1),
        attachment=attachment_folder(path) is not None,
    )


@dataclass(frozen=True)
class Verdict:
    """A folder judged as a decision collection: taken or not, by which rule, with the counts behind it."""

    folder: str
    taken: bool
    rule: str
    markdown: int  # Markdown files that could be records (not README, ordinary docs, templates, attachments)
    decisions: int  # of those, files that look like decision records
    with_status: int  # of those, files that say a status
    files: int = 0  # Markdown files in the folder, when only a sample of them was examined

    @property
    def why(self) -> str:
        sample = f" (a sample of {self.files})" if self.files > self.markdown else ""
        return (
            f"{self.decisions} of {self.markdown} Markdown files{sample} are numbered or dated decision records, "
            f"{self.with_status} of them saying a status"
        )


def judge(folder: str, evidence: list[Evidence], files: int = 0) -> Verdict:
    """Whether a folder's files (those whose `Evidence.folder` is `folder`, or an even sample of `files` of
    them) make a decision collection."""
    candidates = [e for e in evidence if not (e.ordinary or e.template or e.attachment)]
    decisions = [e for e in candidates if e.decision_like]
    with_status = sum(1 for e in decisions if e.marker is not None)
    taken = len(decisions) >= MIN_RECORDS and len(decisions) >= MIN_SHARE * len(candidates)
    where = "ADR files at the repository root" if not folder else "a folder of decision records"
    how = "with a status marker" if with_status * 2 >= len(decisions) else "with decision-record sections"
    rule = f"{where}: numbered or dated files {how}"
    return Verdict(folder, taken, rule, len(candidates), len(decisions), with_status, files)
