"""Shared fixtures: an isolated store per test, real git repos in temp dirs, the real offline model."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

# tiers: every test resolved to unit | integration | e2e and checked while it runs; pytester: tests of that check;
# embed_memo: a text the real model embedded once in this process is not run through it again (same vector)
pytest_plugins = ["tiers", "pytester", "embed_memo"]

# The `jgm` under test first on PATH, as .ci/run has it: client hooks, `jgm agent status` and the read-only store
# test run `jgm` from PATH as a user's shell would after activating the virtualenv. The README's test command
# (`.venv/bin/python -m pytest`) does not activate it, and these tests then found no `jgm` (or another one).
_BIN = os.path.dirname(sys.executable)  # not resolved: a virtualenv's python is a symlink out of its bin folder
if os.path.exists(os.path.join(_BIN, "jgm")):
    os.environ["PATH"] = os.pathsep.join([_BIN, os.environ.get("PATH", "")])

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def run_git(repo: Path, *args: str, check: bool = True, timeout: float = 300, **kw) -> subprocess.CompletedProcess:
    """`timeout`: a git command (or a hook it runs) that hangs fails the test instead of holding CI."""
    env = dict(os.environ, **GIT_ENV)
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=check, capture_output=True, text=True, env=env, timeout=timeout, **kw
    )


def record_text(
    id: str, kind: str = "decision", status: str = "accepted", title: str | None = None, body: str = "", **extra
) -> str:
    lines = ["---", f"id: {id}", f"kind: {kind}", f"status: {status}", f"title: {title or id}"]
    for k, v in extra.items():
        lines.append(f"{k}: {v}")
    lines.append("---")
    return "\n".join(lines) + "\n" + textwrap.dedent(body).strip() + "\n"


class Repo:
    """A real git repository in a temp dir with helpers to write and commit records."""

    def __init__(self, path: Path):
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        run_git(path, "init", "-q", "-b", "main")
        run_git(path, "config", "user.email", "t@example.com")
        run_git(path, "config", "user.name", "Test")
        run_git(path, "config", "commit.gpgsign", "false")

    def write(self, rel: str, text: str | bytes) -> Path:
        p = self.path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            p.write_bytes(text)
        else:
            p.write_text(text, encoding="utf-8")
        return p

    def record(self, id: str, rel: str | None = None, **kw) -> Path:
        return self.write(rel or f"knowledge/{id}.md", record_text(id, **kw))

    def commit(self, message: str = "update") -> str:
        run_git(self.path, "add", "-A")
        run_git(self.path, "commit", "-q", "--allow-empty", "-m", message)
        return run_git(self.path, "rev-parse", "HEAD").stdout.strip()

    def git(self, *args: str, **kw) -> subprocess.CompletedProcess:
        return run_git(self.path, *args, **kw)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Modules marked `slow` run first, the rest after them in their usual order. Under `--dist loadfile
    --no-loadscope-reorder` (.ci/run) each long module then starts on a worker at once and the many short
    ones fill in behind, so the workers finish together; xdist's default order (most tests first) left the
    long modules, which have few tests, for the end, one worker running them while the other idled."""
    slow = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow)  # stable: the order inside each group is kept


@pytest.fixture(autouse=True)
def jgm_home(request, tmp_path_factory, monkeypatch) -> Path:
    """Every test gets its own store, so tests never share an index."""
    home = tmp_path_factory.mktemp("jgm-home")
    monkeypatch.setenv("JGM_HOME", str(home))
    monkeypatch.delenv("JGM_MODEL", raising=False)
    monkeypatch.delenv("JGM_CHROMA_URL", raising=False)
    monkeypatch.delenv("JGM_CHROMA_TOKEN", raising=False)
    monkeypatch.setenv("JGM_NO_DAEMON", "1")  # in process unless a test asks for the daemon (tests/daemon_helpers.py)
    for k, v in GIT_ENV.items():
        monkeypatch.setenv(k, v)
    if request.node.get_closest_marker("plumbing"):
        _use_fake_model(monkeypatch)
    from jupiter_git_memory.index.vectors import reset_clients

    reset_clients()
    yield home
    reset_clients()


@pytest.fixture
def daemon_on(monkeypatch, jgm_home):
    """The resident recall process enabled for this test's store; stopped afterwards whatever happened."""
    from daemon_helpers import stop_daemon

    monkeypatch.delenv("JGM_NO_DAEMON", raising=False)
    yield jgm_home
    stop_daemon(jgm_home)


@pytest.fixture
def repo(tmp_path) -> Repo:
    return Repo(tmp_path / "repo")


@pytest.fixture
def make_repo(tmp_path):
    def _make(name: str = "repo") -> Repo:
        return Repo(tmp_path / name)

    return _make


@pytest.fixture
def cli(monkeypatch):
    """The CLI in-process (the model loads once per session); `cwd` is where the command runs."""
    from typer.testing import CliRunner

    from jupiter_git_memory.surfaces.cli.main import app

    def run(*args, cwd=None):
        if cwd:
            monkeypatch.chdir(cwd)
        return CliRunner().invoke(app, [str(a) for a in args])

    return run


@pytest.fixture(scope="session")
def embedder():
    """The real offline model (MiniLM int8), loaded once per test session."""
    from jupiter_git_memory.embedding.registry import load_embedder

    return load_embedder()


def _use_fake_model(monkeypatch) -> str:
    from jupiter_git_memory.embedding.fake_embedder import FAKE_HASH, TEST_EMBEDDERS_ENV

    monkeypatch.setenv(TEST_EMBEDDERS_ENV, "1")
    monkeypatch.setenv("JGM_MODEL", FAKE_HASH.name)
    return FAKE_HASH.name


@pytest.fixture
def fake_model(monkeypatch, jgm_home) -> str:
    """The deterministic fake embedder (embedding/fake_embedder.py) for tests of plumbing, not of ranking: the
    registry offers it only under JGM_TEST_EMBEDDERS, and JGM_MODEL makes every seed and recall use it, in
    process and in a `jgm` subprocess alike. Its vectors share words, not meaning: keep the real model for
    ranking, floors, eval and end-to-end tests. A module of such tests says `pytest.mark.plumbing` instead."""
    return _use_fake_model(monkeypatch)


@pytest.fixture
def minilm_dir(tmp_path) -> Path:
    """A local model folder holding the real MiniLM files, as `jgm model add --dir` expects."""
    import shutil

    from jupiter_git_memory.embedding.registry import locate

    _, model, tok = locate("minilm-l6-v2-int8")
    d = tmp_path / "local-model"
    (d / "onnx").mkdir(parents=True)
    shutil.copy(model, d / "onnx" / "model.onnx")
    shutil.copy(tok, d / "tokenizer.json")
    return d


# --- the review UI's browser tests (tests/web_helpers.py): each module gives an `env` with `.ui` and `.server`
@pytest.fixture(scope="module")
def browser(env):
    """Debian's Chromium for the module, started once its `env` serves the UI and closed before that stops."""
    from web_helpers import launch_browser

    pw, b = launch_browser()
    yield b
    b.close()
    pw.stop()


@pytest.fixture(scope="module")
def ctx(browser, env):
    """A browser context logged in with the server's default token (granted every workspace it serves)."""
    from web_helpers import logged_in

    c, p = logged_in(browser, env.ui, env.server.token, width=1280, height=800)
    p.close()
    yield c
    c.close()


@pytest.fixture
def page(ctx):
    p = ctx.new_page()
    yield p
    p.close()
