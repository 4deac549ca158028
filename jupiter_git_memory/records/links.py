"""Resolve written link targets to real record ids across the whole knowledge base (pure).

ADR links are written many ways: `0002`, `ADR-2`, `adr-0002`, `[ADR-0002](0002-new.md)`, a log4brains slug.
Adapters turn each into the form the id rule gives (`ADR-0002`, the slug); here every target that is not a
record id is looked up among each record's aliases (its id, and the id rule applied to its file name, case
ignored), so a link to a file written in our own format reaches that record's id too. Ambiguous or unknown
targets are left as written: the lifecycle reports them as dangling.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from typing import Any

from .formats.ids import adr_id, ref_id
from .model import LINK_KEYS, Record


def resolve_links(records: list[Record]) -> list[Record]:
    ids = {r.id for r in records}
    aliases: dict[str, set[str]] = defaultdict(set)
    for r in records:
        aliases[r.id.lower()].add(r.id)
        aliases[adr_id(r.path)[0].lower()].add(r.id)

    def one(target: str) -> str:
        if target in ids:
            return target
        for form in (ref_id(target), target):
            if form in ids:
                return form
            found = aliases.get(form.lower(), set())
            if len(found) == 1:
                return next(iter(found))
        return target

    out = []
    for r in records:
        changes: dict[str, Any] = {}
        for key in LINK_KEYS:
            vals = getattr(r, key)
            new = tuple(dict.fromkeys(one(t) for t in vals))
            if new != vals:
                changes[key] = new
        out.append(dataclasses.replace(r, **changes) if changes else r)
    return out
