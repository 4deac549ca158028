"""Secret detection for candidate text. Pure.

Why reject rather than redact: a redacted observation is still written somewhere first (store, log,
index), and the spot that leaked it is the agent's input. So a secret rejects the whole candidate,
and callers are told which field and which *kind* of secret — never the matched text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# (what it is, pattern). Specific formats first; the generic "key = value" rules last.
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple((name, re.compile(rx)) for name, rx in (
    ("a private key block", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"),
    ("an AWS access key id", r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b"),
    ("an AWS secret access key", r"(?i)aws_?secret_?access_?key\s*[:=]\s*['\"]?[A-Za-z0-9/+=]{40}"),
    ("a GitHub token", r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}\b"),
    ("a GitHub fine-grained token", r"\bgithub_pat_[A-Za-z0-9_]{22,}\b"),
    ("a GitLab token", r"\bglpat-[A-Za-z0-9_-]{20,}\b"),
    ("a Slack token", r"\bxox[abposre]-[A-Za-z0-9-]{10,}\b"),
    ("a Slack webhook URL", r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}"),
    ("a Stripe key", r"\b(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}\b"),
    ("an OpenAI/Anthropic-style API key", r"\bsk-(?:[A-Za-z]+-)*[A-Za-z0-9_-]{20,}"),
    ("a Google API key", r"\bAIza[0-9A-Za-z_-]{35}\b"),
    ("a Hugging Face token", r"\bhf_[A-Za-z0-9]{30,}\b"),
    ("an npm token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("a JSON Web Token", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    ("a bearer token", r"(?i)\bbearer\s+[A-Za-z0-9_\-.=~+/]{20,}"),
))
# scheme://user:password@host — the password part is what matters; masked examples are allowed.
_URL_PASSWORD = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s/:@]+:([^\s/@]+)@[^\s/@]+", re.IGNORECASE)
_MASKED = re.compile(r"^(?:\*+|x+|X+|\.\.\.|…|<[^>]*>|\$\{[^}]*\}|\$[A-Z_]+|%[^%]+%|\{\{[^}]*\}\})$")
# name = value for the usual secret names. Tokens need length and mixed characters; passwords less.
_ASSIGN = re.compile(
    r"(?i)\b(api[_-]?key|apikey|secret[_-]?key|client[_-]?secret|access[_-]?token|auth[_-]?token|private[_-]?token|"
    r"token|secret|password|passwd|pwd)\b[\"']?\s*[:=]\s*(['\"]?)([^\s'\",;]{6,})\2")


@dataclass(frozen=True)
class SecretHit:
    field: str  # where: title, body, tags, source, evidence, provenance.agent, ...
    what: str  # the kind of secret, e.g. "a GitHub token"


def _assignment_is_secret(name: str, quoted: str, value: str) -> bool:
    if _MASKED.match(value) or "(" in value or value.startswith(("$", "%", "<", "{")):
        return False
    if name.lower() in ("password", "passwd", "pwd"):
        # quoted literal, or an unquoted one that is not a dotted/code reference
        return bool(quoted) or ("." not in value and bool(re.search(r"[\d\W_]", value)))
    has_alpha, has_digit = re.search(r"[A-Za-z]", value), re.search(r"\d", value)
    return len(value) >= 16 and bool(has_alpha and has_digit)


def scan_text(text: str) -> list[str]:
    """Kinds of secret found in `text` (deduplicated, in pattern order)."""
    found: list[str] = []
    for name, rx in _PATTERNS:
        if rx.search(text) and name not in found:
            found.append(name)
    for m in _URL_PASSWORD.finditer(text):
        if not _MASKED.match(m.group(1)):
            found.append("a password in a URL")
            break
    for m in _ASSIGN.finditer(text):
        if _assignment_is_secret(m.group(1), m.group(2), m.group(3)):
            found.append(f"a value assigned to {m.group(1).lower()}")
            break
    return found


def scan_fields(fields: dict[str, str]) -> list[SecretHit]:
    """Scan named text fields; the result names fields and secret kinds only."""
    hits: list[SecretHit] = []
    for name, text in fields.items():
        if text:
            hits.extend(SecretHit(name, what) for what in scan_text(text))
    return hits
