"""ADR status words → our statuses, and status lines → status plus links (pure).

`STATUS_TABLE` (records/formats/status_table.py, with the link phrases and lifecycle keys; re-exported here) is
the one place that says what a written status means; the table in docs/adr-formats.md ("Existing ADRs") is
generated from it and `[status_map]` in jgm.toml extends it. Reading rules, in this order, for one status
value:

0. struck-through text says nothing ("~~Accepted~~ Revoked" is revoked), and across arrows the last part that
   says a status counts ("Proposed → Accepted → Revoked");
1. a retiring phrase anywhere in the value wins over an in-force word before it: "Implemented. Superseded by
   [ADR-13](…)" is superseded, "Accepted (deprecated in favour of ADR-9)" deprecated, "Approved; overturned"
   deprecated; words that also say what a decision did to something else ("removed", "no longer valid") only
   in a clause of their own ("Implemented, later removed", not "Accepted (removed the cache)");
2. otherwise the first phrase counts, ignoring links, parentheses, votes, dates and trailing sentences: the
   longest table phrase the value starts with ("Implemented (Swift 5.9)", "Accepted on 2021-03-04",
   "Active review (…)" is "active review", not "active");
2b. a hedge makes an in-force word proposed: "Accepted?", "Accepted (draft)", "Tentatively accepted";
3. a phrase in no table is *unmapped*: the record is never in force (read as proposed) and the fix names the
   one `[status_map]` key that maps it.
Chinese link phrases are first rewritten to the English ones; a retiring clause about a part of the record
amends it; in a status section, a dated log counts its last entry and a line listing the vocabulary says
nothing; lifecycle keys beside the status (`superseded-by:`) retire the record whatever its word says.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..kinds import ADR_STATUSES as ADR_STATUSES
from .ids import link_targets, ref_id
from .status_table import ARROW_RE as _ARROW_RE
from .status_table import BARE_AFTER as _BARE_AFTER
from .status_table import BARE_FILLERS as _BARE_FILLERS
from .status_table import CJK_RE as _CJK_RE
from .status_table import HEDGES as HEDGES
from .status_table import LIFECYCLE as LIFECYCLE
from .status_table import LIFECYCLE_KEYS as LIFECYCLE_KEYS
from .status_table import LINK_VERBS as _LINK_VERBS
from .status_table import PART_WORDS as PART_WORDS
from .status_table import RETIRING_ANYWHERE as RETIRING_ANYWHERE
from .status_table import RETIRING_BARE as RETIRING_BARE
from .status_table import STATUS_TABLE as STATUS_TABLE
from .status_table import STRUCK_RE as _STRUCK_RE
from .status_table import UNMAPPED_STATUS as UNMAPPED_STATUS
from .status_table import WIDE as _WIDE
from .status_table import status_table_markdown as status_table_markdown
from .status_table import zh_links as _zh_links

_VERB_RE = re.compile(
    r"(?<![\w-])(" + "|".join(r"\s+".join(map(re.escape, v.split())) for v, _, _ in _LINK_VERBS) + r")(?![\w-])",
    re.IGNORECASE,
)
_COMMENT_RE = re.compile(r"<!--.*?-->", re.DOTALL)
_LINK_RE = re.compile(r"!?\[([^\]]*)\]\([^)]*\)|\[([^\]]*)\]\[[^\]]*\]")  # [label](url), [label][ref]
_URL_RE = re.compile(r"<?https?://\S+>?")
_PARENS_RE = re.compile(r"\([^()]*\)")
_LEAD_RE = re.compile(r"^[^\w\[{]+", re.UNICODE)  # emoji, bullets, symbols
# Where the first phrase ends: a sentence or clause mark, a list or choice bar, a dash between words.
_PHRASE_END_RE = re.compile(r"[.:;,|/(\[{!?]|\s[-–—]+\s|\s[-–—]+$")
_STOP_WORDS = frozenset({"on", "in", "by", "since", "at", "via", "from", "for", "with", "until", "and"})
_NUMBERISH_RE = re.compile(r"^[v#]?\d[\d./-]*\w?$")  # 2021-03-04, 5.9, v1, #12, 4/28/22
_PAREN_RE = re.compile(r"\s*\([^()]*\)\s*$")
_DATE_TAIL_RE = re.compile(r"\s+(?:on\s+|since\s+)?\d{4}-\d{2}-\d{2}$", re.IGNORECASE)
_PLACEHOLDER_RE = re.compile(r"^\s*[{<\[][^}>\]]*\|[^}>\]]*[}>\]]\s*$")  # "{Accepted|Rejected}": unfilled


def normalise(text: str) -> str:
    """A status without emoji, emphasis, trailing parenthetical or date, lower case: empty when a line holds
    no words at all. (Table lookups use `first_words`, and so do `[status_map]` keys.)"""
    t = _COMMENT_RE.sub(" ", text.translate(_WIDE)).replace("*", "").replace("`", "").strip()
    t = _LEAD_RE.sub("", t).strip().strip("_").strip()
    prev = None
    while prev != t:
        prev = t
        t = _PAREN_RE.sub("", t)
        t = _DATE_TAIL_RE.sub("", t)
        t = t.rstrip(" .:;,!-_").strip()
    return " ".join(t.split()).lower()


def _plain(text: str) -> str:
    """The value without comments, link targets, bare URLs and emphasis: what a reader sees."""
    t = _COMMENT_RE.sub(" ", text.translate(_WIDE))
    t = _LINK_RE.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2), t)
    t = _URL_RE.sub(" ", t)
    return re.sub(r"[*`~]|(?<!\w)_+|_+(?!\w)", " ", t).replace("\\", "")


def first_words(text: str) -> list[str]:
    """The words of the first phrase: links kept as their label, parentheses, votes, dates and what follows
    the first sentence or clause dropped ("Approved (by TSC vote on 3/25/21)" -> ["approved"])."""
    t = _plain(text)
    prev = None
    while prev != t:
        prev = t
        t = _PARENS_RE.sub(" ", t)
    t = _LEAD_RE.sub("", t.strip())
    m = _PHRASE_END_RE.search(t)
    t = t[: m.start()] if m else t
    return re.sub(r"(?<=[^\W\d])[-_]+(?=[^\W\d])", " ", t).lower().split()  # ready-for-release


def hint_key(words: list[str]) -> str:
    """The `[status_map]` key to print for an unmapped status: its first words, up to a number, date or
    connecting word ("Awaiting TSC vote on 2022-01-01" -> "awaiting tsc vote"), at most three."""
    out: list[str] = []
    for w in words:
        if _NUMBERISH_RE.match(w) or (out and w in _STOP_WORDS) or len(out) == 3:
            break
        out.append(w)
    return " ".join(out)


def lookup(words: list[str], status_map: dict[str, str]) -> tuple[str | None, str, str]:
    """(status, rule, phrase) for the longest known phrase the words start with; `[status_map]` first."""
    for n in range(len(words), 0, -1):
        phrase = " ".join(words[:n])
        if phrase in status_map:
            return status_map[phrase], "[status_map] in jgm.toml", phrase
        if phrase in STATUS_TABLE:
            return STATUS_TABLE[phrase], "status table", phrase
    if words and _CJK_RE.match(words[0]):  # Chinese has no spaces: "已接受並實施" starts with "已接受"
        for table, rule in ((status_map, "[status_map] in jgm.toml"), (STATUS_TABLE, "status table")):
            known = [k for k in table if words[0].startswith(k) and len(k) > 1]
            if known:
                phrase = max(known, key=len)
                return table[phrase], rule, phrase
    return None, "", ""


_RETIRING_RE = re.compile(
    r"(?<![\w-])("
    + "|".join(r"\s+".join(map(re.escape, w.split())) for w in RETIRING_ANYWHERE if not _CJK_RE.match(w))
    + r")(?![\w-])|("
    + "|".join(sorted((w for w in RETIRING_ANYWHERE if _CJK_RE.match(w)), key=len, reverse=True))
    + ")",  # Chinese words stand between other characters, without spaces
    re.IGNORECASE,
)


_CLAUSE_START_RE = re.compile(r"[(\[,;.:!?]|\s[-–—]+\s")


def _partial(text: str, at: int) -> bool:
    """True when the clause that holds position `at` names a part before it ("parts deprecated by Z")."""
    before = text[:at]
    starts = [m.end() for m in _CLAUSE_START_RE.finditer(before)]
    clause = before[starts[-1] if starts else 0 :].lower()
    return any(w in PART_WORDS for w in re.findall(r"\w+", clause)) or any(
        w in clause for w in PART_WORDS if _CJK_RE.match(w)
    )


_BARE_RE = re.compile(
    r"(?<![\w-])(" + "|".join(r"\s+".join(map(re.escape, w.split())) for w in RETIRING_BARE) + r")(?![\w-])",
    re.IGNORECASE,
)
_CLAUSE_END_RE = re.compile(r"[)\](,;.:!?]|\s[-–—]+\s")


def _bare(text: str, start: int, end: int) -> bool:
    """True when a word of `RETIRING_BARE` stands in a clause of its own ("Implemented, later removed", "removed
    in v3"), not with a subject or an object ("the v1 tokens are no longer valid", "removed the cache")."""
    starts = [m.end() for m in _CLAUSE_START_RE.finditer(text[:start])]
    before = re.findall(r"\w+", text[starts[-1] if starts else 0 : start].lower())
    if any(w not in _BARE_FILLERS and not w.isdigit() for w in before):
        return False
    stop = _CLAUSE_END_RE.search(text, end)
    after = re.findall(r"\w+", text[end : stop.start() if stop else len(text)].lower())
    return not after or after[0] in _BARE_AFTER or after[0].isdigit()


def _retiring(plain: str) -> str | None:
    """The status of the first retiring word anywhere in a value (rule 1) that is not about a part, or None."""
    hits = [(m.start(), m.group(1) or m.group(2)) for m in _RETIRING_RE.finditer(plain)]
    hits += [(m.start(), m.group(1)) for m in _BARE_RE.finditer(plain) if _bare(plain, m.start(), m.end())]
    for at, found in sorted(hits):
        if _partial(plain, at):
            continue
        word = " ".join(found.lower().split())
        return STATUS_TABLE.get(word) or STATUS_TABLE[word.split()[0]]
    return None


_QUESTION_RE = re.compile(r"^[^(\[{.:;,|/!?]*?\?")  # "Accepted?", "**Accepted** ?": a question mark ends the phrase


def _hedged(text: str, words: list[str], phrase: str) -> bool:
    """True when the value doubts its in-force word: a hedge among the words of its first phrase ("Accepted
    draft", "Tentatively accepted"), a parenthesis opening with one ("Accepted (draft)") or a question mark
    after the phrase ("Accepted?", "Accepted (?)")."""
    plain = _LEAD_RE.sub("", _plain(text).strip())
    if _QUESTION_RE.match(plain) or any(w in HEDGES for w in words if w not in phrase.split()):
        return True
    for inner in re.findall(r"\(([^()]*)\)", plain):
        said = re.findall(r"[\w?]+", inner.lower())
        if said and (said[0] in HEDGES or said[0] == "?" or said[:2] == ["not", "final"]):
            return True
    return False


@dataclass
class StatusReading:
    """What a status section or value says. `status` is None when no status word was found."""

    status: str | None = None
    written: str | None = None  # the status as written
    line: int | None = None
    rule: str = ""  # why: status table, [status_map], a link line, a retiring phrase
    source: str = ""  # where: front matter `status`, `Status:` bullet, `## Status` section, change log, …
    unknown: tuple[str, int | None] | None = None  # (hint key, line) of a status in no table
    links: dict[str, list[str]] = field(default_factory=dict)  # relation -> ids
    other_links: list[str] = field(default_factory=list)  # link lines of verbs we do not know


@dataclass
class _Line:
    status: str | None
    rule: str
    opens_with_verb: bool
    words: list[str]
    links: dict[str, list[str]]


def _starts(words: list[str], phrase: str) -> bool:
    return (" ".join(words) + " ").startswith(phrase + " ")


def _arrow_parts(text: str) -> list[str]:
    """The text split at arrows outside parentheses and brackets ("see (ADR-3 -> ADR-5)" is one part)."""
    parts, at = [], 0
    for m in _ARROW_RE.finditer(text):
        before = text[: m.start()]
        if before.count("(") == before.count(")") and before.count("[") == before.count("]"):
            parts.append(text[at : m.start()])
            at = m.end()
    return [*parts, text[at:]]


def _read_line(text: str, path: str, status_map: dict[str, str]) -> _Line:
    """One status line. Across arrows ("Proposed → Accepted → Revoked") the last part that says anything counts
    and the links of every part are kept."""
    parts = [p for p in _arrow_parts(_zh_links(text)) if first_words(p)]
    read = [_read_part(p, path, status_map) for p in parts]
    said = [r for r in read if r.status is not None]
    if len(parts) < 2 or not said:
        return _read_part(text, path, status_map)
    got = said[-1]
    for other in (r for r in read if r is not got):
        for rel, targets in other.links.items():
            have = got.links.setdefault(rel, [])
            have.extend(t for t in targets if t not in have)
    if got is not read[0]:
        got.rule = f"an arrow moves the status to the phrase after it ({got.rule or 'status table'})"
    return got


def _read_part(text: str, path: str, status_map: dict[str, str]) -> _Line:
    text = _zh_links(text)
    words = first_words(text)
    scan = text.replace("*", "").replace("`", "")  # "**Superseded** by ADR-7" is still a link phrase
    links: dict[str, list[str]] = {}
    about_self = _plain(scan)  # what is left once clauses about other records ("supersedes X") are cut
    verbs = list(_VERB_RE.finditer(scan))
    for i, m in enumerate(verbs):
        verb = " ".join(m.group(1).lower().split())
        rel, says = next((r, st) for v, r, st in _LINK_VERBS if v == verb)
        if m.start() == 0 and verb in status_map:
            continue  # mapped as a status word: "Superseded" = "deprecated"
        end = verbs[i + 1].start() if i + 1 < len(verbs) else len(scan)
        if rel == "superseded_by" and m.start() > 0 and _partial(scan, m.start()):
            rel = "amended_by"  # "Active (parts deprecated in favour of Z)": Z amends it
        if rel in ("supersedes", "amends", "amended_by"):
            about_self = about_self.replace(_plain(scan[m.start() : end]), " ")
        targets = link_targets(scan[m.end() : end], path)
        have = links.setdefault(rel, [])
        have.extend(t for t in targets if t not in have)
    status, rule, phrase = lookup(words, status_map)
    if status is None and len(words) > 1 and words[0] in HEDGES:  # "Tentatively accepted"
        status, rule, phrase = lookup(words[1:], status_map)
    mapped = rule == "[status_map] in jgm.toml"
    opening = next(((v, st) for v, _, st in _LINK_VERBS if _starts(words, v) and v not in status_map), None)
    if opening is not None and not mapped:
        status, rule = opening[1], (f"link line `{opening[0]}`" if opening[1] else "")
    if mapped or (status is not None and LIFECYCLE[status] == "retired"):
        return _Line(status, rule, opening is not None, words, links)
    if "superseded_by" in links:
        status, rule = "superseded", "a retiring phrase (`superseded by`, `replaced by`, `in favour of`) wins"
    elif opening is None and (retired := _retiring(about_self)) is not None:
        status, rule = retired, "a retiring word anywhere in the status wins"
    elif status is not None and LIFECYCLE[status] == "in force" and _hedged(text, words, phrase):
        status, rule = UNMAPPED_STATUS, f"a hedge (`?`, draft, tentative, …) makes `{phrase}` proposed"
    return _Line(status, rule, opening is not None, words, links)


_DATED_RE = re.compile(r"^[-*+]?\s*\d{4}[-/.]\d{1,2}[-/.]\d{1,2}\s*[:：,–—-]?\s*(?=\S)")  # "2017-11-22 提议"
_CHOICE_LABEL_RE = re.compile(r"^[^:：/|]{1,24}[:：]")


def _choice_list(text: str) -> bool:
    """A line listing the vocabulary, not saying a status: three or more table words between `/` or `|`,
    after an optional label ("列表：提议/通过/完成", "Proposed | Accepted | Rejected | Superseded")."""
    value = _CHOICE_LABEL_RE.sub("", text.strip(), count=1)
    parts = [p for p in re.split(r"[/|｜]", value) if p.strip()]
    return len(parts) >= 3 and all(lookup(first_words(p), {})[0] is not None for p in parts)


def read_status(lines: Sequence[tuple[int | None, str]], path: str, status_map: dict[str, str]) -> StatusReading:
    """Read a status section (or one status value) given as (line number, text) pairs. The first line with a
    status sets it; a later line opening with a retiring phrase or word ("Superseded by ADR-9") overrides an
    in-force one; in a dated log ("2017-11-22 Proposed", "2017-11-25 Accepted") the last entry counts; a line
    listing the vocabulary says nothing; prose lines after the status are ignored, link lines with verbs we
    do not know are kept."""
    out = StatusReading()
    out_dated = False  # the status so far came from a dated entry: a later dated entry replaces it
    for n, raw in lines:
        text = _STRUCK_RE.sub(" ", _COMMENT_RE.sub(" ", raw)).strip()  # "~~Accepted~~ Revoked": revoked
        if not text or text.startswith(">") or _PLACEHOLDER_RE.match(text) or not normalise(text):
            continue  # blank, a quoted template hint, an unfilled "{Accepted|Rejected}" choice
        if _choice_list(text):
            continue  # "列表：提议/通过/完成/已弃用/已取代", "Options: Proposed | Accepted | Rejected": the vocabulary
        dated = _DATED_RE.match(text) is not None
        got = _read_line(_DATED_RE.sub("", text, count=1), path, status_map)
        if dated and out_dated and got.status is not None:  # "2017-11-22 Proposed", "2017-11-25 Accepted"
            out.status, out.written, out.line, out.unknown = got.status, text, n, None
            out.rule = f"the last dated entry of the status ({got.rule or 'status table'})"
            for rel, targets in got.links.items():
                have = out.links.setdefault(rel, [])
                have.extend(t for t in targets if t not in have)
            continue
        for rel, targets in got.links.items():
            have = out.links.setdefault(rel, [])
            have.extend(t for t in targets if t not in have)
        if got.opens_with_verb and got.status is None:  # "Supersedes ADR-2", "Partly superseded by ADR-3"
            if "amended_by" in got.links and out.status is None and out.unknown is None:
                out.written, out.line, out.rule = text, n, "`partly superseded`: still in force, amended"
            continue
        if out.status is None and out.unknown is None:
            out_dated = dated
            if got.status is not None:
                out.status, out.written, out.line, out.rule = got.status, text, n, got.rule
            elif "](" in text:
                out.other_links.append(text)
            else:
                out.unknown, out.written, out.line = (hint_key(got.words), n), text, n
            continue
        retires = got.status is not None and LIFECYCLE[got.status] == "retired"
        if retires and (got.opens_with_verb or got.rule == "status table") and (out.status or "") != got.status:
            if out.status is None or LIFECYCLE[out.status] != "retired":
                out.status, out.written, out.line, out.rule = got.status, text, n, got.rule
                out.unknown = None
                continue
        if "](" in text and not got.links:
            out.other_links.append(text)
    if out.status is None and out.unknown is None and "amended_by" in out.links and out.rule:
        out.status = "accepted"  # "Partly superseded": the record is still in force
    if out.status is not None and LIFECYCLE[out.status] == "retired":
        out.unknown = None  # a retiring line settles it, whatever word stood before
    return out


_EMPTY_VALUES = frozenset({"", "none", "null", "n/a", "na", "-", "~", "tbd", "[]"})


def lifecycle_key(key: str) -> tuple[str, str | None] | None:
    """(relation, status) a key like `superseded-by`, `Superseded_By` or `supersededBy` stands for, or None."""
    k = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", key.strip())  # supersededBy
    return LIFECYCLE_KEYS.get(" ".join(re.sub(r"[-_]+", " ", k).lower().split()))


def read_lifecycle_keys(reading: StatusReading, items: Sequence[tuple[int | None, str, object]], path: str) -> None:
    """Add what lifecycle keys (`superseded-by: [RFC-0107]`) say to a status reading, in place: their links, and
    for a retiring key that names a target, the retiring status, whatever the status word said."""
    for line, key, value in items:
        spec = lifecycle_key(key)
        if spec is None:
            continue
        rel, says = spec
        targets: list[str] = []
        for v in value if isinstance(value, list) else [value]:
            text = "" if v is None else str(v).strip()
            if text.lower() in _EMPTY_VALUES:
                continue
            found = link_targets(text, path)
            if not found and re.fullmatch(r"[\w.:-]+", text):
                found = [ref_id(text)]  # a slug
            targets += [t for t in found if t not in targets]
        if not targets:
            continue
        have = reading.links.setdefault(rel, [])
        have.extend(t for t in targets if t not in have)
        if says is not None and (reading.status is None or LIFECYCLE[reading.status] != "retired"):
            reading.status, reading.unknown, reading.line = says, None, line
            reading.rule = f"`{key}` names its replacement: retired whatever the status word says"
            reading.written = reading.written or f"{key}: {', '.join(targets)}"
            reading.source = f"the `{key}` key"
