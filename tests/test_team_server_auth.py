"""Who may write to the team's server (issue 39): tokens through the gate in front of a real `chroma run`."""

from __future__ import annotations

import subprocess
import sys

import pytest
from chroma_helpers import start_chroma, start_gate, stop

from jupiter_git_memory.base import error_codes as E
from jupiter_git_memory.index.server_auth import ChromaAuthRefused, ChromaReadOnly
from jupiter_git_memory.index.vectors import reset_clients
from jupiter_git_memory.recall.service import Recaller
from jupiter_git_memory.seed.seeder import Seeder
from jupiter_git_memory.surfaces.chroma_gate import allowed, parse_tokens

pytestmark = pytest.mark.e2e

WRITE, READ = "w-7f3a9c2e51", "r-0b6d4e8a17"


@pytest.fixture(scope="module")
def gate(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("team-auth")
    tokens = tmp / "tokens"
    tokens.write_text(f"# the team's tokens\n{WRITE} write\n{READ} read\n", encoding="utf-8")
    url, chroma = start_chroma(tmp / "data")
    gate_url, proc = start_gate(url, tokens)
    yield gate_url
    stop(proc)
    stop(chroma)


@pytest.fixture
def seeded(repo, gate, monkeypatch):
    monkeypatch.setenv("JGM_CHROMA_URL", gate)
    monkeypatch.setenv("JGM_CHROMA_TOKEN", WRITE)
    repo.record("DEC-QUEUE", title="Jobs wait in a Redis queue", body="Background jobs are pushed to Redis.")
    repo.record("FACT-PY", kind="fact", status="verified", title="CI runs Python 3.12", body="The CI uses 3.12.")
    repo.commit()
    done = Seeder(repo.path).seed()
    assert done.embedded_chunks + done.fetched_chunks == 2  # the module's server may hold them already
    return repo


def _ids(root) -> list[str]:
    return [r["id"] for r in Recaller(root).recall("Where do background jobs wait?", k=1).results]


def test_a_read_only_token_recalls_and_a_seed_is_refused_by_name(seeded, monkeypatch, jgm_home):
    monkeypatch.setenv("JGM_CHROMA_TOKEN", READ)
    reset_clients()
    assert _ids(seeded.path) == ["DEC-QUEUE"]
    seeded.record("DEC-NEW", title="Logs go to Loki", body="Every service ships its logs to Loki.")
    with pytest.raises(ChromaReadOnly) as got:
        Seeder(seeded.path).seed()
    assert got.value.code == E.INDEX_CHROMA_READ_ONLY.code and "write token" in str(got.value)
    # the same token from the store's file (never the repository's): recall still answers
    monkeypatch.delenv("JGM_CHROMA_TOKEN")
    (jgm_home / "chroma-token").write_text(READ + "\n", encoding="utf-8")
    reset_clients()
    assert _ids(seeded.path) == ["DEC-QUEUE"]
    out = subprocess.run(
        [sys.executable, "-m", "jupiter_git_memory", "seed", "--repo", str(seeded.path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == E.INDEX_CHROMA_READ_ONLY.exit_code and E.INDEX_CHROMA_READ_ONLY.code in out.stderr


@pytest.mark.parametrize("token", [None, "not-a-team-token"])
def test_a_missing_or_wrong_token_names_what_to_set(seeded, monkeypatch, token, jgm_home):
    if token:
        monkeypatch.setenv("JGM_CHROMA_TOKEN", token)
    else:
        monkeypatch.delenv("JGM_CHROMA_TOKEN")
    reset_clients()
    with pytest.raises(ChromaAuthRefused) as got:
        Seeder(seeded.path).seed()
    text = str(got.value)
    assert got.value.code == E.INDEX_CHROMA_AUTH.code
    assert "JGM_CHROMA_TOKEN" in text and str(jgm_home / "chroma-token") in text
    assert ("was refused" if token else "sent no token") in text
    out = subprocess.run(
        [sys.executable, "-m", "jupiter_git_memory", "recall", "--repo", str(seeded.path), "jobs"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode != 0 and "JGM_CHROMA_TOKEN" in out.stderr, out.stderr[-2000:]


@pytest.mark.unit
def test_the_gate_lets_a_read_token_only_read():
    assert parse_tokens("a write\n# x\nb read  # ci\n") == {"a": "write", "b": "read"}
    with pytest.raises(ValueError, match="line 1"):
        parse_tokens("a admin\n")
    with pytest.raises(ValueError, match="^/etc/jgm/chroma-tokens line 2: "):  # the file is named
        parse_tokens("a read\nb admin\n", "/etc/jgm/chroma-tokens")
    base = "/api/v2/tenants/t/databases/d/collections"
    assert allowed("read", "POST", f"{base}/abc/query") == 200
    assert allowed("read", "GET", f"{base}/abc/count") == 200
    assert allowed("read", "POST", f"{base}/abc/upsert") == 403
    assert allowed("read", "POST", base) == 403  # creating a collection writes
    assert allowed("read", "DELETE", f"{base}/abc") == 403
    assert allowed("write", "POST", f"{base}/abc/upsert") == 200
    assert allowed(None, "GET", f"{base}/abc/count") == 401
    assert allowed(None, "GET", "/api/v2/heartbeat") == 200
