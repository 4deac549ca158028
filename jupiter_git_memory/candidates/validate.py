"""Checks a candidate must pass before it is written. Pure: an input in, a verdict out.

Why these checks: a memory that says "fixed it" or "TODO" costs every later reader attention and buys
nothing, and a decision without its reason cannot be re-evaluated when the context changes. The checks
run in a fixed order so the same input always gets the same first reason: secrets, shape, low signal,
then what the requested kind must contain.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..records.kinds import REQUESTABLE_KINDS
from ..records.model import ID_PATTERN
from ..records.text import describe_hidden
from .fields import MAX_BODY_BYTES, MAX_FIELD_CHARS, MAX_FILES, MAX_SUPERSEDES, MAX_TAGS, MAX_TITLE_CHARS, SCOPES
from .model import TEXT_FIELDS, CandidateInput
from .secrets import scan_fields

MIN_TITLE_CHARS = 8
MIN_BODY_WORDS = 6
MIN_BODY_CHARS = 30
_ID_RE = re.compile(ID_PATTERN)
_TAG_RE = re.compile(r"^[\w][\w.+/-]{0,39}$")
_WORD_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_'-]*")
# Chinese, Japanese and Korean are written without spaces: a run of their characters counts one word per two
# characters (most words are two characters long) and each character as two of the length thresholds'.
_CJK_RUN_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")

# Placeholders and non-statements. Upper-case markers are matched case-sensitively ("todo app" is fine).
_PLACEHOLDERS = tuple(
    (label, re.compile(rx))
    for label, rx in (
        ("TODO", r"\bTODO\b"),
        ("TBD", r"\bTBD\b"),
        ("FIXME", r"\bFIXME\b"),
        ("XXX", r"(?<![\w*])XXX(?![\w*])"),
        ("n/a", r"(?i)(?<![\w/])n/a(?![\w/])"),
        ("fixed it", r"(?i)\bfixed it\b"),
        ("should work", r"(?i)\bshould (?:now |probably |hopefully )?work\b"),
        ("lorem ipsum", r"(?i)\blorem ipsum\b"),
        ("to be determined", r"(?i)\bto be (?:determined|decided|defined)\b"),
        ("<fill in>", r"(?i)<\s*(?:fill|insert|add|your)\b[^>]{0,40}>"),
    )
)
# Words that say nothing on their own: a title made only of these (and numbers) is generic.
_GENERIC = frozenset(
    """a an the this that it its my our some various general misc miscellaneous new old
fix fixed fixes fixing update updated updates change changes changed bug bugs issue issues problem problems
note notes finding findings decision decisions fact facts adr history observation observations info information
learning learnings lesson lessons important memo stuff thing things test tests testing todo wip work done
result results summary session run task record candidate about on in of for and to re from with""".split()
)
_RATIONALE = re.compile(
    r"(?i)\b(because|since|so that|so we|in order to|to (?:avoid|keep|make|reduce|prevent|allow|ensure|support|stop|get)|"
    r"due to|given that|as a result|otherwise|reason|rationale|why|trade-?offs?|consequences?|instead of|rather than|"
    r"motivat\w*|drive[nrs]? by|which (?:means|lets|avoids)|thus|therefore|hence|so (?:the|we|it|they|each|every|our)|"
    r"needs? to|goal)\b|,\s*so\b"
)
_EVIDENCE = re.compile(
    r"(?i)(https?://\S+|\b[\w./-]+\.(?:py|js|ts|go|rs|java|rb|md|toml|yaml|yml|json|sql|sh|c|h|cpp|txt|lock|cfg|ini)\b|"
    r"`[^`\n]{3,}`|\b[0-9a-f]{7,40}\b|\b(?:measured|observed|reproduced|verified|benchmark\w*|according to|"
    r"logs? show|stack ?trace|traceback|see )\b)"
)
_DATE = re.compile(
    r"(?i)\b(\d{4}-\d{2}(-\d{2})?|\d{1,2}/\d{1,2}/\d{2,4}|(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*\s+\d{4}|"
    r"v?\d+\.\d+(\.\d+)?|q[1-4]\s*\d{4}|\d{4})\b"
)


def _has_surrogates(text: str) -> bool:
    try:
        text.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


@dataclass
class Verdict:
    """`code` None means the candidate may be written; otherwise it is the first failed check."""

    code: str | None = None
    reason: str = "passes the checks"
    fields: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _words(text: str) -> list[str]:
    words: list[str] = _WORD_RE.findall(text)
    for run in _CJK_RUN_RE.findall(text):
        words.extend(run[i : i + 2] for i in range(0, max(len(run) - 1, 1), 2))
    return words


def _length(text: str) -> int:
    """Characters, a CJK character counting as two (it carries about what two Latin letters do and more)."""
    return len(text) + sum(len(run) for run in _CJK_RUN_RE.findall(text))


def _generic_title(title: str) -> bool:
    words = [w.lower() for w in _words(title)]
    return all(w in _GENERIC or w.isdigit() for w in words)


def _placeholder(text: str) -> str | None:
    for label, rx in _PLACEHOLDERS:
        if rx.search(text):
            return label
    return None


def check(inp: CandidateInput) -> Verdict:
    """Every check but near-duplicates (those need the index; see dedup)."""
    hits = scan_fields(inp.text_fields())
    if hits:
        where = sorted({h.field for h in hits})
        kinds = sorted({h.what for h in hits})
        return Verdict(
            "secret",
            f"{', '.join(where)} contains {' and '.join(kinds)}; nothing was stored. Remove "
            "the secret (name where it lives instead, e.g. `the DEPLOY_TOKEN CI secret`) and send it again",
            where,
        )
    for name, text in inp.text_fields().items():
        if _has_surrogates(text):
            return Verdict("bad-text", f"{name} contains invalid Unicode (a lone surrogate); send UTF-8 text", [name])
        hidden = describe_hidden(text.replace("\r\n", "\n"))  # controls and format characters (bidi, zero-width)
        if hidden:
            return Verdict(
                "bad-text",
                f"{name} contains characters that are invisible or change how text shows ({hidden}); "
                "remove them and send plain text",
                [name],
            )
    if inp.kind not in REQUESTABLE_KINDS:
        return Verdict(
            "unknown-kind",
            f"kind {inp.kind!r} cannot be requested; use one of {', '.join(REQUESTABLE_KINDS)}",
            ["kind"],
        )
    title, body = (inp.title or "").strip(), (inp.body or "").strip()
    if not title:
        return Verdict(
            "missing-title", "the title is empty; give a one-line statement of what is true or decided", ["title"]
        )
    if "\n" in title or len(title) > MAX_TITLE_CHARS:
        return Verdict("bad-title", f"the title must be one line of at most {MAX_TITLE_CHARS} characters", ["title"])
    if len(body.encode("utf-8")) > MAX_BODY_BYTES:
        return Verdict(
            "too-long", f"the body is over {MAX_BODY_BYTES} bytes; keep one observation per candidate", ["body"]
        )
    if len(inp.tags or []) > MAX_TAGS or any(not _TAG_RE.match(str(t)) for t in inp.tags or []):
        return Verdict(
            "bad-tags", f"tags must be at most {MAX_TAGS} single words (letters, digits, . _ - + /)", ["tags"]
        )
    shape = _structure(inp)
    if shape is not None:
        return shape
    texts = {k: (getattr(inp, k) or "").strip() for k in TEXT_FIELDS}
    for name, text in (("title", title), ("body", body), *texts.items()):
        label = _placeholder(text)
        if label:
            return Verdict(
                "placeholder",
                f"the {name} contains the placeholder {label!r}; state what was actually "
                "found or decided, or do not record it yet",
                [name],
            )
    if _length(title) < MIN_TITLE_CHARS or len(_words(title)) < 2:
        return Verdict(
            "too-short",
            f"the title is too short to say anything; write a statement of at least two words "
            f"and {MIN_TITLE_CHARS} characters",
            ["title"],
        )
    if _generic_title(title):
        return Verdict(
            "generic-title",
            "the title is generic; name the specific thing that is true or decided "
            "(e.g. `Retry S3 uploads with exponential backoff`)",
            ["title"],
        )
    # the structured fields say as much as a body would: a finding with its verification and evidence is not
    # low-signal even with a one-line body, and a trigger or change counts towards the body's length
    substance = " ".join(t for t in (body, *texts.values()) if t)
    verified = inp.kind == "finding" and bool(texts["verification"]) and bool(inp.evidence or inp.source)
    if not verified and (len(_words(substance)) < MIN_BODY_WORDS or _length(substance) < MIN_BODY_CHARS):
        return Verdict(
            "too-short",
            f"the body is too short; explain it in at least {MIN_BODY_WORDS} words "
            "(trigger, change and verification count too)",
            ["body"],
        )
    return _kind_content(inp, title, substance)


def _structure(inp: CandidateInput) -> Verdict | None:
    """The structured fields' shape: a known scope, repository-relative files, record ids to supersede."""
    for name in TEXT_FIELDS:
        if len(getattr(inp, name) or "") > MAX_FIELD_CHARS:
            return Verdict("too-long", f"{name} is over {MAX_FIELD_CHARS} characters; keep it to a paragraph", [name])
    if (inp.scope or "").strip() and (inp.scope or "").strip() not in SCOPES:
        return Verdict(
            "bad-scope",
            f"scope {inp.scope!r} is not one of {', '.join(SCOPES)} (project-specific, or true beyond this repository)",
            ["scope"],
        )
    files = [f.strip() for f in inp.files or []]
    bad = [
        f for f in files if not f or f.startswith(("/", "~")) or ":" in f[:3] or ".." in f.replace("\\", "/").split("/")
    ]
    if bad or len(files) > MAX_FILES:
        return Verdict(
            "bad-files",
            f"files must be at most {MAX_FILES} repository-relative paths (no absolute path, no `..`)"
            + (f"; not {bad[0]!r}" if bad else ""),
            ["files"],
        )
    ids = [i.strip() for i in inp.supersedes or []]
    wrong = [i for i in ids if not _ID_RE.match(i)]
    if wrong or len(ids) > MAX_SUPERSEDES:
        return Verdict(
            "bad-supersedes",
            f"supersedes takes at most {MAX_SUPERSEDES} record ids (letters, digits, . _ : -)"
            + (f"; not {wrong[0][:80]!r}" if wrong else ""),
            ["supersedes"],
        )
    return None


def _kind_content(inp: CandidateInput, title: str, body: str) -> Verdict:
    warnings: list[str] = []
    if inp.kind in ("decision", "adr") and not _RATIONALE.search(body):
        return Verdict(
            "missing-rationale",
            f"a {inp.kind} states the decision (the title) and why: add the reason to "
            "the body (`because ...`, `so that ...`, or a `## Why` section)",
            ["body"],
        )
    has_evidence = bool(inp.source or inp.evidence) or bool(_EVIDENCE.search(body))
    if inp.kind == "fact" and not has_evidence:
        return Verdict(
            "missing-evidence",
            "a fact names its evidence: pass a source/evidence (a path, URL, command or commit) or cite it in the body",
            ["source", "evidence"],
        )
    if inp.kind == "finding" and not has_evidence:
        warnings.append("a finding without evidence is hard to verify: add a source (path, URL, command or commit)")
    if inp.kind == "history" and not _DATE.search(f"{title} {body}"):
        warnings.append("a history entry reads best with a date or version (when did it happen?)")
    if not inp.agent:
        warnings.append("no agent given: provenance names who observed this (pass agent)")
    return Verdict(None, "passes the checks", [], warnings)
