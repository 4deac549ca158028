"""Chroma server mode against a real `chroma run` started by the test."""

import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from jupiter_git_memory.recall.service import Recaller, RecallError
from jupiter_git_memory.seed.seeder import Seeder

pytestmark = pytest.mark.e2e


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


def _server_collections(url: str) -> dict[str, int]:
    """What the `chroma run` server holds: collection name -> number of vectors."""
    import chromadb

    u = httpx.URL(url)
    client = chromadb.HttpClient(host=u.host, port=u.port)
    return {c.name: c.count() for c in client.list_collections()}


def test_a_branch_cannot_send_the_index_to_its_chroma_url_without_approval(repo, chroma_server, monkeypatch, jgm_home):
    """A branch's jgm.toml names a server; checking it out runs the hook, which reseeds. Nothing reaches the
    server until the user approves that exact URL with the command the warning prints."""
    import shlex

    from jupiter_git_memory.freshness import githooks
    from jupiter_git_memory.git.workspace import find_workspace
    from jupiter_git_memory.index.handle import collection_name, store_owner

    monkeypatch.setenv("JGM_HOOK_SYNC", "1")  # the hook's reseed in the foreground: its outcome is known on return
    repo.record("DEC-DB", title="Store vectors in Chroma", body="Embeddings are persisted in a Chroma collection.")
    repo.commit()
    repo.git("checkout", "-q", "-b", "remote")
    repo.write("jgm.toml", f'chroma_url = "{chroma_server}"\n')
    repo.record("FACT-Q", kind="fact", status="unverified", title="The queue holds jobs", body="Jobs wait in Redis.")
    repo.commit("use a shared chroma")
    repo.git("checkout", "-q", "main")
    githooks.install(repo.path)
    ws_id = find_workspace(repo.path).id
    name = collection_name(ws_id)  # on the server a store's collections are named `<name>-s<store tag>…`

    out = repo.git("checkout", "-q", "remote")
    assert "reindexed after post-checkout" in out.stderr, out.stderr  # the hook did seed: locally
    assert not [n for n in _server_collections(chroma_server) if n.startswith(name)]
    warning = next((line for line in out.stderr.splitlines() if "warning:" in line), "")
    assert "jgm.toml" in warning and "`chroma_url`" in warning and chroma_server in warning, out.stderr
    assert "config jgm.trust-chroma-url" in warning, warning
    rep = Seeder(repo.path).seed()
    assert [(w["path"], w["severity"]) for w in rep.warnings if "chroma_url" in w["message"]] == [
        (str(repo.path / "jgm.toml"), "warning")
    ]
    res = Recaller(repo.path).recall("Where do jobs wait?", k=2)  # the local index answers, and says why
    assert [r["id"] for r in res.results][:1] == ["FACT-Q"]
    assert any("jgm.trust-chroma-url" in w for w in res.warnings), res.warnings
    assert not [n for n in _server_collections(chroma_server) if n.startswith(name)]

    approve = warning.split("To approve this exact URL: ", 1)[1]
    subprocess.run(shlex.split(approve), check=True, capture_output=True, timeout=30)  # the command, as printed
    repo.git("checkout", "-q", "main")
    out = repo.git("checkout", "-q", "remote")  # the hook again, now with the URL approved
    assert "warning:" not in out.stderr and "reindexed after post-checkout" in out.stderr, out.stderr
    assert _server_collections(chroma_server).get(collection_name(ws_id, store_owner(jgm_home, create=False))) == 2
    res = Recaller(repo.path).recall("Where do jobs wait?", k=2)
    assert [r["id"] for r in res.results][:1] == ["FACT-Q"] and not any("approv" in w for w in res.warnings)


def test_a_workspace_whose_vectors_are_on_an_unapproved_server_says_so(make_repo, chroma_server):
    """Seeded only to an approved server, then the approval withdrawn: the local index has records but no
    vectors, so recall refuses with the reason and both fixes instead of answering empty."""
    repo = make_repo("shared")
    repo.write("jgm.toml", f'chroma_url = "{chroma_server}"\n')
    repo.record("FACT-Q", kind="fact", status="verified", title="The queue holds jobs", body="Jobs wait in Redis.")
    repo.commit()
    repo.git("config", "jgm.trust-chroma-url", chroma_server)
    first = Seeder(repo.path).seed()  # the module's server may hold the text's vector already (index.shared)
    assert first.embedded_chunks + first.fetched_chunks == 1
    repo.git("config", "--unset-all", "jgm.trust-chroma-url")
    with pytest.raises(RecallError, match=r"no vector in Chroma.*`jgm seed`.*jgm\.toml.*jgm\.trust-chroma-url"):
        Recaller(repo.path).recall("Where do jobs wait?", k=2)
    assert Seeder(repo.path).seed().embedded_chunks == 1  # what the message says: embedded here
    res = Recaller(repo.path).recall("Where do jobs wait?", k=2)
    assert [r["id"] for r in res.results] == ["FACT-Q"] and any("jgm.trust-chroma-url" in w for w in res.warnings)
