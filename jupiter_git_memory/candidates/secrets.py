"""Secret detection for candidate text. Pure.

Why reject rather than redact: a redacted observation is still written somewhere first (store, log,
index), and the spot that leaked it is the agent's input. So a secret rejects the whole candidate,
and callers are told which field and which *kind* of secret — never the matched text.

Text is normalised first (NFKC, format characters dropped), so a token split by a zero-width space or written
in full-width letters is still the token. Provider formats come from two places: our patterns
(candidates/secret_rules.py), and the format-specific plugins of detect-secrets (Yelp), used as a library
through their pure `analyze_string` (its scan machinery is file- and settings-based, and its entropy plugins
look only at quoted strings). Our own rules cover what it has no plugin for: names that merely end in a secret
word (`PGPASSWORD=`), Authorization headers, passwords on command lines, in URLs and in prose, random tokens in
code, a bare 40-character AWS secret and a PEM body without its header.

Linear time with small constants (a body at the size limit scans in well under a second, bench/secret_scan.py):
every repetition that could restart at each position is bounded, each provider rule runs only when its literal
gate occurs in the text, a command's password is tied to its command by position instead of a gap pattern, and
the per-line and per-span rules let C find their candidates.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache

from .randomness import _WORD_RE, MAX_PIECE, _changes, entropy, looks_random, looks_random_cached
from .secret_rules import DETECT_SECRETS, PATTERNS, command_passwords, file_passwords, gated

__all__ = [
    "MAX_PIECE",
    "SecretHit",
    "_changes",
    "entropy",
    "is_example",
    "looks_random",
    "normalise",
    "scan_fields",
    "scan_text",
]

# "the password is hunter2", "our API token was `…`": a secret word, a copula, then one value.
_PROSE = re.compile(
    r"(?i)\b(?P<key>password|passwd|passphrase|passcode|secret|token|api[ _-]?key|access[ _-]?key)\s+"
    r"(?:is|was|will be|would be|is set to|=)\s*:?[ \t]*(?P<q>[\"'`]?)(?P<val>[^\s\"'`]+)"
)
_CODE_SPAN = re.compile(r"```[^\n`]{0,100}\n(?P<block>.*?)(?:```|\Z)|`(?P<inline>[^`\n]+)`", re.DOTALL)
_TOKEN = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{20,}={0,2}(?![A-Za-z0-9+/=_-])")
# not a 40-character piece of a longer url-safe or dotted token (`pk.eyJ…-…_…`)
_AWS_SECRET = re.compile(r"(?<![A-Za-z0-9+/=_.-])[A-Za-z0-9+/]{40}(?![A-Za-z0-9+/=_-])")
_HASH_PREFIX = re.compile(r"(?i)(?:sha\d{1,3}|md5|blake\w*)[-:=]$")  # `sha512-…` integrity hashes are not secrets
_PEM_LINE = re.compile(r"^[ \t>]*([A-Za-z0-9+/]{60,76}={0,2})[ \t]*$", re.MULTILINE)
_PEM_MARK = re.compile(r"-----(BEGIN|END) ([A-Z0-9 ]{1,60})-----")  # a public key or certificate body is public
# `?key=…`, `&access_token=…`: a credential in a URL's query
_QUERY = re.compile(
    r"[?&](?i:access_?token|api_?key|apikey|key|token|auth|secret|client_secret|password|pwd)=([^&\s#\"'`<>]{16,256})"
)
# scheme://user:password@host — the password part is what matters; masked examples are allowed.
# Every repetition that can restart at each position is bounded (scheme, user, CLI gap, value), so a scan is
# linear in the text: unbounded ones made a 128 KiB body of dotted words or `token:` pairs take minutes.
_URL_PASSWORD = re.compile(
    r"(?<![a-z0-9+.-])[a-z][a-z0-9+.-]{0,31}://[^\s/:@]{0,256}:([^\s/]{1,256})@[^\s/@]", re.IGNORECASE
)
_WIN_VAR = re.compile(r"%\w+%")  # `%KEY%…` is a reference; `%6gCB8…` is a password starting with `%`
_MASKED = re.compile(r"^(?:\*+|x+|X+|\.\.\.|…|<[^>]*>|\$\{[^}]*\}|\$[A-Z_]+|%[^%]+%|\{\{[^}]*\}\})$")
# `name = value` in every common form: env (`DB_PASSWORD=…`, `export GITHUB_TOKEN=…`), code (`api_key = '…'`),
# YAML (`password: …`) and JSON (`"SecretAccessKey": "…"`). After detect-secrets' keyword detector: the name
# must contain a secret-ish word (split on `_`, `-`, `.` and camelCase, so `MYSQL_ROOT_PASSWORD` counts and
# `tokenizer` does not); the value must not be a reference or placeholder, and tokens must look random
# (its high-entropy idea), because prose like `token: rotated daily` is not a secret.
MAX_VALUE = 256  # longest value read after a `name =`; a longer one is judged by its first 256 characters
_KEY_SEP = re.compile(
    r"(?P<kq>[\"'`]?)(?<![A-Za-z0-9_.-])(?P<key>[A-Za-z_][A-Za-z0-9_.-]{1,80})(?P=kq)[ \t]*(?P<sep>:=|=>|[:=])[ \t]*"
)
# matched where a `name =` ends; a value cut at MAX_VALUE needs no closing quote
_VALUE = re.compile(rf"(?P<q>[\"'`]?)(?P<val>[^\s\"'`,;]{{6,{MAX_VALUE}}})(?:(?P=q)|(?=[^\s\"'`,;]))")
_PASSWORD_WORDS = frozenset({"password", "passwd", "pwd", "pass", "passphrase", "passcode"})
_SECRET_WORDS = frozenset({"secret", "token", "apikey", "credential", "credentials", "auth", "pat"}) | _PASSWORD_WORDS
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
# A name that ends in a secret word without a separator: `PGPASSWORD`, `accesstoken`, `clientSecret`.
_COMPOUND = re.compile(
    r"(?:pass(?:word|wd|phrase|code)|secret|token|apikey|accesskey|secretkey|privatekey|credentials?)$"
)
# settings.db_password, os.environ, config.dbPassword, Settings.DB_PASS: dotted names made of words (snake, camel,
# constant case); `IDI8agkhBaG.Rk` is a password with a dot in it
_NAME = r"(?:[a-z_][a-z0-9_]*|[A-Za-z][a-z]+(?:[A-Z][a-z]+)*\d*|[A-Z_][A-Z0-9_]*)"
_REFERENCE = re.compile(rf"^{_NAME}(?:\.{_NAME})+$")
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


# Documented example keys (AWS's `…EXAMPLE`, `…EXAMPLEKEY`) and placeholders: `ghp_xxxx…`, `dop_v1_0000…`,
# `xoxb-your-token-here`. A run of six equal characters or a delimited filler word never occurs in a real token
# by chance (under 1e-5 per token), so this allow-list costs no real secret.
_EXAMPLE = re.compile(
    r"EXAMPLE|(.)\1{5}|(?<![A-Za-z0-9])(?i:your|here|goes|placeholder|redacted|dummy|sample|changeme|fixme)(?![A-Za-z0-9])"
)


def is_example(token: str) -> bool:
    """A documented example key or a placeholder, not a secret."""
    return bool(_EXAMPLE.search(token))


def _key_kind(key: str) -> str | None:
    """ "password", "token" or None for a key name (remembered: a body may repeat one name)."""
    if key not in _KEY_KINDS:
        if len(_KEY_KINDS) >= 4096:
            _KEY_KINDS.clear()
        _KEY_KINDS[key] = _key_kind_of(key)
    return _KEY_KINDS[key]


_KEY_KINDS: dict[str, str | None] = {}


def _key_kind_of(key: str) -> str | None:
    """ "password", "token" or None for a key name, by its words."""
    words = [w.lower() for w in _WORD_RE.findall(key)]
    if any(w in _PASSWORD_WORDS for w in words):
        return "password"
    if any(w in _SECRET_WORDS for w in words):
        return "token"
    for a, b in zip(words, words[1:]):
        if b in ("key", "keys") and a in _KEY_QUALIFIERS:
            return "token"
    joined = _COMPOUND.search("".join(words))
    if joined:
        return "password" if joined.group(0).startswith("pass") else "token"
    return None


def _assignment_is_secret(kind: str | None, key: str, sep: str, quoted: str, value: str) -> bool:
    if _MASKED.match(value) or value.startswith(("$", "<", "{", "http")) or _WIN_VAR.match(value):
        return False
    if (not quoted and any(c in value for c in "()[]")) or is_example(value):  # a call or lookup: `get_key()`
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


class _DropFormat(dict[int, int | None]):
    """A `str.translate` table that drops format characters, filled as code points are met (C does the loop)."""

    def __missing__(self, cp: int) -> int | None:
        self[cp] = None if unicodedata.category(chr(cp)) == "Cf" else cp
        return self[cp]


_DROP_FORMAT = _DropFormat()


def normalise(text: str) -> str:
    """NFKC (full-width `ｇｈｐ＿` is `ghp_`) without format characters (a zero-width space inside a token)."""
    if text.isascii():  # NFKC leaves ASCII alone and it holds no format character
        return text
    return unicodedata.normalize("NFKC", text).translate(_DROP_FORMAT)


@cache
def _providers() -> tuple[tuple[str, tuple[str, ...], Callable[[str], Iterable[str]]], ...]:
    """detect-secrets' format plugins as (what, gate, analyze_string); imported on first use (they pull in
    requests)."""
    import importlib

    out = []
    for module, name, gate in DETECT_SECRETS:
        detector = getattr(importlib.import_module(f"detect_secrets.plugins.{module}"), name)()
        what = str(detector.secret_type)
        out.append((("an " if what[0] in "AEIOU" else "a ") + what, gate, detector.analyze_string))
    return tuple(out)


def _is_encoded_text(token: str) -> bool:
    """Base64 of prose (a fixture, an encoded sentence), not of random bytes: it decodes to printable ASCII
    words with spaces. A secret decodes to noise; `user:password` has no space."""
    if len(token) < 16:
        return False
    try:
        raw = base64.b64decode(
            token + "=" * (-len(token) % 4), altchars=b"-_" if "-" in token or "_" in token else None
        )
    except (binascii.Error, ValueError):
        return False
    return len(raw) >= 12 and raw.count(b" ") * 12 >= len(raw) and all(32 <= b < 127 for b in raw)


def _pem_body(text: str) -> bool:
    """Two consecutive base64 lines of PEM width that look random, outside a public key or certificate block."""
    public: list[tuple[int, int]] = []
    opened = -1
    for m in _PEM_MARK.finditer(text):
        if m.group(1) == "BEGIN":
            opened = m.end() if "PRIVATE" not in m.group(2) else -1
        elif opened >= 0:
            public.append((opened, m.start()))
            opened = -1
    if opened >= 0:
        public.append((opened, len(text)))
    starts = [a for a, _ in public]
    prev_end = -2
    for m in _PEM_LINE.finditer(text):
        i = bisect.bisect_right(starts, m.start()) - 1
        if (i >= 0 and m.start() < public[i][1]) or not looks_random_cached(m.group(1), 4.5, 0.4, True, False):
            continue
        if m.start() == prev_end + 1:
            return True
        prev_end = m.end()
    return False


def _hits(text: str) -> Iterable[str]:
    """Every kind of secret in normalised `text`, in rule order (may repeat)."""
    low = text.lower()
    for name, gate, rx in PATTERNS:
        if gated(low, gate) and any(not is_example(m.group(0)) for m in rx.finditer(text)):
            yield name
    for what, gate, analyze in _providers():
        if gated(low, gate) and any(not is_example(found) for found in analyze(text)):
            yield what
    if "://" in text:
        for m in _URL_PASSWORD.finditer(text):
            pw = m.group(1)
            if not (_MASKED.match(pw) or is_example(pw) or pw.startswith("$") or pw.lower() in _PLACEHOLDER_WORDS):
                yield "a password in a URL"
                break
    for m in _QUERY.finditer(text):
        value = m.group(1)  # without digits, not made of words (`?key=ResolveWorkspaceHandle`)
        if looks_random_cached(value, 3.5, 0.25, False, not any(c.isdigit() for c in value)) and not is_example(value):
            yield "a credential in a URL query"
            break
    pos = 0
    while k := _KEY_SEP.search(text, pos):  # keys first, so `config: password = "x"` still sees `password`
        kind = _key_kind(k.group("key"))
        v = _VALUE.match(text, k.end()) if kind else None
        pos = v.end() if v else k.end()  # past a value read: `token:token:…` would read each char 256 times
        sep = "=" if k.group("sep") == "=" and not any(c in k.group(0) for c in " \t") else k.group("sep") + " "
        if v and _assignment_is_secret(kind, k.group("key"), sep, v.group("q") or k.group("kq"), v.group("val")):
            yield f"a value assigned to {k.group('key').lower()}"
            break
    if any(
        _assignment_is_secret("password", "password", "=", m.group("q"), m.group("val"))
        for m in command_passwords(text, low)
    ):
        yield "a password on a command line"
    if any(_assignment_is_secret("password", "pgpass", ": ", "", v) for v in file_passwords(text, low)):
        yield "a password in a credentials file (.netrc, .pgpass)"
    for m in _PROSE.finditer(text):
        kind, value = _key_kind(m.group("key").replace(" ", "_")), m.group("val").rstrip(".,;:!?)")
        if len(value) >= 6 and _assignment_is_secret(kind, "secret", "is ", m.group("q"), value):
            yield f"a {kind} written out in a sentence"
            break
    if "`" in text and _random_in_code(text):
        yield "a random-looking token in code"
    for t in _AWS_SECRET.finditer(text):  # bare anywhere, with or without digits, e.g. `wJalrXUtnFEMI/K7MDENG/…`
        if _random_in(text, t, 4.3, 0.3, False):
            yield "a 40-character secret (the shape of an AWS secret access key)"
            break
    if _pem_body(text):
        yield "a PEM key body (base64 lines without the BEGIN line)"


def _random_in_code(text: str) -> bool:
    """A random-looking token inside a code span or fence. Tokens first (C finds them; backticks cannot be part
    of one, so they are the spans' tokens too), then the spans, then randomness only for tokens inside one:
    a body of many short spans, or of many tokens outside spans, costs one pass and a look-up each."""
    tokens = list(_TOKEN.finditer(text))
    if not tokens:
        return False
    starts, ends = [], []
    for span in _CODE_SPAN.finditer(text):
        name = "block" if span.group("block") is not None else "inline"
        starts.append(span.start(name))
        ends.append(span.end(name))
    for t in tokens:
        i = bisect.bisect_right(starts, t.start()) - 1
        if i >= 0 and t.end() <= ends[i] and _random_in(text, t, 3.7, 0.35, True):
            return True
    return False


def _random_in(text: str, t: re.Match[str], min_entropy: float, min_changes: float, strict: bool) -> bool:
    """Token `t` of `text` reads as generated: random-looking, not after `sha512-`, not an example key and not
    base64 of prose. `strict`: it needs digits and no word-sized pieces (in code; bare 40s need neither)."""
    token = t.group(0)
    return (
        looks_random_cached(token, min_entropy, min_changes, strict, strict)
        and not _after_hash(text, t.start())
        and not is_example(token)
        and not _is_encoded_text(token)
    )


def _after_hash(text: str, start: int) -> bool:
    return bool(_HASH_PREFIX.search(text[max(0, start - 10) : start]))


@dataclass(frozen=True)
class SecretHit:
    field: str  # where: title, body, tags, source, evidence, provenance.agent, ...
    what: str  # the kind of secret, e.g. "a GitHub token"


def scan_text(text: str) -> list[str]:
    """Kinds of secret found in `text` (deduplicated, in rule order)."""
    return list(dict.fromkeys(_hits(normalise(text))))


def scan_fields(fields: dict[str, str]) -> list[SecretHit]:
    """Scan named text fields; the result names fields and secret kinds only."""
    hits: list[SecretHit] = []
    for name, text in fields.items():
        if text:
            hits.extend(SecretHit(name, what) for what in scan_text(text))
    return hits
