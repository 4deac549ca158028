"""A task goal split into its concerns. Pure.

Why: "add a carrier with rate caching and VAT rounding" asked as one query is an average of three topics,
and each topic's record can fall just under the floor although asked alone each is found. Task recall asks
the whole goal and each concern, each under its own floor, and fuses the answers (recall/fusion.py).

Goals are written freely ("the tax is a cent off so fix the rounding and also make sure invoice numbers
never skip", "todo: 1) keys hashed 2) cursor paging", "update the adapter (the sandbox throttles us) - does
DHL cap the weight?"). So the split is in two levels, both generic:
- sentences: `. ! ? ; :`, line breaks and bullets, inline numbered items (`2)`, `(2)`);
- clauses: commas, brackets around a phrase (not `record(s)`), ` / ` and dashes between spaces, and
  connectives ("and", "or", "with", "plus", "also", "btw", "as well as", "while", "then", "after", "but",
  "so that", "without", ...).
A piece too small to be a concern (a clause with under two content words; a sentence, or an item announced
by "plus", "also" or "btw", with none) is put back into its neighbour with the words that separated them, so
an over-split costs nothing ("flip the flag without rebuilding it" stays whole, never "flip the flag
rebuilding it"). Each concern then loses the discourse words in front of it ("also", "while you are at it",
"make sure", "btw", "don't forget to"), which name no topic. The goal itself is asked anyway.

Chinese goals (issue 34: "把密碼換掉，另外確認備份保留幾天，順便看一下登入多久過期") have no spaces and their own
punctuation, so the same two levels read it too: sentences end at 。！？；： (and at ASCII ? ! ; glued to
Chinese) and at an inline list number after Chinese (`疊加 2. 配送`); clauses at ，and 、 (a connective after
them — 另外, 還有/还有, 順便/顺便, 同時/同时, 以及, 然後/然后, … — is part of the separator) and before 以及 and
並且/并且 without a comma. Chinese has no content words to count, so two CJK characters that are not grammar
count as one; a piece after 、 (an enumeration: 支付寶、微信支付) must hold three such to stand. The discourse
words in front of a Chinese concern (those connectives, 記得/记得, 別忘了, 請/请, 幫我, 確認一下, 看一下, …) go too.
Japanese and Korean connectives are not taught.
"""

from __future__ import annotations

import re

from ..records.lexical import CJK_RUN

MAX_CONCERNS = 5  # each concern is one more recall: this bounds the cost of a long goal
_ITEM = r"(?:[-*•]|\(?\d{1,2}[.)])"  # a bullet or a list number: "-", "2)", "(2)", "2."
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # Chinese characters (records/lexical.py counts all of CJK)
# Chinese connectives that join one concern to the next; after ，or 、 they belong to the separator
_ZH_JOIN = (
    "另外|此外|還有|还有|順便|顺便|順帶|顺带|同時|同时|以及|並且|并且|而且|然後|然后|接著|接着|再來|再来|最後|最后"
)
_SENTENCES = re.compile(
    rf"((?<=[.!?;:])\s+(?:{_ITEM}\s+)*|\s*\n+\s*(?:{_ITEM}\s+)*|^\s*(?:{_ITEM}\s+)+|\s+\(?\d{{1,2}}\)\s+"
    rf"|(?<=[。！？；：])\s*(?:{_ITEM}\s*)*|(?<=[?!;])(?=[{_HAN}])|(?<=[{_HAN}])\s*\d{{1,2}}[.)、](?!\d)\s*)"
)
_CLAUSES = re.compile(
    r"(\s*,\s*(?:(?:and|or|then|with|plus|including|also|but)\s+)?|\s+(?:and|or|with|plus|including|as well as|then|"
    r"also|btw|by the way|while|after|before|but|so that|without)\s+|\s+[/–—-]\s+"
    rf"|\s*[，、]\s*(?:{_ZH_JOIN})?|(?<=[{_HAN}])\s*(?=以及|並且|并且))",
    re.IGNORECASE,
)
# announce another item
_ADDS = re.compile(rf"\b(?:plus|also|as well as|btw|by the way)\b|{_ZH_JOIN}", re.IGNORECASE)
_BRACKETED = re.compile(r"\s*[(\[]([^()\[\]]*\s[^()\[\]]*)[)\]]")  # a phrase in brackets: split like dashes
_LEAD = re.compile(
    r"^(?:(?:and|or|also|plus|then|so|oh|btw|by the way|besides|additionally|in addition|on top of that|"
    r"while (?:you(?:'| a)re|i'm|we're|you are|i am|we are) at it|(?:you(?:'| a)re|you are) at it|at the same time|"
    r"please|make sure(?: that)?|ensure(?: that)?|(?:do not|don'?t) forget(?: to| that| about)?|remember to|"
    r"check that)\b[\s,]*)+",
    re.IGNORECASE,
)
# In front of a concern; a word that also starts a noun (請假, 麻煩的是, 最後一筆) only where a verb follows
_ZH_LEAD = re.compile(
    r"^(?:(?:另外|此外|還有|还有|順便|顺便|順帶|顺带|同時|同时|以及|並且|并且|而且|然後|然后|記得|记得|別忘了|别忘了"
    r"|不要忘了|幫我|帮我|(?:請|请|麻煩|麻烦|並|并|也|再|最後|最后|接著|接着)(?=確|确|檢|检|看|查|幫|帮|把|將|将)"
    r"|確認一下|确认一下|確認|确认|檢查一下|检查一下|看一下|看看|查一下)[\s，,、]*)+"
)
_ZH_GRAMMAR = frozenset("的了嗎吗呢吧啊呀是個个些們们麼么這这那哪怎要會会能")  # characters that name no topic
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_'./-]*")
_STOP = frozenset(
    """a an the this that these those it its to of in on for by at from as is are be been being do does did
make sure must should can could would will we i you they our my your their also then so some any all each
every both one new way how what which when where why who please need needs want let us just only more
and or but with without not don't dont forget remember ensure btw plus oh fix too either thanks thank hi hello hey
ok okay""".split()
)
_STRIP = " \t.,;:!?-–—/，。；：！？、\u3000"


def content_words(text: str) -> list[str]:
    """The words of `text` that can name a topic (no stopword, letter or list number)."""
    return [
        w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 1 and not (w.isdigit() and len(w) < 3)
    ]


def _weight(text: str) -> int:
    """How many topic words `text` holds: its content words, and one per two CJK characters not grammar."""
    han = sum(1 for run in CJK_RUN.findall(text) for ch in run if ch not in _ZH_GRAMMAR)
    return len(content_words(text)) + han // 2


def _pieces(goal: str) -> list[tuple[str, str, bool]]:
    """(separator before, text, stands alone) of every piece of `goal`, in order, separators kept. A piece
    stands alone with one content word when it starts a sentence or follows a word that announces another
    item ("plus the migration", "also the docs"); after a mere comma or "and" it needs two."""
    out: list[tuple[str, str, bool]] = []
    sentences = _SENTENCES.split(_BRACKETED.sub(r" — \1 — ", goal))
    for i in range(0, len(sentences), 2):
        sep = sentences[i - 1] if i else ""
        clauses = _CLAUSES.split(sentences[i] or "")
        for j in range(0, len(clauses), 2):
            before = clauses[j - 1] if j else sep
            out.append((before, clauses[j] or "", j == 0 or bool(_ADDS.search(before))))
    return out


def split_concerns(goal: str, limit: int = MAX_CONCERNS) -> list[str]:
    """The concerns of `goal`, in order; a goal of one concern gives `[]` (the goal is asked anyway)."""
    parts: list[str] = []
    carry = ""  # pieces too small to stand, waiting for a first concern
    for sep, text, alone in _pieces(goal):
        small = _weight(text) < (1 if alone else 3 if "、" in sep else 2)
        if parts and small:
            parts[-1] += sep + text  # put back where it was, with the words that separated it
        elif small or not text.strip(_STRIP):
            carry += sep + text
        else:
            parts.append(carry + (sep if carry else "") + text)
            carry = ""
    concerns = [c for p in parts if (c := _ZH_LEAD.sub("", _LEAD.sub("", p.strip(_STRIP)).strip(_STRIP)).strip(_STRIP))]
    concerns = list(dict.fromkeys(" ".join(c.split()) for c in concerns))
    return concerns[:limit] if len(concerns) > 1 else []
