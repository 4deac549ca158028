"""A candidate's warnings as a reviewer reads them: grouped by what they are about, strongest first, capped.

Why at display time and not when recording: the stored warnings stay the full answer the agent got; the
queue only has room for the few that matter. A candidate can be similar (cos 0.70–0.85) to many records on
its topic, and five such lines about unrelated records buried the one near-duplicate that mattered.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

SHOWN_PER_GROUP = 3
_COS = re.compile(r"\bcos (\d(?:\.\d+)?)")
# (group title, how a warning of that group starts); anything else is about the candidate itself
_GROUPS = (
    ("near-duplicates", "near-duplicate of "),
    ("similar records", "similar to "),
)


@dataclass
class WarningGroup:
    title: str
    shown: list[str] = field(default_factory=list)
    more: int = 0
    strongest: float = 0.0  # the highest cosine a warning of the group names (1.0: not a similarity)


def cos_of(warning: str) -> float:
    m = _COS.search(warning)
    return float(m.group(1)) if m else 0.0


def grouped(warnings: list[str], cap: int = SHOWN_PER_GROUP) -> list[WarningGroup]:
    """The warnings about the candidate itself first, then each similarity group, strongest group first;
    within a group the highest cosine first, at most `cap` shown and the rest counted."""
    own = WarningGroup("checks", strongest=1.0)
    groups = {title: WarningGroup(title) for title, _ in _GROUPS}
    for w in warnings:
        title = next((t for t, start in _GROUPS if w.startswith(start)), None)
        if title is None:
            own.shown.append(w)
        else:
            groups[title].shown.append(w)
    out = [own] if own.shown else []
    for g in groups.values():
        if not g.shown:
            continue
        ordered = sorted(g.shown, key=lambda w: -cos_of(w))  # stable: equal scores keep the stored order
        g.strongest = cos_of(ordered[0])
        g.shown, g.more = ordered[:cap], max(0, len(ordered) - cap)
        out.append(g)
    out[1 if own.shown else 0 :] = sorted(out[1 if own.shown else 0 :], key=lambda g: -g.strongest)
    return out
