"""Pure checks of the candidate flow: validation verdicts, secret patterns, the dedup guard, promotion marking."""

from __future__ import annotations

import pytest

from jupiter_git_memory.candidates.dedup import DUPLICATE_COS, Match, classify, disagreement
from jupiter_git_memory.candidates.model import CandidateInput, new_row
from jupiter_git_memory.candidates.secrets import scan_text
from jupiter_git_memory.candidates.validate import check
from jupiter_git_memory.lifecycle.promote import mark_promotions
from jupiter_git_memory.records.row import RecordRow

pytestmark = pytest.mark.unit

GOOD_BODY = "We retry S3 uploads up to five times with exponential backoff, since bursts get throttled by the API."


def inp(kind="fact", title="S3 uploads use exponential backoff retries", body=GOOD_BODY, **kw) -> CandidateInput:
    kw.setdefault("source", "src/upload.py")
    kw.setdefault("agent", "agent-1")
    return CandidateInput(kind, title, body, **kw)


# fake-looking but format-valid secrets, assembled so this file holds no literal token
GITHUB = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
AWS = "AKIA" + "IOSFODNN7EXAMPLQ"
SLACK = "xoxb-" + "123456789012-abcdefghijkl"
OPENAI = "sk-" + "proj-" + "Zq8Lm3Nx7Pw2Rt5Yv9Ka1Bc4De6Fg0Hi"
JWT = "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0" + ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
PEM = "-----BEGIN " + "RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----"
URL_PW = "postgres://deploy:" + "S3cr3tPassw0rd" + "@db.internal:5432/app"
GENERIC = "api_key = " + "9f8e7d6c5b4a39281706f5e4d3c2b1a0"


@pytest.mark.parametrize(
    "secret,what",
    [
        (GITHUB, "a GitHub token"),
        (AWS, "an AWS access key id"),
        (SLACK, "a Slack token"),
        (OPENAI, "an OpenAI/Anthropic-style API key"),
        (JWT, "a JSON Web Token"),
        (PEM, "a private key block"),
        (URL_PW, "a password in a URL"),
        (GENERIC, "a value assigned to api_key"),
    ],
)
def test_each_secret_format_is_detected_and_the_verdict_never_quotes_it(secret, what):
    assert what in scan_text(f"while debugging I saw {secret} in the env")
    v = check(inp(body=f"The deploy job authenticates with {secret} when it pushes images to the registry."))
    assert v.code == "secret" and v.fields == ["body"]
    assert what in v.reason and secret not in v.reason and secret[:12] not in v.reason


@pytest.mark.parametrize("field", ["title", "source", "evidence", "tags", "agent", "run_key"])
def test_secrets_are_found_in_every_field(field):
    kw = {"title": f"Registry login uses {GITHUB}"} if field == "title" else {}
    if field == "source":
        kw["source"] = URL_PW
    elif field == "evidence":
        kw["evidence"] = ["ok.py", AWS]
    elif field == "tags":
        kw["tags"] = [GITHUB]
    elif field in ("agent", "run_key"):
        kw[field] = JWT
    v = check(inp(**kw))
    assert v.code == "secret", v
    assert any(f.startswith(field) or f.startswith(f"provenance.{field}") for f in v.fields)


# issue 10, item 6: a secret-ish name assigned a value, in every quoting style. Values are assembled so this
# file holds none, and none has a provider prefix: the assignment rule must catch them on its own.
TOKENISH = "4f9c2a7e1b8d" + "3f6a0c5e9b2d7a1f4c8e"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYzQ1x9PLMKEY"
PASSWORDISH = "correct" + "horsebattery"
PROVIDERS = [
    ("DB_PASSWORD", PASSWORDISH),
    ("MYSQL_ROOT_PASSWORD", PASSWORDISH),
    ("GITHUB_TOKEN", TOKENISH),
    ("OPENAI_API_KEY", TOKENISH),
    ("AWS_SESSION_TOKEN", AWS_SECRET + TOKENISH),
    ("aws_secret_access_key", AWS_SECRET),
    ("SecretAccessKey", AWS_SECRET),
    ("client_secret", TOKENISH),
    ("signingKey", TOKENISH),
]
FORMS = [
    "{k}={v}",
    "export {k}={v}",
    "{k}: {v}",
    '"{k}": "{v}"',
    "'{k}': '{v}'",
    '{k} = "{v}"',
    "{k}='{v}'",
    "{k} := {v}",
    "{k} => '{v}'",
    "- {k}={v}",
]


@pytest.mark.parametrize("name,value", PROVIDERS)
@pytest.mark.parametrize("form", FORMS)
def test_secret_assignments_are_caught_in_every_form(name, value, form):
    text = "The service config has " + form.format(k=name, v=value) + " in it"
    assert f"a value assigned to {name.lower()}" in scan_text(text), text
    v = check(inp(body=f"Deploys read their settings from the env file. {text}."))
    assert v.code == "secret" and value not in v.reason


@pytest.mark.parametrize(
    "text",
    [
        "password: rotated monthly",
        "tokenizer: tokenizer.json",
        "max_tokens: 512",
        "auth: required",
        "token_url: https://auth.example.com/oauth/token",
        "DB_PASSWORD=${DB_PASSWORD}",
        "api_key: <your key here>",
        "secret_key_base = Rails.application.credentials",
        "cache_key: user-profile-v2",
        "GITHUB_TOKEN=xxxxxxxxxxxxxxxx",
        "sha: 4f9c2a7e1b8d3f6a0c5e9b2d7a1f4c8e3b6d9a2f",
        'the "password": "changeme" placeholder',
    ],
)
def test_secretish_names_with_harmless_values_are_not_flagged(text):
    assert scan_text(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "connect with postgres://user:***@localhost/db",
        "postgres://USER:${DB_PASSWORD}@db/app",
        "the token = getTokenFromVault() call",
        "password = os.environ['PW']",
        "set API_KEY in CI secrets",
        "ghp_ prefix marks GitHub tokens",
        "see https://example.com/a:b",
        "the sk- prefix means a secret key",
    ],
)
def test_masked_or_referenced_secrets_are_not_flagged(text):
    assert scan_text(text) == []


@pytest.mark.parametrize(
    "kw,code",
    [
        ({"kind": "opinion"}, "unknown-kind"),
        ({"kind": "candidate"}, "unknown-kind"),
        ({"title": "   "}, "missing-title"),
        ({"title": "two\nlines here"}, "bad-title"),
        ({"title": "x" * 201}, "bad-title"),
        ({"body": "word " * 60_000}, "too-long"),
        ({"tags": ["has space"]}, "bad-tags"),
        (
            {"title": "Flaky upload test", "body": "fixed it, the upload test passes now after the change was made."},
            "placeholder",
        ),
        ({"body": "The retry loop TODO: document the backoff and its limits here."}, "placeholder"),
        ({"body": "Timeout is TBD until we measure the p99 of the upload endpoint."}, "placeholder"),
        ({"body": "Owner: n/a. The S3 client retries uploads with exponential backoff."}, "placeholder"),
        ({"body": "Bumped the retry count to five; the flaky upload should work after this."}, "placeholder"),
        ({"title": "Retries"}, "too-short"),
        ({"title": "Fixed bug"}, "generic-title"),
        ({"title": "Important findings 2"}, "generic-title"),
        ({"body": "Backoff on uploads."}, "too-short"),
        ({"body": "Uploads\x00 to S3 are retried five times with backoff."}, "bad-text"),
        ({"body": "Uploads to S3 are retried \ud800 five times with backoff."}, "bad-text"),
        (
            {
                "kind": "decision",
                "title": "Use exponential backoff for S3 uploads",
                "body": "S3 uploads are retried up to five times with exponential backoff from now on.",
            },
            "missing-rationale",
        ),
        (
            {
                "kind": "fact",
                "source": None,
                "title": "The upload endpoint retries five times",
                "body": "The upload endpoint retries failed requests five times before it gives up on them.",
            },
            "missing-evidence",
        ),
    ],
)
def test_each_rejection_reason(kw, code):
    assert check(inp(**kw)).code == code


@pytest.mark.parametrize(
    "field,kw,named",
    [  # bidi overrides and isolates, zero-width characters, the BOM, C1 controls: Unicode category Cf or Cc
        ("title", {"title": "S3 uploads use \u202eexponential backoff"}, "U+202E (RIGHT-TO-LEFT OVERRIDE)"),
        ("body", {"body": "Uploads to S3 are re\u200btried five times with backoff."}, "U+200B (ZERO WIDTH SPACE)"),
        ("body", {"body": "Uploads to S3 \u2066are retried\u2069 five times with backoff."}, "U+2066"),
        ("tags[0]", {"tags": ["s3\u200d"]}, "U+200D (ZERO WIDTH JOINER)"),
        ("source", {"source": "\ufeffsrc/upload.py"}, "U+FEFF"),
        ("body", {"body": "Uploads to S3 are retried \x85 five times with backoff."}, "U+0085"),
        ("body", {"body": "Uploads to S3 are retried\r five times with backoff."}, "U+000D (CARRIAGE RETURN)"),
    ],
)
def test_invisible_and_format_characters_are_refused_naming_field_and_character(field, kw, named):
    v = check(inp(**kw))
    assert (v.code, v.fields) == ("bad-text", [field]) and named in v.reason and v.reason.startswith(field), v.reason
    assert check(inp(body=GOOD_BODY.replace(" ", "\r\n", 1))).code is None  # Windows line ends are plain text


def test_passing_candidates_and_their_warnings():
    assert check(inp()).code is None
    dec = check(
        inp(
            kind="decision",
            title="Retry S3 uploads with exponential backoff",
            body="We retry S3 uploads five times with backoff because the API throttles bursts.",
        )
    )
    assert dec.code is None and dec.warnings == []
    # a fact may cite its evidence in the body instead of a source
    assert (
        check(inp(source=None, body="Measured with `pytest -k upload`: the client retries uploads five times.")).code
        is None
    )
    finding = check(
        inp(
            kind="finding",
            source=None,
            title="Upload retries hide throttling errors",
            body="When S3 throttles, the retries succeed silently and nobody sees the throttling happen.",
        )
    )
    assert finding.code is None and any("evidence" in w for w in finding.warnings)
    history = check(
        inp(
            kind="history",
            title="Moved uploads from the old API to S3",
            body="The uploads moved from the old storage API to S3 after the storage outage.",
        )
    )
    assert history.code is None and any("date" in w for w in history.warnings)
    assert any("agent" in w for w in check(inp(agent=None)).warnings)
    assert check(inp(body="The todo app stores its uploads in S3 and retries each one five times.")).code is None


def test_disagreement_catches_corrections_not_paraphrases():
    a = "API tokens expire after 24 hours. Refresh tokens last 30 days."
    assert disagreement(a, "API tokens expire after 1 hour. Refresh tokens last 7 days.") == "the numbers differ"
    assert disagreement(a, "Access tokens live 24 hours; refresh tokens 30 days.") is None
    assert disagreement("Retry S3 uploads 5 times", "Retry S3 uploads five times") is None  # words count as numbers
    assert disagreement("Uploads to S3 retry 5 times", "Uploads to S3 retry 3 times") == "the numbers differ"
    assert disagreement("Tests must share a Chroma dir", "Tests must not share a Chroma dir") == "one is negated"
    assert disagreement("Seen in run 42: uploads retry", "uploads retry") is None  # one side has no numbers


def _row(rid, origin="file", effective="accepted", state=None, **data) -> RecordRow:
    d = dict(data, body=data.get("body", "Uploads to S3 are retried with backoff."))
    if state:
        d["state"] = state
    return RecordRow(
        rid,
        None if origin == "candidate" else f"knowledge/{rid}.md",
        "decision",
        "candidate" if origin == "candidate" else effective,
        effective,
        rid,
        "h",
        "c1",
        False,
        origin,
        d,
    )


def test_classify_skip_beats_merge_and_guarded_matches_only_warn():
    text = "S3 uploads retry\n\nUploads to S3 are retried with backoff."
    rec, cand = _row("dec-x"), _row("cand-1", "candidate", "candidate", "open")
    out = classify([Match("cand-1", 0.97, cand), Match("dec-x", 0.90, rec)], text)
    assert out.decision == "skipped" and out.matched.record_id == "dec-x"
    out = classify([Match("cand-1", DUPLICATE_COS, cand)], text)
    assert out.decision == "merged" and out.matched.record_id == "cand-1"
    out = classify([Match("cand-1", DUPLICATE_COS - 0.01, cand)], text)
    assert out.decision == "created" and "cand-1" in out.warnings[0]
    rejected = _row("cand-2", "candidate", "rejected", "rejected", reason="not true")
    out = classify([Match("cand-2", 0.99, rejected)], text)
    assert out.decision == "created" and "not true" in out.warnings[0]
    proposed_file = _row("dec-p", effective="proposed")
    assert classify([Match("dec-p", 0.99, proposed_file)], text).decision == "created"
    corrected = _row("dec-y", body="Uploads to S3 are retried 3 times with backoff.")
    out = classify([Match("dec-y", 0.99, corrected)], text + " Up to 5 times.")
    assert out.decision == "created" and "numbers differ" in out.warnings[0]


def test_mark_promotions_follows_committed_files_both_ways():
    cand = new_row("cand-abc123abc123", inp(), None, [])
    file_row = _row("fact-x", metadata={"candidate": "cand-abc123abc123"})
    desired = mark_promotions({cand.id: cand, file_row.id: file_row})
    p = desired[cand.id]
    assert p.data["state"] == "promoted" and p.data["promoted_to"] == "fact-x" and p.effective_status == "superseded"
    # the view's own row (dec-candidate-promotion-per-view): the shared row stays as it was
    assert p.origin == "promotion" and p.content_hash != cand.content_hash and cand.data["state"] == "open"
    # an uncommitted (dirty) file does not promote
    dirty = RecordRow(**{**file_row.__dict__, "dirty": True})
    assert mark_promotions({cand.id: cand, dirty.id: dirty})[cand.id].data["state"] == "open"
    # a shared row promoted by an older store, seen where no file claims it: the state before promotion
    legacy = RecordRow(**{**p.__dict__, "origin": "candidate", "content_hash": cand.content_hash})
    back = mark_promotions({cand.id: legacy})[cand.id]
    assert back.data["state"] == "open" and back.effective_status == "candidate" and "promoted_to" not in back.data
    assert back.origin == "promotion"
    # claimed by the same file again: the shared row already says so, nothing of the view's own
    assert mark_promotions({cand.id: legacy, file_row.id: file_row})[cand.id] is legacy


# --- rules the mutation bench showed no test stated (issue 17) ---


@pytest.mark.parametrize(
    "text",
    [
        'password = "letmein"',
        'password = "my.pass.word"',
        "password: hunter2",
        "PASSWORD=hunter_2",
        "PASSWD = s3cret!",
        "PWD=abc-def1",
        "api_key = ABCDEF1234567890XYZ",
        "token = abcdefgh12345678",
    ],
)
def test_assigned_secrets_are_flagged(text):
    assert scan_text(f"config: {text}") != [], text


@pytest.mark.parametrize(
    "text",
    [
        'password = "********"',
        "password = settings.db_pass",
        "password = letmein",
        "token = abcdefg1234567",
        "api_key = abcdefghijklmnopqrstu",
        "api_key = 12345678901234567890",
        "api_key = $deploy_key_1234567890",
        "api_key = %KEY_FROM_ENV%1234567890ab",
        "api_key = <your-key>1234567890abc",
        "api_key = {vault_key_1234567890}",
        "api_key = vault.read(key_1234567890)",
    ],
)
def test_references_masks_words_and_short_tokens_are_not_secrets(text):
    """Quoted passwords always count; unquoted ones need a digit or symbol and no dotted reference. Other names
    need at least 16 characters with letters and digits; references ($X, %X%, <x>, {x}, calls) never count."""
    assert scan_text(f"config: {text}") == [], text


def test_disagreement_needs_disjoint_numbers_and_negation_on_one_side_only():
    assert disagreement("retry 5 times within 30 seconds", "retry 5 times") is None  # one says more, not other
    assert disagreement("retry 5 times", "retry 5 times within 30 seconds") is None
    assert disagreement("Tests must not share a dir", "Tests never share a dir") is None  # both negated
    assert disagreement("Tests share a dir", "Tests must not share a dir") == "one is negated"


def test_classify_reports_machine_codes_and_every_similar_match():
    text = "S3 uploads retry\n\nUploads to S3 are retried with backoff."
    created = classify([Match("a", 0.75, _row("a")), Match("b", 0.72, _row("b"))], text)
    assert (created.decision, created.reason_code, created.matched) == ("created", "new", None)
    assert created.reason and len(created.warnings) == 2 and "a" in created.warnings[0] and "b" in created.warnings[1]
    assert all("contradicts" not in w for w in created.warnings)
    skipped = classify([Match("a", 0.95, _row("a")), Match("c", 0.8, _row("c"))], text)
    assert (skipped.decision, skipped.reason_code) == ("skipped", "duplicate-of-record")
    assert "a" in skipped.reason and "0.95" in skipped.reason and len(skipped.warnings) == 1
    cand = _row("cand-1", "candidate", "candidate", "open")
    merged = classify([Match("cand-1", 0.9, cand), Match("c", 0.8, _row("c"))], text)
    assert (merged.decision, merged.reason_code) == ("merged", "duplicate-of-candidate")
    assert "cand-1" in merged.reason and "0.90" in merged.reason and len(merged.warnings) == 1


def test_near_duplicate_of_a_retired_record_or_closed_candidate_only_warns():
    text = "S3 uploads retry\n\nUploads to S3 are retried with backoff."
    old = classify([Match("old", 0.95, _row("old", effective="superseded"))], text)
    assert old.decision == "created" and "old" in old.warnings[0]
    promoted = _row("cand-p", "candidate", "candidate", "promoted")
    out = classify([Match("cand-p", 0.95, promoted)], text)
    assert out.decision == "created" and "cand-p" in out.warnings[0] and "rejected" not in out.warnings[0]
    no_reason = classify([Match("cand-r", 0.95, _row("cand-r", "candidate", "rejected", "rejected"))], text)
    assert "cand-r" in no_reason.warnings[0] and "reason" in no_reason.warnings[0]


def test_a_record_without_a_body_is_compared_by_its_title():
    row = RecordRow(
        "t", "knowledge/t.md", "decision", "accepted", "accepted", "Uploads retry", "h", "c1", False, "file", {}
    )
    assert classify([Match("t", 0.95, row)], "Uploads retry").decision == "skipped"


@pytest.mark.parametrize(
    "kw,fields",
    [
        ({"kind": "opinion"}, ["kind"]),
        ({"title": "   "}, ["title"]),
        ({"title": "x" * 201}, ["title"]),
        ({"body": "word " * 60_000}, ["body"]),
        ({"tags": ["has space"]}, ["tags"]),
        ({"tags": ["t"] * 21}, ["tags"]),
        ({"title": "Fix the TODO in uploads"}, ["title"]),
        ({"body": "The retry loop TODO: document the backoff here."}, ["body"]),
        ({"title": "Retries"}, ["title"]),
        ({"title": "Fixed bug"}, ["title"]),
        ({"body": "Backoff on uploads."}, ["body"]),
        ({"body": "Uploads\x00 to S3 are retried five times with backoff."}, ["body"]),
        (
            {
                "kind": "adr",
                "title": "Use exponential backoff for S3 uploads",
                "body": "S3 uploads are retried up to five times with exponential backoff from now on.",
            },
            ["body"],
        ),
        (
            {
                "kind": "fact",
                "source": None,
                "title": "The upload endpoint retries five times",
                "body": "The upload endpoint retries failed requests five times before it gives up on them.",
            },
            ["source", "evidence"],
        ),
    ],
)
def test_every_rejection_names_the_field_to_fix_and_how(kw, fields):
    v = check(inp(**kw))
    assert v.code is not None and v.fields == fields and v.reason and v.reason != "passes the checks"


def test_rejection_reasons_carry_the_hint_users_act_on():
    assert (
        "because"
        in check(
            inp(
                kind="adr",
                title="Use exponential backoff for S3 uploads",
                body="S3 uploads are retried up to five times with exponential backoff from now on.",
            )
        ).reason
    )
    assert (
        "source"
        in check(
            inp(
                source=None,
                title="The upload endpoint retries five times",
                body="The upload endpoint retries failed requests five times before it gives up.",
            )
        ).reason
    )
    assert "TODO" in check(inp(body="The retry loop TODO: document the backoff and its limits here.")).reason
    assert "200" in check(inp(title="x" * 201)).reason and "20" in check(inp(tags=["t"] * 21)).reason


def test_only_findings_are_warned_about_missing_evidence():
    dec = check(
        inp(
            kind="decision",
            source=None,
            title="Retry S3 uploads with exponential backoff",
            body="We retry S3 uploads five times with backoff because the API throttles bursts.",
        )
    )
    assert dec.code is None and dec.warnings == []
    ok = check(inp())
    assert (ok.code, ok.fields, ok.warnings) == (None, [], []) and isinstance(ok.reason, str) and ok.reason


def test_a_match_summary_names_the_record_and_a_candidate_state_only_for_candidates():
    cand = Match("cand-1", 0.912345, _row("cand-1", "candidate", "candidate", "open"))
    assert cand.summary() == {
        "id": "cand-1",
        "kind": "decision",
        "status": "candidate",
        "title": "cand-1",
        "origin": "candidate",
        "path": None,
        "cos": 0.9123,
        "state": "open",
    }
    rec = Match("dec-x", 0.9, _row("dec-x", state="open")).summary()
    assert rec["state"] is None and rec["path"] == "knowledge/dec-x.md" and rec["status"] == "accepted"


def test_a_missing_title_or_body_is_empty_not_text():
    assert check(inp(title=None)).code == "missing-title"
    v = check(inp(body=None))
    assert v.code == "too-short" and v.fields == ["body"]


@pytest.mark.parametrize(
    "text,secret",
    [
        ("password=letmein", True),
        ("Password: letmein", True),
        ("db_password: letmein", True),  # env / config-style
        ("password: letmein", False),  # a plain word after a plain name needs a digit or symbol
        ("DB_PASSWORD=abababab", False),
        ("DB_PASSWORD=abcabcab", True),  # two distinct characters are filler
        ('DB_PASSWORD="***redacted***"', False),
        ('password = "xxchangemexx"', False),  # masked placeholders
        ("token: https://vault.internal/tokens/Zx81Kq02Lm93Nb74", False),  # a URL points at a secret, is not one
        ("session_token: 8271-5530-9146-2278", True),  # digits and symbols are two classes
        ("api_key = a1b2c3d4a1b2c3d4", True),  # exactly 3 bits of entropy per character
        ("api_key = aaaaaaaaaaaaaaaaaaaa1B", False),  # long but low entropy
        ("api_keys = Zx81Kq02Lm93Nb74Vc65", True),
        ("access_level: Zx81Kq02Lm93Nb74Vc65", False),
        ("primary_key: Zx81Kq02Lm93Nb74Vc65", False),  # `key` needs a qualifier word (api, access, secret, ...)
        ("api_key = rotate-every-week-please", False),  # no digit and no capital: words, not a token
        ("api_key = Kq-vbnmzxlwprtyhsd", True),  # a capital before small letters is enough without digits
    ],
)
def test_assignment_rules_at_their_edges(text, secret):
    assert bool(scan_text(f"config: {text}")) is secret, text


def test_limits_are_inclusive():
    from jupiter_git_memory.candidates.validate import MAX_BODY_BYTES, MAX_TAGS, MAX_TITLE_CHARS

    title = "S3 uploads use exponential backoff retries "
    assert check(inp(title=(title * 10)[:MAX_TITLE_CHARS])).code is None
    assert check(inp(title=(title * 10)[:MAX_TITLE_CHARS] + "x")).code == "bad-title"
    body = (GOOD_BODY + " ") * (MAX_BODY_BYTES // len(GOOD_BODY))
    assert check(inp(body=body[:MAX_BODY_BYTES])).code is None
    assert check(inp(body=body[:MAX_BODY_BYTES] + "x")).code == "too-long"
    assert check(inp(tags=[f"t{i}" for i in range(MAX_TAGS)])).code is None
    assert check(inp(tags=[f"t{i}" for i in range(MAX_TAGS + 1)])).code == "bad-tags"


def test_title_and_body_length_bounds_are_inclusive_and_both_must_hold():
    assert check(inp(title="Idempotency")).code == "too-short"  # long enough, but one word
    assert check(inp(title="Use gRPC")).code is None  # exactly 8 characters, two words
    assert check(inp(body="We use a b c d e.")).code == "too-short"  # six words, under 30 characters
    assert check(inp(body="Uploads retry because S3 throttles")).code == "too-short"  # five words, 35 characters
    assert check(inp(body="Uploads retry, because S3 bursts hurt.")).code is None  # exactly 6 words
    assert check(inp(body="Uploads retry when S3 is busy.")).code is None  # exactly 30 characters, 6 words


def test_a_history_date_in_the_title_is_enough():
    v = check(inp(kind="history", title="Uploads moved to S3 in 2023-04", body=GOOD_BODY))
    assert v.code is None and not any("date" in w for w in v.warnings)


# -- structured write-back fields (issue 23) -----------------------------------------------------------

FINDING = ("Orders deadlock when workers lock rows in different orders", "Lock by id.")


def finding(title=FINDING[0], body=FINDING[1], **kw) -> CandidateInput:
    kw.setdefault("agent", "agent-1")
    return CandidateInput("finding", title, body, **kw)


def test_a_finding_with_verification_and_evidence_is_not_low_signal():
    """Before: a two-word body was `too-short` whatever else the agent said."""
    assert check(finding()).code == "too-short"
    assert check(finding(verification="the suite passes")).code == "too-short"  # no evidence
    ok = check(finding(verification="the suite passes", evidence=["commit 4f2a9c1"]))
    assert ok.code is None and ok.warnings == []
    # a trigger and a change count towards the body, and a decision's reason may sit in its trigger
    dec = CandidateInput(
        "decision",
        "Lock order rows sorted by id",
        "Lock sorted.",
        trigger="because two workers deadlocked on the same orders",
        change="OrdersRepo sorts ids before locking",
        agent="a",
    )
    assert check(dec).code is None


@pytest.mark.parametrize(
    "extra,code,field",
    [
        ({"scope": "global"}, "bad-scope", "scope"),
        ({"files": ["/etc/passwd"]}, "bad-files", "files"),
        ({"files": ["src/../../x.py"]}, "bad-files", "files"),
        ({"files": [f"f{i}.py" for i in range(51)]}, "bad-files", "files"),
        ({"supersedes": ["not an id"]}, "bad-supersedes", "supersedes"),
        ({"supersedes": [f"d{i}" for i in range(6)]}, "bad-supersedes", "supersedes"),
        ({"verification": "should work now"}, "placeholder", "verification"),
        ({"change": "x" * 4001}, "too-long", "change"),
        ({"trigger": "export GITHUB_TOKEN=" + "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"}, "secret", "trigger"),
    ],
)
def test_structured_fields_are_checked(extra, code, field):
    v = check(finding(**{"evidence": ["commit 4f2a9c1"], "verification": "pytest -k deadlock passes", **extra}))
    assert (v.code, v.fields) == (code, [field]), v.reason


def test_chinese_candidates_are_measured_in_words_not_latin_letters():
    """A Chinese title and body, written without spaces, are long enough by what they say (found by the CJK
    work: `確認郵件由背景工作佇列發送` was refused as too short)."""
    zh = inp(
        title="確認郵件由背景工作佇列發送",
        body="結帳完成後由 Celery 背景工作發送確認郵件，失敗時重試三次並記錄在監控面板上。",
    )
    assert check(zh).code not in ("too-short",)
    assert check(inp(title="郵件")).code == "too-short"  # one word is still too short
    assert check(inp(body="重試三次。")).code == "too-short"
