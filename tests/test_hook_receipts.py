"""The prompt hook keeps no prompt text (issue 35, item 8): a prompt is the user's words, pasted secrets
included, and receipts are shown by `jgm receipt show`, the API and the review page. Real hook process, real
catalog file: the text is in none of its bytes, its hash is in the receipt."""

from __future__ import annotations

import json
import re

import pytest
from cli_helpers import jgm_in
from helpers import jgm, seeded

from jupiter_git_memory.recall.receipts import query_hash

pytestmark = pytest.mark.e2e

RECORDS = {"dec-cache": {"title": "We cache sessions in Redis", "body": "Sessions live in Redis: lookups are hot."}}
SECRET = "ghp_" + "Zx9" * 12


def test_a_prompts_receipt_keeps_its_hash_not_its_text(repo, jgm_home):
    seeded(repo, RECORDS)
    prompt = f"where do sessions live? the deploy token is {SECRET}"
    p = jgm("hook", "claude-code", "prompt", input=json.dumps({"cwd": str(repo.path), "prompt": prompt}))
    text = json.loads(p.stdout)["hookSpecificOutput"]["additionalContext"]
    (rid,) = re.findall(r"rcpt_[0-9a-f]{20}", text)
    shown = jgm_in("receipt", "show", rid, "--json", cwd=repo.path)
    assert shown.returncode == 0, shown.stderr
    receipt = json.loads(shown.stdout)
    assert SECRET not in shown.stdout and "deploy token" not in shown.stdout
    assert receipt["ids"] == ["dec-cache"] and receipt["request"]["goal_sha256"] == query_hash(prompt)
    assert receipt["query"] == "" and receipt["request"]["goal"] is None
    stored = b"".join(f.read_bytes() for f in jgm_home.glob("workspaces/*/catalog.sqlite*"))
    assert SECRET.encode() not in stored and b"deploy token" not in stored
    verify = jgm_in("receipt", "verify", rid, cwd=repo.path)
    assert verify.returncode != 0 and "keeps the prompt's hash, not its text" in verify.stderr, verify.stderr
    # the session brief's receipt asks about the branch and commits, no user's words: it stays replayable
    repo.git("checkout", "-q", "-b", "move-sessions-out-of-redis")
    brief = jgm("hook", "claude-code", "session-start", input=json.dumps({"cwd": str(repo.path)}))
    (bid,) = re.findall(r"rcpt_[0-9a-f]{20}", json.loads(brief.stdout)["hookSpecificOutput"]["additionalContext"])
    assert jgm_in("receipt", "verify", bid, cwd=repo.path).returncode == 0


def test_an_invalid_byte_in_a_prompt_costs_it_nothing(repo):
    """Issue 35, item 17: one invalid UTF-8 byte (or a JSON lone surrogate) lost the prompt its memory."""
    import subprocess

    from helpers import JGM_EXE

    seeded(repo, RECORDS)
    raw = b'{"cwd": "' + str(repo.path).encode() + b'", "prompt": "where do sessions live \xff\xfe?"}'
    escaped = json.dumps({"cwd": str(repo.path), "prompt": "where do sessions live \udcff?"}).encode()
    for stdin in (raw, escaped):
        p = subprocess.run([JGM_EXE, "hook", "claude-code", "prompt"], input=stdin, capture_output=True, timeout=120)
        assert p.returncode == 0, p.stderr
        out = json.loads(p.stdout)
        assert "systemMessage" not in out and "dec-cache" in out["hookSpecificOutput"]["additionalContext"], out
