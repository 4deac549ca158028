"""Provider token formats for the candidate secret scan (candidates/secrets.py). Pure.

Each rule is (what it is, gate, pattern). The gate is a tuple of lowercase literals of which at least one
occurs in every text the pattern can match (empty: always run); the scan checks gates against the lowercased
text once, so a body without `ghp_` never runs the GitHub pattern. That keeps a scan of a body at the size
limit to a few passes in C whatever its content. `tests/test_candidates_secret_corpus.py` checks every gate
against its pattern on the corpus (a gate that hid a match would be a missed secret).

Formats are the providers' documented prefixes and lengths (as in gitleaks' and GitHub's secret-scanning
lists), written here as our own patterns; detect-secrets' format plugins cover a few more (see secrets.py).
Passwords on command lines and in pasted credentials files (`.netrc`, `.pgpass`) are found here too; whether
a value found is a secret (not a reference or a placeholder) is decided in secrets.py.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable

_RULES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("a private key block", ("private key",), r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"),
    (
        "an AWS access key id",
        ("akia", "asia", "agpa", "aida", "aroa", "anpa", "anva", "aipa"),
        r"\bA(?:KIA|SIA|GPA|IDA|ROA|NPA|NVA|IPA)[A-Z0-9]{16}\b",
    ),
    ("an AWS secret access key", ("secret",), r"(?i)aws_?secret_?access_?key\s*[:=]\s*['\"]?[A-Za-z0-9/+=]{40}"),
    ("a GitHub token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), r"\bgh[pousr]_[A-Za-z0-9]{36,}\b"),
    ("a GitHub fine-grained token", ("github_pat_",), r"\bgithub_pat_[A-Za-z0-9_]{22,}\b"),
    ("a GitLab token", ("glpat-",), r"\bglpat-[A-Za-z0-9_-]{20,}\b"),
    ("a Slack token", ("xox",), r"\bxox[abposre]-[A-Za-z0-9-]{10,}\b"),
    ("a Slack webhook URL", ("hooks.slack.com",), r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}"),
    ("a Stripe key", ("sk_", "rk_"), r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}\b"),  # `pk_` keys are public
    ("a Stripe webhook secret", ("whsec_",), r"\bwhsec_[A-Za-z0-9+/=]{32,}"),
    ("a HashiCorp Vault token", ("hvs.", "hvb."), r"\bhv[sb]\.[A-Za-z0-9_-]{24,}"),
    ("a Docker Hub token", ("dckr_pat_",), r"\bdckr_pat_[A-Za-z0-9_-]{27,}"),
    ("a Shopify token", ("shpat_", "shpca_", "shppa_", "shpss_"), r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"),
    ("an Atlassian API token", ("atatt3", "atctt3"), r"\bAT[AC]TT3[A-Za-z0-9_=-]{150,}"),
    ("a Bitbucket app password", ("atbb",), r"\bATBB[A-Za-z0-9_=.-]{28,}"),
    ("a DigitalOcean token", ("_v1_",), r"\bdo[opr]_v1_[a-f0-9]{64}\b"),
    ("a Grafana token", ("glsa_", "glc_"), r"\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b|\bglc_[A-Za-z0-9+/]{32,}"),
    ("a Databricks token", ("dapi",), r"\bdapi[a-f0-9]{32}\b"),
    ("an OpenAI/Anthropic-style API key", ("sk-",), r"\bsk-(?:[A-Za-z]+-)*[A-Za-z0-9_-]{20,}"),
    ("a Google API key", ("aiza",), r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"),
    ("a Google OAuth client secret", ("gocspx-",), r"\bGOCSPX-[A-Za-z0-9_-]{28}(?![A-Za-z0-9_-])"),
    ("a Google OAuth token", ("ya29.", "1//0"), r"\bya29\.[A-Za-z0-9_-]{30,}|(?<![\w/])1//0[A-Za-z0-9_-]{40,}"),
    ("an Azure AD client secret", ("8q~",), r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}8Q~[A-Za-z0-9_~.-]{31,34}"),
    ("a Hugging Face token", ("hf_",), r"\bhf_[A-Za-z0-9]{30,}\b"),
    ("an npm token", ("npm_",), r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("a Groq API key", ("gsk_",), r"\bgsk_[A-Za-z0-9]{48,}\b"),
    ("a Replicate token", ("r8_",), r"\br8_[A-Za-z0-9]{37}\b"),
    ("an xAI API key", ("xai-",), r"\bxai-[A-Za-z0-9]{70,}\b"),
    ("a Perplexity API key", ("pplx-",), r"\bpplx-[A-Za-z0-9]{40,}\b"),
    ("a LangSmith API key", ("lsv2_",), r"\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b"),
    ("a Tailscale key", ("tskey-",), r"\btskey-[a-z]+-[A-Za-z0-9]{6,}-[A-Za-z0-9]{20,}"),
    ("a Linear API key", ("lin_api_",), r"\blin_api_[A-Za-z0-9]{40}\b"),
    ("a Notion token", ("ntn_",), r"\bntn_[0-9]{11}[A-Za-z0-9]{32,}\b"),
    ("a Figma token", ("figd_", "figh_", "figo_", "figu_"), r"\bfig[dhou]_[A-Za-z0-9_-]{40,}"),
    ("a Sentry token", ("sntrys_", "sntryu_"), r"\bsntry[su]_[A-Za-z0-9_=+/-]{40,}"),
    ("a Postman API key", ("pmak-",), r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b"),
    ("a New Relic key", ("nrak-", "nrii-", "nrjs-"), r"\bNR(?:AK|II|JS)-[A-Za-z0-9]{19,32}\b"),
    ("a Pulumi token", ("pul-",), r"\bpul-[a-f0-9]{40}\b"),
    ("a Terraform Cloud token", (".atlasv1.",), r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}"),
    ("a Mailgun key", ("mailgun",), r"(?i:mailgun)[^\n]{0,40}?\bkey-[a-f0-9]{32}\b"),
    ("a Brevo key", ("xkeysib-", "xsmtpsib-"), r"\bx(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}\b"),
    ("an age secret key", ("age-secret-key-1",), r"\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b"),
    ("an Alibaba Cloud access key", ("ltai",), r"\bLTAI[A-Za-z0-9]{12,20}\b"),
    ("a Mapbox secret token", ("sk.eyj",), r"\bsk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}"),
    ("a PlanetScale token", ("pscale_",), r"\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.=-]{32,}"),
    ("a Doppler token", ("dp.",), r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9._-]{40,}"),
    ("a RubyGems key", ("rubygems_",), r"\brubygems_[a-f0-9]{48}\b"),
    ("a NuGet key", ("oy2",), r"\boy2[a-z0-9]{43}\b"),
    ("a Buildkite token", ("bkua_",), r"\bbkua_[a-f0-9]{40}\b"),
    ("a Heroku API key", ("hrku-",), r"\bHRKU-[A-Za-z0-9_-]{40,}"),
    ("a Fly.io token", ("fo1_", "fm2_"), r"\bf(?:o1|m2)_[A-Za-z0-9_-]{40,}"),
    ("a 1Password service account token", ("ops_eyj",), r"\bops_eyJ[A-Za-z0-9_+/=-]{100,}"),
    (
        "a Discord webhook URL",
        ("discord",),
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d{5,30}/[A-Za-z0-9_-]{60,}",
    ),
    (
        "a JSON Web Token",
        ("eyj",),
        r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    ),
    ("a bearer token", ("bearer",), r"(?i)\bbearer\s+[A-Za-z0-9_\-.=~+/]{20,}"),
    (
        "an Authorization header credential",
        ("authorization",),
        r"(?i)\b(?:proxy-)?authorization\s*[:=]\s*[\"']?(?:basic|token|digest|apikey|api-key)\s+[A-Za-z0-9_\-.=~+/:]{8,}",
    ),
    ("an Azure SAS token", ("sig=",), r"(?i)(?:[?&]|\b)sig=(?:[A-Za-z0-9+/]|%[0-9A-F]{2}){30,}"),
    (
        "an Azure shared access key",
        ("sharedaccess",),
        r"(?i)\bSharedAccess(?:Key|Signature)\s*=\s*[A-Za-z0-9+/%=]{20,}",
    ),
)
_LEADING_LITERAL = re.compile(r"\\b((?:[A-Za-z0-9_-]|\\\.)+)(?![?*+{])")


def literal_first(rx: str) -> str:
    """`\\bghp_…` as `ghp_(?<!\\wghp_)…`: the same matches (a `\\b` before a word character is "no word
    character before it"), but a pattern that starts with a literal lets `re` jump between occurrences of it
    instead of trying every position: about 40x faster on a body full of near misses."""
    m = _LEADING_LITERAL.match(rx)
    if not m or not re.match(r"\w", m.group(1)):
        return rx
    lit = m.group(1)
    if len(rx) > m.end() and rx[m.end()] in "?*+{":  # never: the lookahead keeps a quantified last character out
        return rx
    return lit + r"(?<!\w" + lit + ")" + rx[m.end() :]


RULES = _RULES  # as written (tests compare them with the compiled, literal-first form)
PATTERNS: tuple[tuple[str, tuple[str, ...], re.Pattern[str]], ...] = tuple(
    (what, gate, re.compile(literal_first(rx))) for what, gate, rx in _RULES
)

# Format-specific detect-secrets plugins (module, class, gate): the ones whose pattern is a provider's token
# shape. Its keyword, entropy, URL and IP plugins are left out: our rules cover those cases with fewer false
# alarms on prose (theirs flag every quoted random-looking string, ours need a secret-ish name or a code span).
DETECT_SECRETS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("sendgrid", "SendGridDetector", ("sg.",)),
    ("twilio", "TwilioKeyDetector", ("ac", "sk")),
    ("discord", "DiscordBotTokenDetector", ()),
    ("telegram_token", "TelegramBotTokenDetector", (":",)),
    ("azure_storage_key", "AzureStorageKeyDetector", ("accountkey=",)),
    ("mailchimp", "MailchimpDetector", ("-us",)),
    ("pypi_token", "PypiTokenDetector", ("pypi-",)),
    ("square_oauth", "SquareOAuthDetector", ("sq0csp-",)),
    ("gitlab_token", "GitLabTokenDetector", ("gl", "gr1348941")),
    ("ibm_cos_hmac", "IbmCosHmacDetector", ("secret",)),
)


# A password on a command line: `mysql -pS3cret` (attached: `-p secret` makes mysql prompt and reads a database
# name), `curl -u user:pw`, `--password=…` / `--password …` for any tool, `docker login -p …`, `sshpass -p …`,
# `redis-cli -a …`. (command, its password option): the option counts when it starts within CLI_GAP characters
# after the command, in the same command (no newline, `;`, `|` or `&` between). None: the option alone counts.
CLI_GAP = 200
_CLI_PASSWORDS = tuple(
    (gate, re.compile(cmd) if cmd else None, re.compile(opt))
    for gate, cmd, opt in (
        (
            ("mysql", "mariadb"),
            r"(?i:\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b)",
            r"\s-p(?P<q>[\"']?)(?P<val>[^\s\"']+)",
        ),
        ((), None, r"(?i:--password)(?:=|[ \t]+)(?P<q>[\"']?)(?P<val>[^\s\"']+)"),
        (("docker",), r"(?i:\bdocker\s+login\b)", r"\s-p(?:=|[ \t]+)?(?P<q>[\"']?)(?P<val>[^\s\"'-][^\s\"']*)"),
        ((), None, r"(?i:\bsshpass)\s+-p[ \t]*(?P<q>[\"']?)(?P<val>[^\s\"']+)"),
        (
            ("curl",),
            r"(?i:\bcurl\b)",
            r"\s(?:-u[ \t]*|--user(?:=|[ \t]+))(?P<q>[\"']?)[^\s:\"']{1,256}:(?P<val>[^\s\"']+)",
        ),
        (("redis-cli",), r"(?i:\bredis-cli\b)", r"\s-a[ \t]+(?P<q>[\"']?)(?P<val>[^\s\"']+)"),
    )
)
_COMMAND_END = re.compile(r"[\n;|&]")
# Credentials files pasted whole: `.netrc` (`machine host login user password VALUE`) and `.pgpass`
# (`host:port:database:user:VALUE`, one a line). Each repetition is bounded, so a scan stays linear.
_NETRC = re.compile(r"(?i)\bmachine[ \t]+\S{1,256}(?:[ \t]+login[ \t]+\S{1,256})?[ \t]+password[ \t]+(\S{1,256})")
_PGPASS = re.compile(r"(?m)^[A-Za-z0-9_.*-]{1,253}:(?:\d{1,5}|\*):[^:\s]{1,63}:[^:\s]{1,63}:(\S{1,256})$")


def gated(low: str, gate: tuple[str, ...]) -> bool:
    """Whether a rule with `gate` can match the text whose lowercase is `low`."""
    return not gate or any(g in low for g in gate)


def command_passwords(text: str, low: str) -> Iterable[re.Match[str]]:
    """Each password option of `_CLI_PASSWORDS` that belongs to its command, in one pass per rule: the nearest
    command before the option, within CLI_GAP characters and the same command."""
    ends: list[int] | None = None
    for gate, cmd, opt in _CLI_PASSWORDS:
        if cmd is None:
            yield from opt.finditer(text)
            continue
        starts = [m.end() for m in cmd.finditer(text)] if gated(low, gate) else []
        if not starts:
            continue
        if ends is None:
            ends = [m.start() for m in _COMMAND_END.finditer(text)]
        for m in opt.finditer(text):
            i = bisect.bisect_right(starts, m.start()) - 1
            if i < 0 or m.start() - starts[i] > CLI_GAP:
                continue
            j = bisect.bisect_left(ends, starts[i])
            if j == len(ends) or ends[j] >= m.start():
                yield m


def file_passwords(text: str, low: str) -> Iterable[str]:
    """The password of each `.netrc` entry and `.pgpass` line in `text` (`low` is it lowercased)."""
    if "machine" in low and "password" in low:
        yield from (m.group(1) for m in _NETRC.finditer(text))
    if ":" in text:
        yield from (m.group(1) for m in _PGPASS.finditer(text))
