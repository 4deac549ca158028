"""Which records hold a word, read from the lexical index's doclists (corroboration at team scale, issue 39).

Why not `SELECT DISTINCT record_id ... MATCH`: that reads the stored row of every chunk a word matches,
50-120 ms per common word at 50,000 chunks. The matching rowids come from the FTS doclist alone (one
string per word, `group_concat`), and `Owners`, read once per catalog generation, names each rowid's record.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Owners:
    """The lexical index's chunks by record: `of[rowid]` is the number of the chunk's record (-1: none)."""

    of: np.ndarray
    names: list[str]  # record id by number
    number: dict[str, int]

    @classmethod
    def read(cls, db: sqlite3.Connection) -> Owners:
        rows = db.execute("SELECT rowid, record_id FROM chunks_fts").fetchall()
        names = sorted({rid for _, rid in rows})
        number = {rid: i for i, rid in enumerate(names)}
        of = np.full(max((r for r, _ in rows), default=-1) + 1, -1, dtype=np.int64)
        for rowid, rid in rows:
            of[rowid] = number[rid]
        return cls(of, names, number)


def holding(db: sqlite3.Connection, term: str, owners: Owners) -> np.ndarray:
    """Whether each record (by its number in `owners`) has a chunk containing `term` (porter-stemmed)."""
    held = np.zeros(len(owners.names), dtype=bool)
    try:
        got = db.execute("SELECT group_concat(rowid) FROM chunks_fts WHERE chunks_fts MATCH ?", (f'"{term}"',))
        text = got.fetchone()[0]
    except sqlite3.OperationalError:
        return held
    if text:
        rowids = np.fromstring(text, dtype=np.int64, sep=",")
        recs = owners.of[rowids[rowids < len(owners.of)]]
        held[recs[recs >= 0]] = True
    return held
