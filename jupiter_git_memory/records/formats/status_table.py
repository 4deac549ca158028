"""What a written status means (pure data, and the docs table made from it). `STATUS_TABLE` is the one place
that says what a status word means; the table in docs/adr-formats.md ("Existing ADRs") is generated from it
(`status_table_markdown`, checked by a test) and `[status_map]` in jgm.toml extends it. The phrases that
link records (English verbs, Chinese phrases rewritten to them, lifecycle keys beside the status) and the
words of the reading rules live here too; how a status line is read is records/formats/status.py.
"""

from __future__ import annotations

import re

from ..kinds import ADR_STATUSES, IN_FORCE

UNMAPPED_STATUS = "proposed"  # what a status in no table is read as: never in force
# Our three lifecycle groups: what recall does with each status by default.
LIFECYCLE: dict[str, str] = {
    s: "in force" if s in IN_FORCE else "proposed" if s == UNMAPPED_STATUS else "retired" for s in ADR_STATUSES
}
# written phrase (normalised: lower case, single spaces) -> our status. Grouped as docs/adr-formats.md shows it.
STATUS_TABLE: dict[str, str] = {
    # in force
    "accepted": "accepted",
    "approved": "accepted",
    "agreed": "accepted",
    "adopted": "accepted",
    "decided": "accepted",
    "active": "accepted",
    "final": "accepted",
    "living": "accepted",
    "implemented": "accepted",
    "partially implemented": "accepted",
    "partially accepted": "accepted",
    "implementable": "accepted",
    "ready for release": "accepted",
    "released": "accepted",
    "recommended": "accepted",
    "previewing": "accepted",
    "in effect": "accepted",
    "shipped": "accepted",
    "stable": "accepted",
    "completed": "accepted",
    "complete": "accepted",
    "merged": "accepted",
    "landed": "accepted",
    "enacted": "accepted",
    "已接受": "accepted",
    "接受": "accepted",
    "已採納": "accepted",
    "已采纳": "accepted",
    "已採用": "accepted",
    "已采用": "accepted",
    "已批准": "accepted",
    "已通過": "accepted",
    "已通过": "accepted",
    "已實施": "accepted",
    "已实施": "accepted",
    "已實作": "accepted",
    "已實現": "accepted",
    "已实现": "accepted",
    "已生效": "accepted",
    "通過": "accepted",
    "通过": "accepted",
    "已完成": "accepted",
    "完成": "accepted",
    # proposed
    "proposed": "proposed",
    "draft": "proposed",
    "pending": "proposed",
    "provisional": "proposed",
    "exploring": "proposed",
    "in progress": "proposed",
    "work in progress": "proposed",
    "wip": "proposed",
    "on hold": "proposed",
    "incomplete": "proposed",
    "review": "proposed",
    "in review": "proposed",
    "under review": "proposed",
    "active review": "proposed",
    "awaiting review": "proposed",
    "scheduled for review": "proposed",
    "last call": "proposed",
    "under discussion": "proposed",
    "deferred": "proposed",
    "postponed": "proposed",
    "stagnant": "proposed",
    "dormant": "proposed",
    "experimental": "proposed",
    "public discussion": "proposed",
    "in discussion": "proposed",
    "discussion": "proposed",
    "under consideration": "proposed",
    "final comment period": "proposed",
    "fcp": "proposed",
    "prototype": "proposed",
    "prototyping": "proposed",
    "prototyped": "proposed",
    "design review": "proposed",
    "planned": "proposed",
    "blocked": "proposed",
    "needs revision": "proposed",
    "提議": "proposed",
    "提议": "proposed",
    "提議中": "proposed",
    "提议中": "proposed",
    "提案": "proposed",
    "建議": "proposed",
    "建议": "proposed",
    "草稿": "proposed",
    "草案": "proposed",
    "討論中": "proposed",
    "讨论中": "proposed",
    "審查中": "proposed",
    "审查中": "proposed",
    "評審中": "proposed",
    "评审中": "proposed",
    "待定": "proposed",
    "進行中": "proposed",
    "进行中": "proposed",
    "已提議": "proposed",
    "已提议": "proposed",
    "審核中": "proposed",
    "审核中": "proposed",
    "待審核": "proposed",
    "待审核": "proposed",
    "已擱置": "proposed",
    "已搁置": "proposed",
    "已暫停": "proposed",
    "已暂停": "proposed",
    # retired
    "rejected": "rejected",
    "declined": "rejected",
    "not accepted": "rejected",
    "withdrawn": "rejected",
    "abandoned": "rejected",
    "returned for revision": "rejected",
    "closed": "rejected",
    "dropped": "rejected",
    "refused": "rejected",
    "denied": "rejected",
    "retracted": "rejected",
    "cancelled": "rejected",
    "canceled": "rejected",
    "已否決": "rejected",
    "已否决": "rejected",
    "已拒絕": "rejected",
    "已拒绝": "rejected",
    "已駁回": "rejected",
    "已驳回": "rejected",
    "已撤回": "rejected",
    "不採納": "rejected",
    "不采纳": "rejected",
    "否決": "rejected",
    "否决": "rejected",
    "拒絕": "rejected",
    "拒绝": "rejected",
    "deprecated": "deprecated",
    "obsolete": "deprecated",
    "obsoleted": "deprecated",
    "discontinued": "deprecated",
    "reverted": "deprecated",
    "retired": "deprecated",
    "archived": "deprecated",
    "moved": "deprecated",
    "inactive": "deprecated",
    "sunset": "deprecated",
    "removed": "deprecated",
    "revoked": "deprecated",
    "rescinded": "deprecated",
    "overturned": "deprecated",
    "overruled": "deprecated",
    "repealed": "deprecated",
    "annulled": "deprecated",
    "invalidated": "deprecated",
    "no longer valid": "deprecated",
    "no longer in effect": "deprecated",
    "no longer in force": "deprecated",
    "no longer applies": "deprecated",
    "no longer applicable": "deprecated",
    "已廢棄": "deprecated",
    "已废弃": "deprecated",
    "已棄用": "deprecated",
    "已弃用": "deprecated",
    "已淘汰": "deprecated",
    "已過時": "deprecated",
    "已过时": "deprecated",
    "已作廢": "deprecated",
    "已作废": "deprecated",
    "廢棄": "deprecated",
    "废弃": "deprecated",
    "棄用": "deprecated",
    "弃用": "deprecated",
    "已撤銷": "deprecated",
    "已撤销": "deprecated",
    "已失效": "deprecated",
    "superseded": "superseded",
    "superceded": "superseded",
    "replaced": "superseded",
    "已取代": "superseded",
    "已被取代": "superseded",
    "被取代": "superseded",
    "已被替代": "superseded",
    "已替代": "superseded",
}
# Words that retire a record wherever they stand in its status value (rule 1). Narrower than the retired
# part of the table on purpose: "moved" or "closed" in a parenthesis do not say the decision was retired.
RETIRING_ANYWHERE = (
    "superseded",
    "superceded",
    "replaced by",
    "deprecated",
    "obsolete",
    "obsoleted",
    "withdrawn",
    "rejected",
    "declined",
    "reverted",
    "discontinued",
    "abandoned",
    "returned for revision",
    "revoked",
    "rescinded",
    "overturned",
    "overruled",
    "repealed",
    "annulled",
    "retracted",
    "已撤銷",
    "已撤销",
    "已失效",
    "已被取代",
    "已取代",
    "被取代",
    "已廢棄",
    "已废弃",
    "已棄用",
    "已弃用",
    "已淘汰",
    "已否決",
    "已否决",
    "已拒絕",
    "已拒绝",
    "已撤回",
)
# Retiring words that also describe what a decision did to something else ("Accepted (removed the cache)", "the
# v1 tokens are no longer valid"): they retire the record only in a clause of their own, with nothing before
# them but `BARE_FILLERS` ("later", "since 2023", "was") and no object after them ("removed in v3" retires).
RETIRING_BARE = (
    "removed",
    "dropped",
    "cancelled",
    "canceled",
    "retired",
    "invalidated",
    "no longer valid",
    "no longer in effect",
    "no longer in force",
    "no longer applies",
    "no longer applicable",
)
BARE_FILLERS = frozenset(
    "later since now then subsequently eventually afterwards and but was were is has have had been being it this "
    "that decision adr record proposal rfc officially formally also fully entirely completely as of on in".split()
)
BARE_AFTER = frozenset("in on since by at from after for with due because as per when following and or".split())
# Hedges that make an in-force word proposed: "Accepted (draft)", "Accepted (tentative)", "Tentatively accepted",
# "Accepted draft"; so does a question mark after it ("Accepted?", "Accepted (?)"). "Accepted (revised 2021)"
# and "Accepted (pending implementation)" stay accepted: revising or building a decision does not doubt it.
HEDGES = frozenset(
    "draft tentative tentatively provisional provisionally preliminary preliminarily unconfirmed maybe probably "
    "perhaps wip tbc".split()
)
# Arrows in a status line: the status moved to the phrase after the last one ("Proposed → Accepted → Revoked").
ARROW_RE = re.compile(r"\s*(?:→|⟶|⇒|➔|➜|➡\ufe0f?|-+>|=+>)\s*")
# Struck-through text says nothing: "~~Accepted~~ Revoked" is revoked, a line that is all struck is skipped.
STRUCK_RE = re.compile(
    r"~~.*?~~|(?<![~\w])~(?=\S)[^~\n]*?(?<=\S)~(?![~\w])|<(del|s|strike)>.*?</\1>", re.IGNORECASE | re.DOTALL
)
# Link phrases, longest first. relation: the Record field the targets go to; status: what the phrase says of
# this record when it opens the value (None: it says nothing, e.g. "Supersedes ADR-2" is about another one).
LINK_VERBS: tuple[tuple[str, str, str | None], ...] = (
    ("partly superseded by", "amended_by", None),
    ("partially superseded by", "amended_by", None),
    ("partly superseded", "amended_by", None),
    ("partially superseded", "amended_by", None),
    ("partly supersedes", "amends", None),
    ("partially supersedes", "amends", None),
    ("deprecated in favour of", "superseded_by", "deprecated"),
    ("deprecated in favor of", "superseded_by", "deprecated"),
    ("deprecated by", "superseded_by", "deprecated"),
    ("superseded by", "superseded_by", "superseded"),
    ("superceded by", "superseded_by", "superseded"),
    ("replaced by", "superseded_by", "superseded"),
    ("obsoleted by", "superseded_by", "deprecated"),
    ("in favour of", "superseded_by", None),
    ("in favor of", "superseded_by", None),
    ("supersedes", "supersedes", None),
    ("supercedes", "supersedes", None),
    ("replaces", "supersedes", None),
    ("obsoletes", "supersedes", None),
    ("amended by", "amended_by", None),
    ("amends", "amends", None),
    ("superseded", "superseded_by", "superseded"),
    ("superceded", "superseded_by", "superseded"),
)
# Chinese link phrases, rewritten to the English phrase they say before the rules above read a line: the
# passive "已被 X 取代" / "由 X 取代" / "已被取代，見 X" is "superseded by X", the active "取代 X" / "已取代 X"
# (this record replaced X) "supersedes X", "改用 X" (use X instead) "in favour of X". A bare "已取代" is the
# status word. (written form, what it is read as) for the docs table:
ZH_LINK_PHRASES = (
    ("已被 X 取代, 被 X 取代, 由 X 取代, 被 X 所取代, 已被取代 X (取代, 替代, 替換 or 代替)", "superseded by X"),
    ("取代 X, 已取代 X (a target right after the verb)", "supersedes X"),
    ("改用 X, 改為 X", "in favour of X"),
)
_ZH_VERBS = "取代|替代|替換|替换|代替"
_ZH_TARGET = r"(?=[\[A-Za-z0-9#<`*])"  # a link, an id or a number follows
_ZH_PASSIVE_RE = re.compile(
    rf"(?:已經|已经|已)?\s*(?:被|(?<![理於于自經经緣缘])由)\s*(?!{_ZH_VERBS})(\S.{{0,80}}?)\s*所?\s*(?:{_ZH_VERBS})了?"
)
_ZH_PASSIVE_BARE_RE = re.compile(
    rf"(?:已經|已经|已)?被(?:{_ZH_VERBS})了?\s*[,:;]?\s*(?:參見|参见|請見|请见|見|见)?\s*{_ZH_TARGET}"
)
_ZH_ACTIVE_RE = re.compile(rf"(?<![被由])(?:已經|已经|已)?(?:{_ZH_VERBS})了?\s*{_ZH_TARGET}")
_ZH_INSTEAD_RE = re.compile(rf"(?:請|请)?(?:改用|改為|改为)\s*{_ZH_TARGET}")
# Full-width punctuation read as its ASCII twin: "已接受（2023）。" is "已接受(2023)."
WIDE = str.maketrans("（）：，；。！？【】、", "():,;.!?(),")


def zh_links(text: str) -> str:
    """Chinese link phrases as the English ones the link rules read (ids and links kept as written)."""
    t = _ZH_PASSIVE_RE.sub(lambda m: f" superseded by {m.group(1)} ", text.translate(WIDE))
    t = _ZH_PASSIVE_BARE_RE.sub(" superseded by ", t)
    t = _ZH_ACTIVE_RE.sub(" supersedes ", t)
    return _ZH_INSTEAD_RE.sub(" in favour of ", t)


CJK_RE = re.compile("[\u3400-\u9fff\uf900-\ufaff]")
# Words that make a retiring clause about a part of the record: "Active (some parts deprecated in favour of Z)"
# amends the record, it does not retire it ("Accepted, later superseded by X" still does).
PART_WORDS = frozenset({"part", "parts", "portion", "portions", "section", "sections", "some", "partly"})
PART_WORDS |= {"partially", "aspect", "aspects", "piece", "pieces", "certain", "several", "部分", "某些"}
# Keys written beside the status (front matter, header bullets or lines) that say what replaced this record, or
# what it replaces: key (lower case, `-`/`_` read as spaces) -> (relation, what it says of this record). A
# retiring key that names a target retires the record whatever its status word says.
LIFECYCLE_KEYS: dict[str, tuple[str, str | None]] = {
    "superseded by": ("superseded_by", "superseded"),
    "superceded by": ("superseded_by", "superseded"),
    "replaced by": ("superseded_by", "superseded"),
    "deprecated by": ("superseded_by", "deprecated"),
    "obsoleted by": ("superseded_by", "deprecated"),
    "supersedes": ("supersedes", None),
    "replaces": ("supersedes", None),
    "obsoletes": ("supersedes", None),
    "amended by": ("amended_by", None),
    "amends": ("amends", None),
}


def status_table_markdown() -> str:
    """The status table of docs/adr-formats.md, generated from `STATUS_TABLE` and the link phrases (tests/test_wild_status.py
    checks the page holds it verbatim)."""
    rows = [
        "| written (case, emphasis, emoji, links, parentheses, dates and trailing sentences ignored) | status "
        "| lifecycle |",
        "| --- | --- | --- |",
    ]
    for chinese in (False, True):  # the Chinese words in rows of their own
        for status in ("accepted", "proposed", "rejected", "deprecated", "superseded"):
            words = [w for w, s in STATUS_TABLE.items() if s == status and bool(CJK_RE.match(w)) == chinese]
            shown = ", ".join(w[0].upper() + w[1:] for w in words)
            rows.append(f"| {shown} | {status} | {LIFECYCLE[status]} |")
    anywhere = ", ".join(w for w in RETIRING_ANYWHERE if not CJK_RE.match(w))
    bare = ", ".join(RETIRING_BARE)
    rows += [
        f"| X then a retiring word anywhere: {anywhere} (`Accepted, later revoked`, `Approved; overturned`) "
        "| that word's status above (a clause naming a part amends instead) | retired |",
        f"| X then, in a clause of its own, {bare} (`Implemented, later removed`, `Accepted; no longer valid`; "
        "not `Accepted (removed the cache)`) | that word's status above | retired |",
        "| X → Y, X -> Y, X => Y (an arrow outside parentheses; the last part that says a status) | Y | as Y |",
        "| `~~X~~ Y`, `~X~ Y`, `<del>X</del> Y` (struck through) | Y (a line all struck says nothing) | as Y |",
        f"| X?, X (?), X (h), h X, X h, with a hedge h: {', '.join(sorted(HEDGES))}, or (not final) "
        "| proposed when X is in force | proposed |",
    ]
    groups: dict[tuple[str, str | None], list[str]] = {}
    for verb, rel, says in LINK_VERBS:
        if " " in verb or rel != "superseded_by":
            groups.setdefault((rel, says), []).append(verb[0].upper() + verb[1:] + " X")
    for (rel, says), verbs in groups.items():
        what = f"{says}, " if says else ("the other status word (accepted if none), " if rel != "supersedes" else "")
        effect = "retired" if says else ("never retires" if rel.startswith("amend") else "retires X once in force")
        if rel == "superseded_by" and not says:
            what, effect = "superseded (unless the word before retires it already), ", "retired"
        rows.append(f"| {', '.join(verbs)} | {what}link `{rel}` to X | {effect} |")
    keyed: dict[tuple[str, str | None], list[str]] = {}
    for key, spec in LIFECYCLE_KEYS.items():
        keyed.setdefault(spec, []).append(f"`{key.replace(' ', '-')}: X`")
    for (rel, says), keys in keyed.items():
        what = f"{says} whatever the status word says, " if says else ""
        effect = "retired" if says else ("never retires" if rel.startswith("amend") else "retires X once in force")
        rows.append(
            f"| {', '.join(keys)} (a key beside the status: front matter, header bullet or line) | {what}link `{rel}` to X | {effect} |"
        )
    for written, english in ZH_LINK_PHRASES:
        rows.append(f"| {written} | read as {english[0].upper() + english[1:]} | as that phrase |")
    return "\n".join(rows)
