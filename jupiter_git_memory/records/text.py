"""Characters that change what text shows without being seen. Pure.

Controls (C0, DEL, C1) drive terminals; Unicode format characters (category Cf: bidi overrides such as
U+202E, zero-width space and joiners, the BOM) reorder or hide text, so `Use Postgres` can display as
something else, or a word can be split where no one sees it. One definition here, used by the candidate
checks (which reject them), the record checks (which flag them) and every human-facing printer (which
shows them escaped).
"""

from __future__ import annotations

import unicodedata

from .model import LINK_KEYS, Issue, Record

_LAYOUT = frozenset("\t\n")  # the only controls plain text needs (a `\r` in a one-line field is flagged)
_NO_LAYOUT = dict.fromkeys(map(ord, _LAYOUT))  # str.translate table deleting them


def is_hidden(ch: str) -> bool:
    """A control character other than tab and newline, or a Unicode format character (Cf)."""
    cat = unicodedata.category(ch)
    return (cat == "Cc" and ch not in _LAYOUT) or cat == "Cf"


def hidden_chars(text: str) -> list[str]:
    """The distinct hidden characters in `text`, in order of first appearance. Each distinct character is
    looked at once (`dict.fromkeys` keeps first-appearance order): every seed asks this of every field of
    every record, also the ones whose parse it reuses. A hidden character is never printable (Cc and Cf are
    not), so text that is printable but for tabs and newlines, nearly all of it, is answered in C."""
    if _printable(text):
        return []
    return [ch for ch in dict.fromkeys(text) if is_hidden(ch)]


def _printable(text: str) -> bool:
    return text.isprintable() or text.translate(_NO_LAYOUT).isprintable()


def describe(ch: str) -> str:
    """`U+202E (RIGHT-TO-LEFT OVERRIDE)`: what a message names, never the character itself."""
    name = unicodedata.name(ch, "") or {"\x1b": "ESCAPE", "\r": "CARRIAGE RETURN", "\x7f": "DELETE"}.get(ch, "")
    return f"U+{ord(ch):04X}" + (f" ({name})" if name else "")


def describe_hidden(text: str, limit: int = 3) -> str | None:
    """The hidden characters of `text` named for a message (at most `limit`), or None when it has none."""
    found = hidden_chars(text)
    if not found:
        return None
    more = f" and {len(found) - limit} more" if len(found) > limit else ""
    return ", ".join(describe(c) for c in found[:limit]) + more


def show_hidden(text: str) -> str:
    """`text` with its hidden characters written as escapes (`\\x1b`, `\\u202e`): what a terminal shows of a
    record's title or body, so nothing in it drives the terminal or reorders the line, and nothing is lost."""
    return "".join(_escape(ch) if is_hidden(ch) else ch for ch in text)


def escape_nonprintable(text: str) -> str:
    """`text` with every character that is not printable (controls, format characters, line breaks other
    than `\\n`, unassigned code points) written as a Python-style escape (`\\x1b`, `\\u202e`), so what a
    user put in a file or a setting reaches a terminal as visible text."""
    return "".join(ch if ch == "\n" or ch.isprintable() else _escape(ch) for ch in text)


def inline(text: object) -> str:
    """Untrusted text (a file name, an `evidence:` path, a commit subject) inside one line of agent-facing
    text (the prompt hook, the session brief, context packs), as it is: every character that is not
    printable (line breaks of every kind: `\\n`, `\\r`, U+2028, U+0085; tabs, controls, format characters)
    written as an escape. Such text can then neither end the line and start a forged `## ` record header
    (issue 35: a committed file named `x\\n## Use MySQL\\n…` did), nor hide or reorder what the line says."""
    s = str(text)
    return s if s.isprintable() else "".join(ch if ch.isprintable() else _escape(ch) for ch in s)


def one_line(text: object) -> str:
    """Untrusted prose (a title, a reason) on one line: each run of whitespace, line breaks included, becomes
    one space (a title folded over lines reads as one); whatever else is not printable is escaped (`inline`)."""
    return inline(" ".join(str(text).split()))


def _escape(ch: str) -> str:
    n = ord(ch)
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}"


def hidden_char_warnings(record: Record, text: str) -> list[Issue]:
    """One warning per field of `record` (read from the file `text`) that holds hidden characters. A record is
    still indexed (its author may have meant a joiner in a name), but no one should trust a title whose bidi
    override shows `accepted` where the file says something else without being told; every printer shows
    them escaped."""
    fields: dict[str, str] = {
        "id": record.id,
        "kind": record.kind,
        "status": record.status,
        "title": record.title,
        "tags": " ".join(record.tags),
        "source": record.source or "",
        "scope": record.scope or "",
        **{k: " ".join(getattr(record, k)) for k in LINK_KEYS},
        "body": record.body.replace("\r\n", "\n"),
    }
    if _printable("".join(fields.values())):  # one C-speed check for the usual record with none
        return []
    issues = []
    for name, value in fields.items():
        found = hidden_chars(value)
        if not found:
            continue
        line = record.lines.get(name) or text.count("\n", 0, max(text.find(found[0]), 0)) + 1
        issues.append(
            Issue(
                record.path,
                f"`{name}` contains characters that are invisible or change how text shows "
                f"({describe_hidden(value)}): readers may not see what the file says",
                "remove them (jgm shows them escaped, e.g. \\u202e)",
                severity="warning",
                line=line,
                record_id=record.id,
            )
        )
    return issues
