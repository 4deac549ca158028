"""Chroma server mode against a real `chroma run` started by the test."""

import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from jupiter_git_memory.recall.service import Recaller
from jupiter_git_memory.seed.seeder import Seeder


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def chroma_server(tmp_path_factory):
    exe = shutil.which("chroma") or str(Path(sys.executable).parent / "chroma")
    port = _free_port()
    data = tmp_path_factory.mktemp("chroma-server")
    proc = subprocess.Popen(
        [exe, "run", "--path", str(data), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/api/v2/heartbeat", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.3)
    else:
        proc.kill()
        pytest.fail("chroma run did not start")
    yield url
    proc.terminate()
    proc.wait(timeout=20)


def test_seed_and_recall_through_chroma_server(repo, chroma_server, monkeypatch):
    monkeypatch.setenv("JGM_CHROMA_URL", chroma_server)
    repo.record("DEC-DB", title="Store vectors in Chroma", body="Embeddings are persisted in a Chroma collection.")
    repo.record(
        "FACT-PY",
        kind="fact",
        status="verified",
        title="CI runs Python 3.11 and 3.12",
        body="The CI matrix covers Python 3.11 and 3.12.",
    )
    repo.commit()
    s = Seeder(repo.path)
    r = s.seed()
    assert sorted(r.added) == ["DEC-DB", "FACT-PY"] and r.embedded_chunks == 2
    idx = s.open()
    try:
        assert idx.vectors.location == chroma_server and idx.vectors.count() == 2
    finally:
        idx.close()
    # the data lives on the server, not in the workspace folder
    assert not (s.wsdir / "chroma").exists()
    res = Recaller(repo.path).recall("Which Python versions does CI test?", k=1)
    assert [x["id"] for x in res.results] == ["FACT-PY"]
    assert s.seed().embedded_chunks == 0
