"""The `reviewed` line `jgm drift confirm` writes (records/formats/reviewed.py): one line in the place each
format has for it, every other byte of the file as it was, and read back by the format's own reader."""

from __future__ import annotations

import difflib

import pytest

from jupiter_git_memory.records.formats import read_record
from jupiter_git_memory.records.formats.reviewed import NoPlace, reviewed_commit, value, write

pytestmark = pytest.mark.unit

SHA = "4f2a9c1e" * 5
VAL = value(SHA, "2026-12-03")


def _diff(before: bytes, after: bytes) -> list[str]:
    a, b = before.decode().split("\n"), after.decode().split("\n")
    return [d for d in difflib.ndiff(a, b) if d[:1] in "+-"]


def _check(path: str, raw: bytes, fmt: str) -> tuple[bytes, int]:
    """Write the line; the reader of `fmt` reads the same record with the commit; one line more."""
    assert read_record(path, raw).format == fmt
    got, line = write(raw, fmt, VAL)
    assert _diff(raw, got) == [f"+ {got.decode().split(chr(10))[line - 1]}"]  # exactly one line added
    r = read_record(path, got)
    assert r.format == fmt and r.outcome.record is not None
    before = read_record(path, raw).outcome.record
    assert (r.outcome.record.id, r.outcome.record.status, r.outcome.record.title) == (
        before.id,
        before.status,
        before.title,
    )
    assert reviewed_commit(r.outcome.record.to_dict()) == SHA
    again, line2 = write(got, fmt, value("a" * 40, "2027-01-01"))  # a second confirm replaces, never adds
    assert line2 == line and len(again.split(b"\n")) == len(got.split(b"\n"))
    assert reviewed_commit(read_record(path, again).outcome.record.to_dict()) == "a" * 40
    return got, line


def test_our_front_matter_gains_one_key_before_the_closing_fence_and_keeps_every_other_byte():
    raw = (
        b"---\nid: dec-a\nkind: decision\nstatus: accepted\ntitle: 'Quoted: title'  # a comment\n"
        b"source: [src/a.py, src/b.py]\n---\nBody with --- inside.\n"
    )
    got, line = _check("knowledge/dec-a.md", raw, "jgm")
    assert line == 7 and got.decode().split("\n")[6] == f"reviewed: {VAL}"
    assert got.replace(f"reviewed: {VAL}\n".encode(), b"") == raw


def test_an_existing_reviewed_key_is_replaced_where_it_stands_with_its_continuation_lines():
    raw = (
        b"---\nid: dec-a\nkind: decision\nstatus: accepted\ntitle: T\nreviewed:\n  - 2026-01-01\nsource: a.py\n---\nB\n"
    )
    got, line = write(raw, "jgm", VAL)
    assert line == 6
    want = f"---\nid: dec-a\nkind: decision\nstatus: accepted\ntitle: T\nreviewed: {VAL}\nsource: a.py\n---\nB\n"
    assert got == want.encode()


def test_crlf_and_a_bom_are_kept():
    raw = "\ufeff---\r\nid: dec-a\r\nkind: decision\r\nstatus: accepted\r\ntitle: T\r\n---\r\nBody\r\n".encode()
    got, _ = write(raw, "jgm", VAL)
    assert got == "\ufeff---\r\nid: dec-a\r\nkind: decision\r\nstatus: accepted\r\ntitle: T\r\n".encode() + (
        f"reviewed: {VAL}\r\n---\r\nBody\r\n".encode()
    )


_MADR3 = b"---\nstatus: accepted\ndate: 2026-01-02\nevidence: src/a.py\n---\n# Use Postgres\n\n## Context\n\nX.\n"
_NYGARD = b"# 2. Use Postgres\n\nDate: 2026-01-02\n\n## Status\n\nAccepted\n\n## Context\n\nWe need a database.\n"


@pytest.mark.parametrize(
    ("path", "raw", "fmt", "lines"),
    [
        (
            "docs/decisions/0003-use-postgres.md",
            _MADR3,
            "madr3",
            ["date: 2026-01-02", "evidence: src/a.py", "reviewed"],
        ),
        ("doc/adr/0002-use-postgres.md", _NYGARD, "nygard", ["", "Date: 2026-01-02", "Reviewed"]),  # under its date
        (
            "doc/adr/0002-use-postgres.md",
            b"# 2. Use Postgres\n\n## Status\n\nAccepted\n",
            "nygard",
            ["# 2. Use Postgres", "Reviewed"],
        ),
    ],
)
def test_adr_front_matter_and_nygard_get_their_line_where_the_format_keeps_such_lines(path, raw, fmt, lines):
    got, line = _check(path, raw, fmt)
    around = got.decode().split("\n")[line - len(lines) : line]
    assert around[:-1] == lines[:-1] and around[-1] == f"{lines[-1]}: {VAL}"


def test_madr2_and_log4brains_get_a_bullet_in_their_header_list():
    raw = b"# Use Postgres\n\n* Status: accepted\n* Deciders: Ada\n* Date: 2026-01-02\n\n## Context\n\nX.\n"
    got, line = _check("docs/adr/0004-use-postgres.md", raw, "madr2")
    assert got.decode().split("\n")[line - 1] == f"* Reviewed: {VAL}" and line == 6
    raw = b"# Use Postgres\n\n- Status: accepted\n- Date: 2026-01-02\n\n## Context\n\nX.\n"
    got, line = _check("docs/adr/20260102-use-postgres.md", raw, "log4brains")
    assert got.decode().split("\n")[line - 1] == f"- Reviewed: {VAL}"


def test_no_place_is_refused_and_a_date_only_value_names_no_commit():
    with pytest.raises(NoPlace):
        write(b"no front matter\n", "jgm", VAL)
    with pytest.raises(NoPlace):
        write(b"---\nid: a\n", "jgm", VAL)
    assert reviewed_commit({"metadata": {"reviewed": "2026-12-01"}}) is None  # the old docs' advice: no baseline
    assert reviewed_commit({"metadata": {"Reviewed": "ABCDEF1 on 2026-12-01"}}) == "abcdef1"
