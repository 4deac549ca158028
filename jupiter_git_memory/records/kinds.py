"""The kind registry: every kind of record, its written status vocabulary, which statuses are in force,
its default recall weights and how a reviewer's choice maps onto it, said once (pure).

Everything else (the record format, lifecycle resolution, ranking, candidate promotion, the ADR status
reader, config validation) derives its tables from `REGISTRY`, so adding a kind or a status is one edit
here. It lives in `records/`, the lowest layer that knows what a record is, so every user can import it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

# Effective statuses that lifecycle resolution assigns (never written by hand except `superseded`).
SUPERSEDED = "superseded"
INVALIDATED = "invalidated"
FALSE = "false"  # a fact or finding written `status: false` ...
CANDIDATE = "candidate"  # the kind and status of an agent's observation not yet promoted
# The reviewer's two choices when promoting a candidate (`jgm candidates propose --status`).
CHOSEN_STATUSES = ("proposed", "accepted")


@dataclass(frozen=True)
class Kind:
    """One kind. `weights` are recall's default multipliers per *effective* status; `chosen` maps the
    reviewer's choice (CHOSEN_STATUSES) to this kind's own word (facts are verified, not accepted); an
    empty `chosen` means an agent cannot request the kind."""

    name: str
    statuses: tuple[str, ...]
    in_force: frozenset[str] = frozenset()
    weights: Mapping[str, float] = field(default_factory=dict)
    chosen: Mapping[str, str] = field(default_factory=dict)
    invalidated_by: str | None = None  # a written status whose effective status is `invalidated`
    folder: str = ""  # where a promoted record of this kind is written, under the first root
    prefix: str = ""  # its id prefix (`dec-...`)


_DECISION_STATUSES = ("proposed", "accepted", "rejected", "deprecated", "superseded")
_DECISION_WEIGHTS = {"accepted": 2.0, "proposed": 1.0, "deprecated": 0.6, "rejected": 0.5, SUPERSEDED: 0.5}
_FACT_STATUSES = ("unverified", "verified", FALSE)
_FACT_WEIGHTS = {"verified": 1.7, "unverified": 1.0, INVALIDATED: 0.3, SUPERSEDED: 0.5}


def _decision(name: str, folder: str, prefix: str) -> Kind:
    chosen = {c: c for c in CHOSEN_STATUSES}
    in_force = frozenset({"accepted"})
    return Kind(name, _DECISION_STATUSES, in_force, _DECISION_WEIGHTS, chosen, folder=folder, prefix=prefix)


def _fact(name: str, folder: str, prefix: str) -> Kind:
    chosen = {"proposed": "unverified", "accepted": "verified"}
    in_force = frozenset({"verified"})
    return Kind(name, _FACT_STATUSES, in_force, _FACT_WEIGHTS, chosen, FALSE, folder=folder, prefix=prefix)


_KINDS = (
    _decision("decision", "decisions", "dec"),
    _decision("adr", "adr", "adr"),
    _fact("fact", "facts", "fact"),
    _fact("finding", "findings", "find"),
    Kind(
        "history",
        ("historical",),
        weights={"historical": 0.9, SUPERSEDED: 0.5},
        chosen=dict.fromkeys(CHOSEN_STATUSES, "historical"),
        folder="history",
        prefix="hist",
    ),
    Kind(CANDIDATE, (CANDIDATE,)),
)
REGISTRY: Mapping[str, Kind] = MappingProxyType({k.name: k for k in _KINDS})

# Derived views, in the shapes their users read.
STATUSES: dict[str, tuple[str, ...]] = {k.name: k.statuses for k in _KINDS}
KINDS: tuple[str, ...] = tuple(STATUSES)
# Statuses that are "in force": a record in one of these can retire what it supersedes.
IN_FORCE = frozenset(s for k in _KINDS for s in k.in_force)
# Effective statuses that exist only after lifecycle resolution.
EFFECTIVE_ONLY = (INVALIDATED,)
ALL_EFFECTIVE = tuple(sorted({s for v in STATUSES.values() for s in v} | set(EFFECTIVE_ONLY)))
ADR_STATUSES = REGISTRY["adr"].statuses
# A filter naming a written status means its effective one (`--status false` finds invalidated facts).
STATUS_ALIASES = {FALSE: INVALIDATED}
RETIRED = frozenset({SUPERSEDED})  # effective statuses that mean "read another record"
REQUESTABLE_KINDS = tuple(k.name for k in _KINDS if k.chosen)
DEFAULT_WEIGHTS: dict[str, dict[str, float]] = {k.name: dict(k.weights) for k in _KINDS if k.weights}
CANDIDATE_WEIGHT = 0.8  # any requested kind while its status is `candidate`
# What recall returns unless asked otherwise: in force, plus facts not yet verified.
DEFAULT_STATUSES = ("accepted", "verified", "unverified")


def effective_status(kind: str, written: str, retired: bool) -> str:
    """A record's effective status from its written one: invalidated beats superseded beats as written."""
    k = REGISTRY.get(kind)
    if k is not None and k.invalidated_by is not None and written == k.invalidated_by:
        return INVALIDATED
    return SUPERSEDED if retired else written


def chosen_status(kind: str, chosen: str) -> str:
    """The reviewer's choice (one of CHOSEN_STATUSES) in `kind`'s own vocabulary."""
    k = REGISTRY.get(kind)
    return k.chosen.get(chosen, chosen) if k is not None else chosen
