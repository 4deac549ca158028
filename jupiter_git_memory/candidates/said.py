"""What an agent said, field by field, for a reviewer: every field `CandidateInput` declares (candidates/fields.py),
in its order, that holds a value. Pure.

Why from the declaration: a field an agent may send but no page shows is a field the reviewer approves
unseen (issue 37: trigger, change, verification, scope and files reached the proposed file but neither the
candidate page nor `jgm candidates show`). Reading the declaration, a new field is shown the day it is
declared. Empty fields are left out, so the reviewer reads what was said, not a form of blanks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from .fields import CandidateInput

FIELDS = tuple(dataclasses.fields(CandidateInput))


@dataclass(frozen=True)
class Said:
    """One field with a value: its name, a label, the declaration's description, and the value (text, or a
    list of texts for a `many` field)."""

    name: str
    description: str
    value: str | list[str]

    @property
    def label(self) -> str:
        return self.name.replace("_", " ")

    @property
    def many(self) -> bool:
        return isinstance(self.value, list)

    @property
    def multiline(self) -> bool:
        return isinstance(self.value, str) and "\n" in self.value


def said(values: Mapping[str, Any], skip: Collection[str] = ()) -> list[Said]:
    """The declared fields of `values` (an observation, or `candidate_values`) that are not empty, in
    declaration order; `skip` names the ones the caller shows elsewhere (a page's headline)."""
    out = []
    for f in FIELDS:
        if f.name in skip:
            continue
        value = _value(values.get(f.name), f.metadata.get("many", False))
        if value:
            out.append(Said(f.name, f.metadata.get("description") or "", value))
    return out


def _value(raw: Any, many: bool) -> str | list[str]:
    if raw is None:
        return [] if many else ""
    if many or isinstance(raw, list | tuple):
        items = raw if isinstance(raw, list | tuple) else [raw]
        return [str(x).strip() for x in items if x is not None and str(x).strip()]
    return str(raw).strip()


def candidate_values(candidate: Mapping[str, Any]) -> dict[str, Any]:
    """A candidate as shown (candidates/model.view, or its answer's dump) as CandidateInput's fields: its text
    and structure as they are now, the recorder's provenance, and the backing the recorder sent (its first
    observation: `evidence` of the view is the list of observations, each said on its own)."""
    observations = candidate.get("evidence") or []
    first = observations[0] if observations and isinstance(observations[0], Mapping) else {}
    values = {**(candidate.get("provenance") or {}), **candidate}
    values["evidence"] = first.get("evidence") or []
    return values
