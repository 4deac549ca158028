"""Resolve written link targets to real record ids across the whole knowledge base (pure).

ADR links are written many ways: `0002`, `ADR-2`, `adr-0002`, `[ADR-0002](0002-new.md)`, a log4brains slug.
Adapters turn each into the form the id rule gives (`ADR-0002`, the slug); here every target that is not a
record id is looked up among each record's aliases (its id, and the id rule applied to its file name, case
ignored), so a link to a file written in our own format reaches that record's id too. Ambiguous or unknown
targets are left as written: the lifecycle reports them as dangling.

Two ADR files sharing a number (Ember has six pairs; `0003-a.md` and `0003-b.md`) would both claim
`ADR-0003`. `distinct_numbers` keeps both, each under its number plus the rest of its file name
(`ADR-0003-a`, `ADR-0003-b`; the folder is added when that is not enough), with a warning naming the
ids: an id is how agents cite a record, so neither file silently takes the plain number.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from collections import defaultdict
from typing import Any

from .formats.ids import _clean, adr_id, numbered, ref_id, stem, tagged_number_id
from .model import LINK_KEYS, Issue, Record

_NUMBER_PREFIX_RE = re.compile(r"^(?:adr)?[-_ ]?\d+[-_. ]*", re.IGNORECASE)


def _suffix(path: str) -> str:
    """The file name after its number: `0003-components-in-templates.md` -> `components-in-templates`."""
    rest = _NUMBER_PREFIX_RE.sub("", stem(path), count=1)
    return _clean(rest) if rest else ""


def distinct_numbers(records: list[Record]) -> tuple[list[Record], list[Issue], dict[str, list[str]]]:
    """Records read by an ADR adapter whose numbered id several files share get distinct ids (see above).
    Also returns each shared id with the ids its files got, so a link to it can say it is ambiguous."""
    by_id: dict[str, list[Record]] = defaultdict(list)
    for r in records:
        if r.format != "jgm" and numbered(r.path) and r.id == adr_id(r.path)[0]:
            by_id[r.id].append(r)
    renamed: dict[int, Record] = {}
    issues: list[Issue] = []
    taken = {r.id for r in records}
    for rid, group in by_id.items():
        if len(group) < 2:
            continue
        paths = sorted(g.path for g in group)
        for r in group:
            new = f"{rid}-{_suffix(r.path)}" if _suffix(r.path) else rid
            clash = sum(1 for g in group if (f"{rid}-{_suffix(g.path)}" if _suffix(g.path) else rid) == new)
            if clash > 1 or new == rid:
                folder = _clean(r.path.rsplit("/", 2)[-2]) if "/" in r.path else "root"
                new = f"{rid}-{folder}" + (f"-{_suffix(r.path)}" if _suffix(r.path) else "")
            if new in taken:
                continue  # still the same: the lifecycle reports the duplicate
            taken.add(new)
            renamed[id(r)] = dataclasses.replace(r, id=new[:128])
            others = ", ".join(p for p in paths if p != r.path)
            issues.append(
                Issue(
                    r.path,
                    f"number {int(rid.split('-')[1])} is also used by {others}: indexed as {new!r}, not {rid!r}",
                    f"cite it as {new}; renumber one of the files to give it the plain {rid}",
                    severity="warning",
                    record_id=new,
                )
            )
    shared: dict[str, list[str]] = {}
    for r in records:
        if id(r) in renamed:
            shared.setdefault(r.id, []).append(renamed[id(r)].id)
    return [renamed.get(id(r), r) for r in records], issues, shared


def resolve_links(records: list[Record]) -> list[Record]:
    """Every link target as the id its record really has. A number two collections share (`proposals/0004-x`,
    `withdrawn/0004-y`) goes to the one in the linking record's own folder, and stays as written otherwise."""
    ids = {r.id for r in records}
    folder = {r.id: posixpath.dirname(r.path) for r in records}
    aliases: dict[str, set[str]] = defaultdict(set)
    for r in records:
        aliases[r.id.lower()].add(r.id)
        aliases[adr_id(r.path)[0].lower()].add(r.id)

    def one(target: str, here: str) -> str:
        if target in ids:
            return target
        for form in (target, ref_id(target), tagged_number_id(target) or ""):  # `SE-0390` -> ADR-0390 last
            if not form:
                continue
            if form in ids:
                return form
            found = aliases.get(form.lower(), set())
            near = {f for f in found if folder[f] == here}
            if len(found) == 1 or len(near) == 1:
                return next(iter(found if len(found) == 1 else near))
        return target

    out = []
    for r in records:
        changes: dict[str, Any] = {}
        for key in LINK_KEYS:
            vals = getattr(r, key)
            new = tuple(dict.fromkeys(one(t, folder[r.id]) for t in vals))
            if new != vals:
                changes[key] = new
        out.append(dataclasses.replace(r, **changes) if changes else r)
    return out
