"""Secret checks, round 2 (issue 22): what an audit and a red team got past the first rules, and the prose and
hashes that must still pass. Pure and fast (part of the mutation-test selection). Every token is assembled from
pieces so this file holds no literal secret."""

from __future__ import annotations

import base64
import random

import pytest

from jupiter_git_memory.candidates.model import CandidateInput
from jupiter_git_memory.candidates.secrets import normalise, scan_text
from jupiter_git_memory.candidates.validate import check

pytestmark = pytest.mark.unit

GITHUB = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
RANDOM32 = "gh7Kq9LmP2xR4" + "vT8wZ1yB3nC5dF6hJ0k"
AWS_SECRET_40 = (
    "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYzQ1x9PLMKY"
)  # not AWS's documented example (…EXAMPLEKEY), which is allowed
GIT_SHA = "3f2a9c1e8b7d6a5f4e3d" + "2c1b0a9f8e7d6c5b4a39"


def pem_body(lines: int = 3) -> str:
    raw = random.Random(7).randbytes(48 * lines)
    b64 = base64.b64encode(raw).decode()
    return "\n".join(b64[i : i + 64] for i in range(0, 64 * lines, 64))


CAUGHT = [  # (text, the kind named)
    ("PG" + "PASSWORD=hunter2x9 psql -h db", "a value assigned to pgpassword"),
    ("access" + "token: 8f7a6d5c4b3a" + "2910ffeeddcc", "a value assigned to accesstoken"),
    ("export GITHUBTOKEN=Zx81Kq02" + "Lm93Nb74Vc65", "a value assigned to githubtoken"),
    ("curl -H 'Authorization: Basic " + "dXNlcjpwYXNzd29yZDEyMw==' https://api", "an Authorization header credential"),
    ("Authorization: Token " + "9f8e7d6c5b4a3928", "an Authorization header credential"),
    ("mysql -uroot -p" + "S3cr3tPass db", "a password on a command line"),
    ("mysqldump --password=" + "Sup3rS3cret db", "a password on a command line"),
    ("docker login -u me -p " + "S3cr3tPass123 registry.example.com", "a password on a command line"),
    ("sshpass -p 'Hunter2!x' ssh deploy@host", "a password on a command line"),
    ("redis-cli -h cache -a " + "S3cr3tRedis1 ping", "a password on a command line"),
    ("the password is " + "Tr0ub4dor&3.", "a password written out in a sentence"),
    ("Our API token was `" + "Zq8Lm3Nx7Pw2Rt5Yv9Ka`", "a token written out in a sentence"),
    ("```\nexport TOKEN\n" + RANDOM32 + "\n```", "a random-looking token in code"),
    ("run it with `" + RANDOM32 + "` as the argument", "a random-looking token in code"),
    ("the key " + AWS_SECRET_40 + " leaked", "a 40-character secret (the shape of an AWS secret access key)"),
    ("key body:\n" + pem_body() + "\n", "a PEM key body (base64 lines without the BEGIN line)"),
    ("SG." + "ngeVfQFYQlKU0ufo8x5d1A." + "TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr", "a SendGrid API Key"),
    ("SK" + "1234567890abcdef" + "1234567890abcdef", "a Twilio API Key"),
    ("MTIzNDU2Nzg5MDEyMzQ1Njc4" + ".XyZaBc." + "AbCdEfGhIjKlMnOpQrStUvWxYz0", "a Discord Bot Token"),
    ("bot 123456789:" + "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1", "a Telegram Bot Token"),
    (
        "https://acct.blob.core.windows.net/c?sv=2020-08-04&ss=b&sig=" + "abcDEF123%2Bxyz456ghiJKL789mnoPQR%3D",
        "an Azure SAS token",
    ),
    (
        "Endpoint=sb://x.servicebus.windows.net/;SharedAccessKey=" + "lJzRc1YdHaAA2KCNJJ1tkYwF/+mKK6Ygw0NGe17=",
        "an Azure shared access key",
    ),
    ("gh\u200bp_" + GITHUB[4:], "a GitHub token"),  # split by a zero-width space
    ("\uff47\uff48\uff50\uff3f" + GITHUB[4:], "a GitHub token"),  # full-width `ghp_`
    ("ghp_" + "a1B2c3D4\u2060e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "a GitHub token"),  # a word joiner inside
]


@pytest.mark.parametrize("text,what", CAUGHT)
def test_each_secret_the_first_rules_missed_is_caught(text, what):
    assert what in scan_text(text), (text, scan_text(text))
    v = check(inp(body=f"While debugging the deploy job I found {text} in the shell history."))
    assert v.code == "secret" and what in v.reason, v.reason


PASSES = [
    "Rotate the password every 90 days; the policy requires 12 characters.",
    "The password is rotated by the vault operator, and the token is valid for 24 hours.",
    "Set PGPASSWORD in the CI secrets, never in the repo; the secret is out of the codebase.",
    f"Fixed in commit {GIT_SHA} on main.",
    f"```\ngit log {GIT_SHA}\nsha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n```",
    "integrity sha512-" + "z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUR/QdPAf7Ew3fLxDnQ==",
    "```\nuuid 123e4567-e89b-12d3-a456-426614174000\n```",
    "see `sentence-transformers/all-MiniLM-L6-v2` and `jupiter_git_memory/embedding/assets/all-MiniLM-L6-v2/`",
    "`HTTPRequestHandlerFactory`, `RecallAnswerSchemaV2Model` and `TestSecretsScannerWorks2` are classes",
    "mysql -u root -p mydb prompts for the password; mysql -P3306 -h db picks the port",
    "docker login -u me --password-stdin registry; docker run -p 8080:80 nginx",
    "mysql -p$MYSQL_PWD db and --password-file /run/secrets/db and -p'<password>'",
    "```\ncurl -H 'Authorization: Basic $CREDS' https://api\n```",
    "An AWS access key id looks like AKIA followed by 16 capitals and digits.",
]


@pytest.mark.parametrize("text", PASSES)
def test_prose_about_passwords_hashes_paths_and_identifiers_are_not_secrets(text):
    assert scan_text(text) == [], text


def test_a_record_about_password_policy_with_git_shas_is_accepted():
    body = (
        f"We rotate the database password every 90 days because the audit requires it; see commit {GIT_SHA} "
        "and `docs/security/password-policy.md`. The password is stored in Vault, never in the repository."
    )
    assert check(inp(kind="decision", title="Rotate the database password every 90 days", body=body)).code is None


def test_normalise_drops_format_characters_and_folds_width():
    assert normalise("gh\u200bp\u200d_\ufeffx\u202e") == "ghp_x"
    assert normalise("\uff21\uff22\uff11") == "AB1"


def test_random_tokens_in_code_are_caught_at_their_usual_rate():
    """Thresholds hold on real randomness, not just on the examples: generated url-safe base64 tokens of 20-40
    characters in a code span, and 40-character base64 secrets anywhere."""
    rnd = random.Random(22)
    in_code = [base64.urlsafe_b64encode(rnd.randbytes(30)).decode()[: rnd.randint(20, 40)] for _ in range(300)]
    caught = sum(bool(scan_text(f"`{t}`")) for t in in_code)
    assert caught >= 0.95 * len(in_code), caught
    bare = [base64.b64encode(rnd.randbytes(30)).decode() for _ in range(300)]
    assert all(scan_text(f"found {t} in the log") for t in bare)


def inp(kind="fact", title="S3 uploads use exponential backoff retries", body="", **kw) -> CandidateInput:
    kw.setdefault("source", "src/upload.py")
    kw.setdefault("agent", "agent-1")
    return CandidateInput(kind, title, body, **kw)


def test_looks_random_at_its_edges():
    from jupiter_git_memory.candidates.secrets import MAX_PIECE, _changes, entropy, looks_random

    token = RANDOM32
    assert looks_random(token, 4.0, 0.45)
    assert not looks_random(token.lower(), 0, 0) and not looks_random(token.upper(), 0, 0)  # both cases needed
    assert not looks_random("ABCDEF" + GIT_SHA, 0, 0)  # hex, whatever its case
    no_digit = "gHkQmLpRxTvWzYbNcDfJ"
    assert not looks_random(no_digit, 0, 0) and looks_random(no_digit, 0, 0, digits=False)
    wordy = "RecallAnswerSchemaV2Model"
    assert not looks_random(wordy, 0, 0) and looks_random(wordy, 0, 0, words=False)
    assert looks_random(token, entropy(token), _changes(token))  # both thresholds are inclusive
    assert not looks_random(token, entropy(token) + 0.01, 0) and not looks_random(token, 0, _changes(token) + 0.01)
    assert _changes("aB1") == 1.0 and _changes("abc/def") == 0.0 and _changes("Ab") == 1.0 and _changes("a") == 0.0
    assert 2.5 < MAX_PIECE < 3.0
