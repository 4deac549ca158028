"""Secret detection for candidate text. Pure.

Why reject rather than redact: a redacted observation is still written somewhere first (store, log,
index), and the spot that leaked it is the agent's input. So a secret rejects the whole candidate,
and callers are told which field and which *kind* of secret — never the matched text.

Text is normalised first (NFKC, format characters dropped), so a token split by a zero-width space or written
in full-width letters is still the token. Provider formats come from two places: our patterns below, and the
format-specific plugins of detect-secrets (Yelp), used as a library through their pure `analyze_string` (its
scan machinery is file- and settings-based, and its entropy plugins look only at quoted strings). Our own
rules cover what it has no plugin for: names that merely end in a secret word (`PGPASSWORD=`), Authorization
headers, passwords on command lines and in prose, random tokens in code, a bare 40-character AWS secret and a
PEM body without its header.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache

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
        ("a Stripe key", r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}\b"),  # `pk_` keys are public by design
        ("a Stripe webhook secret", r"\bwhsec_[A-Za-z0-9+/=]{32,}"),
        ("a HashiCorp Vault token", r"\bhv[sb]\.[A-Za-z0-9_-]{24,}"),
        ("a Docker Hub token", r"\bdckr_pat_[A-Za-z0-9_-]{27,}"),
        ("a Shopify token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"),
        ("an Atlassian API token", r"\bAT[AC]TT3[A-Za-z0-9_=-]{150,}"),
        ("a DigitalOcean token", r"\bdo[opr]_v1_[a-f0-9]{64}\b"),
        ("a Grafana token", r"\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b|\bglc_[A-Za-z0-9+/]{32,}"),
        ("a Databricks token", r"\bdapi[a-f0-9]{32}\b"),
        ("an OpenAI/Anthropic-style API key", r"\bsk-(?:[A-Za-z]+-)*[A-Za-z0-9_-]{20,}"),
        ("a Google API key", r"\bAIza[0-9A-Za-z_-]{35}\b"),
        ("a Hugging Face token", r"\bhf_[A-Za-z0-9]{30,}\b"),
        ("an npm token", r"\bnpm_[A-Za-z0-9]{36}\b"),
        ("a JSON Web Token", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
        ("a bearer token", r"(?i)\bbearer\s+[A-Za-z0-9_\-.=~+/]{20,}"),
        (
            "an Authorization header credential",
            r"(?i)\b(?:proxy-)?authorization\s*[:=]\s*[\"']?(?:basic|token|digest|apikey|api-key)\s+[A-Za-z0-9_\-.=~+/:]{8,}",
        ),
        ("an Azure SAS token", r"(?i)(?:[?&]|\b)sig=(?:[A-Za-z0-9+/]|%[0-9A-F]{2}){30,}"),
        ("an Azure shared access key", r"(?i)\bSharedAccess(?:Key|Signature)\s*=\s*[A-Za-z0-9+/%=]{20,}"),
    )
)
# Format-specific detect-secrets plugins (module, class): the ones whose pattern is a provider's token shape.
# Its keyword, entropy, URL and IP plugins are left out: our rules below cover those cases with fewer false
# alarms on prose (theirs flag every quoted random-looking string, ours need a secret-ish name or a code span).
_DETECT_SECRETS = (
    ("sendgrid", "SendGridDetector"),
    ("twilio", "TwilioKeyDetector"),
    ("discord", "DiscordBotTokenDetector"),
    ("telegram_token", "TelegramBotTokenDetector"),
    ("azure_storage_key", "AzureStorageKeyDetector"),
    ("mailchimp", "MailchimpDetector"),
    ("pypi_token", "PypiTokenDetector"),
    ("square_oauth", "SquareOAuthDetector"),
    ("gitlab_token", "GitLabTokenDetector"),
    ("ibm_cos_hmac", "IbmCosHmacDetector"),
)
# A password on a command line: `mysql -pS3cret` (attached: `-p secret` makes mysql prompt and reads a database
# name), `curl -u user:pw`, `--password=…` / `--password …` for any tool, `docker login -p …`, `sshpass -p …`, `redis-cli -a …`.
_CLI_PASSWORDS = tuple(
    re.compile(rx)
    for rx in (
        r"(?i:\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b)[^\n;|&]{0,200}?\s-p(?P<q>[\"']?)(?P<val>[^\s\"']+)",
        r"(?i:--password)(?:=|[ \t]+)(?P<q>[\"']?)(?P<val>[^\s\"']+)",
        r"(?i:\bdocker\s+login\b)[^\n;|&]{0,200}?\s-p(?:=|[ \t]+)?(?P<q>[\"']?)(?P<val>[^\s\"'-][^\s\"']*)",
        r"(?i:\bsshpass)\s+-p[ \t]*(?P<q>[\"']?)(?P<val>[^\s\"']+)",
        r"(?i:\bcurl\b)[^\n;|&]{0,200}?\s(?:-u[ \t]*|--user(?:=|[ \t]+))(?P<q>[\"']?)[^\s:\"']{1,256}:(?P<val>[^\s\"']+)",
        r"(?i:\bredis-cli\b)[^\n;|&]{0,200}?\s-a[ \t]+(?P<q>[\"']?)(?P<val>[^\s\"']+)",
    )
)
# "the password is hunter2", "our API token was `…`": a secret word, a copula, then one value.
_PROSE = re.compile(
    r"(?i)\b(?P<key>password|passwd|passphrase|passcode|secret|token|api[ _-]?key|access[ _-]?key)\s+"
    r"(?:is|was|will be|would be|is set to|=)\s*:?[ \t]*(?P<q>[\"'`]?)(?P<val>[^\s\"'`]+)"
)
_CODE_SPAN = re.compile(r"```[^\n`]{0,100}\n(?P<block>.*?)(?:```|\Z)|`(?P<inline>[^`\n]+)`", re.DOTALL)
_TOKEN = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{20,}={0,2}(?![A-Za-z0-9+/=_-])")
_AWS_SECRET = re.compile(r"(?<![A-Za-z0-9+/=])[A-Za-z0-9+/]{40}(?![A-Za-z0-9+/=])")
_HASH_PREFIX = re.compile(r"(?i)(?:sha\d{1,3}|md5|blake\w*)[-:=]$")  # `sha512-…` integrity hashes are not secrets
_HEXISH = re.compile(r"^[0-9a-fA-F-]+$")  # git SHAs, digests, UUIDs
MAX_PIECE = 2.8  # mean letters per camel-case piece of a random token (random base64: 1.9, p99 2.8)
_PEM_LINE = re.compile(r"^[ \t>]*[A-Za-z0-9+/]{60,76}={0,2}[ \t]*$")
# scheme://user:password@host — the password part is what matters; masked examples are allowed.
# Every repetition that can restart at each position is bounded (scheme, user, CLI gap, value), so a scan is
# linear in the text: unbounded ones made a 128 KiB body of dotted words or `token:` pairs take minutes.
_URL_PASSWORD = re.compile(
    r"(?<![a-z0-9+.-])[a-z][a-z0-9+.-]{0,31}://[^\s/:@]{0,256}:([^\s/@]{1,256})@[^\s/@]", re.IGNORECASE
)
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
_WORD_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
# A name that ends in a secret word without a separator: `PGPASSWORD`, `accesstoken`, `clientSecret`.
_COMPOUND = re.compile(
    r"(?:pass(?:word|wd|phrase|code)|secret|token|apikey|accesskey|secretkey|privatekey|credentials?)$"
)
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


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values()) if n else 0.0


def _assignment_is_secret(kind: str | None, key: str, sep: str, quoted: str, value: str) -> bool:
    if _MASKED.match(value) or value.startswith(("$", "%", "<", "{", "http")):
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


def _changes(value: str) -> float:
    """How often the character class (small, capital, digit) changes from one letter or digit to the next:
    about 0.6 for random base64, under 0.3 for paths and identifiers made of words."""

    def kind(c: str) -> int:
        return 0 if c.islower() else 1 if c.isupper() else 2

    chars = [c for c in value if c.isalnum()]  # separators (`/`, `_`, `-`) do not make a path look random
    return sum(kind(a) != kind(b) for a, b in zip(chars, chars[1:])) / max(len(chars) - 1, 1)


def looks_random(token: str, min_entropy: float, min_changes: float, digits: bool = True, words: bool = True) -> bool:
    """A token that reads as generated: small and capital letters (and `digits`), high entropy, classes mixed
    throughout, and (`words`) no run of word-sized pieces: `RecallAnswerSchemaV2Model` splits into words of 4
    letters on average, random base64 into pieces under 3. Hex strings (git SHAs, digests, UUIDs) never count."""
    if _HEXISH.match(token) or not (re.search("[a-z]", token) and re.search("[A-Z]", token)):
        return False
    if digits and not re.search(r"\d", token):
        return False
    pieces = _WORD_RE.findall(token)
    if words and sum(map(len, pieces)) > MAX_PIECE * len(pieces):
        return False
    return entropy(token) >= min_entropy and _changes(token) >= min_changes


def normalise(text: str) -> str:
    """NFKC (full-width `ｇｈｐ＿` is `ghp_`) without format characters (a zero-width space inside a token)."""
    return "".join(c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) != "Cf")


@cache
def _providers() -> tuple[tuple[str, Callable[[str], Iterable[str]]], ...]:
    """detect-secrets' format plugins as (what, analyze_string); imported on first use (they pull in requests)."""
    import importlib

    out = []
    for module, name in _DETECT_SECRETS:
        detector = getattr(importlib.import_module(f"detect_secrets.plugins.{module}"), name)()
        what = str(detector.secret_type)
        out.append((("an " if what[0] in "AEIOU" else "a ") + what, detector.analyze_string))
    return tuple(out)


def _hits(text: str) -> Iterable[str]:
    """Every kind of secret in normalised `text`, in rule order (may repeat)."""
    for name, rx in _PATTERNS:
        if any(not is_example(m.group(0)) for m in rx.finditer(text)):
            yield name
    for what, analyze in _providers():
        if any(not is_example(found) for found in analyze(text)):
            yield what
    for m in _URL_PASSWORD.finditer(text):
        if not _MASKED.match(m.group(1)) and not is_example(m.group(1)) and not m.group(1).startswith("$"):
            yield "a password in a URL"
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
        for rx in _CLI_PASSWORDS
        for m in rx.finditer(text)
    ):
        yield "a password on a command line"
    for m in _PROSE.finditer(text):
        kind, value = _key_kind(m.group("key").replace(" ", "_")), m.group("val").rstrip(".,;:!?)")
        if len(value) >= 6 and _assignment_is_secret(kind, "secret", "is ", m.group("q"), value):
            yield f"a {kind} written out in a sentence"
            break
    for span in _CODE_SPAN.finditer(text):
        code = span.group("block") or span.group("inline") or ""
        if any(looks_random(t.group(0), 3.7, 0.35) and not _after_hash(code, t.start()) for t in _TOKEN.finditer(code)):
            yield "a random-looking token in code"
            break
    for t in _AWS_SECRET.finditer(text):  # bare anywhere, with or without digits, e.g. `wJalrXUtnFEMI/K7MDENG/…`
        if (
            looks_random(t.group(0), 4.3, 0.3, digits=False, words=False)
            and not _after_hash(text, t.start())
            and not is_example(t.group(0))
        ):
            yield "a 40-character secret (the shape of an AWS secret access key)"
            break
    lines = [
        bool(_PEM_LINE.match(line)) and looks_random(line.strip(" \t>"), 4.5, 0.4, words=False)
        for line in text.splitlines()
    ]
    if any(a and b for a, b in zip(lines, lines[1:])):
        yield "a PEM key body (base64 lines without the BEGIN line)"


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
