"""Secret detection for candidate text. Pure.

Why reject rather than redact: a redacted observation is still written somewhere first (store, log,
index), and the spot that leaked it is the agent's input. So a secret rejects the whole candidate,
and callers are told which field and which *kind* of secret — never the matched text.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

# (what it is, pattern). Specific formats first; the generic "key = value" rules last.
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(rx))
    for name, rx in (
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
    )
)
# scheme://user:password@host — the password part is what matters; masked examples are allowed.
_URL_PASSWORD = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s/:@]+:([^\s/@]+)@[^\s/@]+", re.IGNORECASE)
_MASKED = re.compile(r"^(?:\*+|x+|X+|\.\.\.|…|<[^>]*>|\$\{[^}]*\}|\$[A-Z_]+|%[^%]+%|\{\{[^}]*\}\})$")
# `name = value` in every common form: env (`DB_PASSWORD=…`, `export GITHUB_TOKEN=…`), code (`api_key = '…'`),
# YAML (`password: …`) and JSON (`"SecretAccessKey": "…"`). After detect-secrets' keyword detector: the name
# must contain a secret-ish word (split on `_`, `-`, `.` and camelCase, so `MYSQL_ROOT_PASSWORD` counts and
# `tokenizer` does not); the value must not be a reference or placeholder, and tokens must look random
# (its high-entropy idea), because prose like `token: rotated daily` is not a secret.
_KEY_SEP = re.compile(r"(?P<kq>[\"'`]?)(?P<key>[A-Za-z_][A-Za-z0-9_.-]{1,80})(?P=kq)[ \t]*(?P<sep>:=|=>|[:=])[ \t]*")
_VALUE = re.compile(r"(?P<q>[\"'`]?)(?P<val>[^\s\"'`,;]{6,})(?P=q)")  # matched where a `name =` ends
_PASSWORD_WORDS = frozenset({"password", "passwd", "pwd", "pass", "passphrase", "passcode"})
_SECRET_WORDS = frozenset({"secret", "token", "apikey", "credential", "credentials", "auth"}) | _PASSWORD_WORDS
_KEY_QUALIFIERS = frozenset(
    {
        "api",
        "access",
        "secret",
        "private",
        "signing",
        "encryption",
        "master",
        "client",
        "session",
        "account",
        "service",
        "auth",
        "app",
        "license",
        "webhook",
    }
)
_WORD_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_REFERENCE = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")  # settings.db_password, os.environ
_PLACEHOLDER_WORDS = frozenset(
    {
        "none",
        "null",
        "true",
        "false",
        "required",
        "optional",
        "changeme",
        "redacted",
        "example",
        "placeholder",
        "password",
        "secret",
        "string",
        "undefined",
    }
)


def _key_kind(key: str) -> str | None:
    """ "password", "token" or None for a key name, by its words."""
    words = [w.lower() for w in _WORD_RE.findall(key)]
    if any(w in _PASSWORD_WORDS for w in words):
        return "password"
    if any(w in _SECRET_WORDS for w in words):
        return "token"
    for a, b in zip(words, words[1:]):
        if b in ("key", "keys") and a in _KEY_QUALIFIERS:
            return "token"
    return None


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values()) if n else 0.0


def _assignment_is_secret(kind: str | None, key: str, sep: str, quoted: str, value: str) -> bool:
    if _MASKED.match(value) or any(c in value for c in "()[]") or value.startswith(("$", "%", "<", "{", "http")):
        return False
    if (
        (_REFERENCE.match(value) and not quoted)
        or value.lower().strip("*x.") in _PLACEHOLDER_WORDS
        or len(set(value)) <= 2
    ):
        return False
    if kind == "password":
        # an env assignment (`X=v`, no spaces), a quoted literal or a config-style key (`DB_PASSWORD:`); a plain
        # word (`password: rotated`, `password = letmein`) needs a digit or symbol in the value
        configish = key != key.lower() or any(c in key for c in "_-.")
        return sep == "=" or bool(quoted) or configish or bool(re.search(r"[\d\W_]", value))
    classes = sum(bool(re.search(rx, value)) for rx in (r"[a-z]", r"[A-Z]", r"\d", r"[^A-Za-z0-9]"))
    return len(value) >= 16 and entropy(value) >= 3.0 and classes >= 2 and bool(re.search(r"\d|[A-Z].*[a-z]", value))


@dataclass(frozen=True)
class SecretHit:
    field: str  # where: title, body, tags, source, evidence, provenance.agent, ...
    what: str  # the kind of secret, e.g. "a GitHub token"


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
    for k in _KEY_SEP.finditer(text):  # keys first, so `config: password = "x"` still sees `password`
        kind = _key_kind(k.group("key"))
        v = _VALUE.match(text, k.end()) if kind else None
        sep = "=" if k.group("sep") == "=" and not any(c in k.group(0) for c in " \t") else k.group("sep") + " "
        if v and _assignment_is_secret(kind, k.group("key"), sep, v.group("q") or k.group("kq"), v.group("val")):
            found.append(f"a value assigned to {k.group('key').lower()}")
            break
    return found


def scan_fields(fields: dict[str, str]) -> list[SecretHit]:
    """Scan named text fields; the result names fields and secret kinds only."""
    hits: list[SecretHit] = []
    for name, text in fields.items():
        if text:
            hits.extend(SecretHit(name, what) for what in scan_text(text))
    return hits
