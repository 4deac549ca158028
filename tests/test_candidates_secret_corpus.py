"""Issue 35 item 12: a corpus of our own realistic fake secrets (each shape a provider really issues) and of
innocent look-alikes (documented example keys, placeholders, public keys, references). Every token is assembled
from a seeded generator or from pieces, so this file holds no literal secret."""

from __future__ import annotations

import random
import string
import time

import pytest

from jupiter_git_memory.candidates.secrets import scan_text
from jupiter_git_memory.candidates.validate import MAX_BODY_BYTES

pytestmark = pytest.mark.unit

_R = random.Random(35)
B62 = string.ascii_letters + string.digits
HEX = "0123456789abcdef"


def rnd(n: int, alphabet: str = B62) -> str:
    return "".join(_R.choice(alphabet) for _ in range(n))


PW = "Kq7v" + "R2mZp9Lx"  # a password-shaped value
SECRETS = [  # (family, text)
    ("url", "REDIS_URL=redis://:" + PW + "@cache.internal:6379/0"),
    ("url", "connect with rediss://:" + PW + "@redis.example.net:6380"),
    ("url", "amqp://svc:" + PW + "@mq.internal:5672/vhost"),
    ("cli", "curl -u deploy:" + PW + " https://ci.internal/api/build"),
    ("cli", "curl --user 'admin:" + PW + "' https://nexus.internal/service"),
    ("cli", "curl -s -X POST -u ci-bot:" + PW + " https://jenkins.internal/job/x/build"),
    ("django", "SECRET_KEY = 'django-insecure-" + "a8(k#2v!m9z)q_4r^w7&t" + "x+p0s$e3y=b6n'"),
    ("django", 'SECRET_KEY = "' + "z9(Fq2!kL7)m^Wp3&rT8" + "*vX4#nB6" + '"'),
    ("azure-devops", "AZURE_DEVOPS_EXT_PAT=" + rnd(52, "abcdefghijklmnopqrstuvwxyz234567")),
    ("azure-devops", "export AZDO_PAT=" + rnd(52, "abcdefghijklmnopqrstuvwxyz234567")),
    ("azure-devops", "  ado_pat: " + rnd(52, "abcdefghijklmnopqrstuvwxyz234567")),
    ("vault", "export VAULT_TOKEN=hvs." + rnd(24)),
    ("vault", "the root token hvs." + "CAESI" + rnd(90, B62 + "_-") + " was pasted"),
    ("vault", "batch token hvb." + "AAAAAQ" + rnd(120, B62 + "_-")),
    ("docker", "echo dckr_pat_" + rnd(27, B62 + "_-") + " | docker login -u me --password-stdin"),
    ("docker", "DOCKERHUB token dckr_pat_" + rnd(27, B62 + "_-")),
    ("stripe", "STRIPE_WEBHOOK_SECRET=whsec_" + rnd(32)),
    ("stripe", "signing secret whsec_" + rnd(40) + " from the dashboard"),
    ("stripe", "restricted key rk_live_" + rnd(99)),
    ("shopify", "X-Shopify-Access-Token: shpat_" + rnd(32, HEX)),
    ("shopify", "custom app token shpca_" + rnd(32, HEX)),
    ("shopify", "private app shppa_" + rnd(32, HEX)),
    ("shopify", "shared secret shpss_" + rnd(32, HEX)),
    ("atlassian", "JIRA_API_TOKEN=ATATT3xFfGF0" + rnd(170, B62 + "_-") + "=" + rnd(8, HEX.upper())),
    ("atlassian", "curl -H 'Authorization: Bearer ATATT3xFfGF0" + rnd(170, B62 + "_-") + "=" + rnd(8, HEX.upper())),
    ("atlassian", "the admin key ATCTT3xFfGN0" + rnd(170, B62 + "_-") + "=" + rnd(8, HEX.upper())),
    ("digitalocean", "DIGITALOCEAN_ACCESS_TOKEN=dop_v1_" + rnd(64, HEX)),
    ("digitalocean", "doctl auth init -t dop_v1_" + rnd(64, HEX)),
    ("digitalocean", "oauth token doo_v1_" + rnd(64, HEX)),
    ("grafana", "GF_TOKEN glsa_" + rnd(32) + "_" + rnd(8, HEX)),
    ("grafana", "service account key glsa_" + rnd(32) + "_" + rnd(8, HEX) + " in the dashboard json"),
    ("grafana", "cloud token glc_" + "eyJvIjoiMTIzNDU2IiwibiI6InN0YWNr" + rnd(60)),
    ("databricks", "DATABRICKS_TOKEN=dapi" + rnd(32, HEX)),
    ("databricks", "databricks configure --token dapi" + rnd(32, HEX) + "-2"),
    ("databricks", "host = https://adb-1.azuredatabricks.net token dapi" + rnd(32, HEX)),
]
LOOKALIKES = [  # (family, text)
    ("aws-example", "aws_access_key_id = AKIA" + "IOSFODNN7EXAMPLE"),
    ("aws-example", "the docs use AKIA" + "IOSFODNN7EXAMPLE and wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"),
    ("aws-example", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"),
    ("placeholder", "export GITHUB_TOKEN=ghp_" + "x" * 36),
    ("placeholder", "token: ghp_" + "X" * 40),
    ("placeholder", "SLACK_BOT_TOKEN=xoxb-" + "your-token-here"),
    ("placeholder", "use xoxb-" + "your-bot-token-goes-here in .env"),
    ("placeholder", "STRIPE_SECRET=sk_live_" + "x" * 24),
    ("placeholder", "docker login with dckr_pat_" + "X" * 27),
    ("placeholder", "set VAULT_TOKEN=hvs." + "your-vault-token-here"),
    ("placeholder", "shopify shpat_" + "0" * 32),
    ("placeholder", "DIGITALOCEAN_TOKEN=dop_v1_" + "0" * 64),
    ("placeholder", "DATABRICKS_TOKEN=dapi" + "x" * 32),
    ("placeholder", "grafana glsa_" + "x" * 32 + "_" + "0" * 8),
    ("public-key", "Stripe.js needs the publishable key pk_live_" + rnd(24)),
    ("public-key", "STRIPE_PUBLISHABLE_KEY=pk_test_" + rnd(24)),
    ("reference", "REDIS_URL=redis://cache.internal:6379/0"),
    ("reference", "redis://:${REDIS_PASSWORD}@cache:6379"),
    ("reference", "curl -u deploy https://ci.internal/api (curl prompts for the password)"),
    ("reference", "curl -u $CI_USER:$CI_PASSWORD https://ci.internal"),
    ("reference", 'SECRET_KEY = os.environ["DJANGO_SECRET_KEY"]'),
    ("reference", "SECRET_KEY = get_random_secret_key()"),
    ("reference", "AZURE_DEVOPS_EXT_PAT: $(System.AccessToken)"),
    ("reference", "AZDO_PAT: ${{ secrets.AZDO_PAT }}"),
    ("reference", "VAULT_TOKEN=$(vault print token)"),
    ("prose", "rotate the hvs. tokens and dckr_pat_ tokens every 90 days"),
    ("prose", "Shopify admin tokens start with shpat_ and Databricks ones with dapi"),
    ("prose", "the pattern pat_matcher = compile_pattern(rules)"),
    ("prose", "see https://user@git.internal/repo.git for the mirror"),
    ("hash", "commit " + rnd(40, HEX) + " moved the retry loop"),
    ("hash", "integrity sha512-" + rnd(86) + "=="),
    ("hash", "request id " + "-".join(rnd(n, HEX) for n in (8, 4, 4, 4, 12))),
]


@pytest.mark.parametrize(("family", "text"), SECRETS, ids=[f"{f}-{i}" for i, (f, _) in enumerate(SECRETS)])
def test_realistic_secret_is_caught(family, text):
    assert scan_text(text), f"{family}: missed"


@pytest.mark.parametrize(("family", "text"), LOOKALIKES, ids=[f"{f}-{i}" for i, (f, _) in enumerate(LOOKALIKES)])
def test_innocent_lookalike_is_not_flagged(family, text):
    assert scan_text(text) == []


# Bodies that made an unbounded repetition restart at every position (issue 35 item 13): dotted words for the
# URL scheme, `token:` pairs for the assigned value, one long `mysql`/`curl` line for the command-line gap,
# unclosed fences, and a long run that ends just short of a match.
WORST = {
    "dotted": "a.",
    "token-pairs": "token:(",
    "mysql-line": "mysql ",
    "curl-line": "curl -u ",
    "docker-line": "docker login ",
    "fences": "```a",
    "url-users": "x://a:",
    "run-then-equals": "a",
}


@pytest.mark.parametrize("name", WORST)
def test_a_body_at_the_size_limit_scans_in_linear_time(name):
    body = (WORST[name] * MAX_BODY_BYTES)[: MAX_BODY_BYTES - 3] + "==="
    start = time.perf_counter()
    scan_text(body)
    assert time.perf_counter() - start < 5.0  # a guard against quadratic time (was minutes), not a speed target
