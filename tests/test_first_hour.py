"""The first hour, as a newcomer meets it: one store every entry point agrees on, honest empty answers.

Real parts: the `jgm` CLI as a subprocess, the MCP SDK's own stdio client (which passes only its short
environment allow-list, so no JGM_HOME), real git hooks, real repos.
"""

from __future__ import annotations

import json
import os
import re
import subprocess

import anyio
import pytest
from api_helpers import JGM, client_env
from conftest import GIT_ENV, run_git
from helpers import TIMEOUT, jgm
from hooks_helpers import snapshot

from jupiter_git_memory.git.workspace import find_workspace

pytestmark = pytest.mark.unit


def bare_env(tmp_path, **extra) -> dict:
    """A shell that never heard of our store: no JGM_HOME, and a HOME whose default store is empty."""
    env = {k: v for k, v in os.environ.items() if k != "JGM_HOME"}
    fresh = tmp_path / "fresh-home"
    fresh.mkdir(exist_ok=True)
    return {**env, "HOME": str(fresh), "XDG_DATA_HOME": str(fresh / ".local/share"), **GIT_ENV, **extra}


def mcp_session(args: list[str], env: dict, session_fn):
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=JGM, args=args, env=env)

    async def main():
        with anyio.fail_after(TIMEOUT):
            # a Transport, not the parameters themselves: mcp 2.0 (our lower bound) takes only that
            async with Client(stdio_client(params), read_timeout_seconds=120) as client:
                return await session_fn(client)

    return anyio.run(main)


def test_resolution_order_flag_env_git_config_default(repo, tmp_path, monkeypatch):
    from jupiter_git_memory.base.home import default_home
    from jupiter_git_memory.git import home as home_mod

    repo.commit("start")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("JGM_HOME")
    assert home_mod.resolve_home(repo=repo.path) == (default_home(), "default")
    repo.git("config", "jgm.home", str(tmp_path / "from-config"))
    assert home_mod.resolve_home(repo=repo.path) == (tmp_path / "from-config", "git config jgm.home")
    monkeypatch.setenv("JGM_HOME", str(tmp_path / "from-env"))
    assert home_mod.resolve_home(repo=repo.path) == (tmp_path / "from-env", "JGM_HOME")
    assert home_mod.resolve_home(tmp_path / "flag", repo.path) == (tmp_path / "flag", "--home")


def test_the_chosen_store_is_kept_in_process_not_written_into_the_environment(tmp_path, monkeypatch):
    """use_store keeps its answer for this process; os.environ is left as it was (a child we start is given
    the store in its env: store_env), and a JGM_HOME changed after the choice wins."""
    from jupiter_git_memory.base import home as base_home
    from jupiter_git_memory.base.store import store_path
    from jupiter_git_memory.git import home as home_mod

    monkeypatch.setattr(base_home, "_chosen", None)
    monkeypatch.setenv("JGM_HOME", str(tmp_path / "from-env"))
    assert home_mod.use_store(tmp_path / "flag") == tmp_path / "flag"
    assert os.environ["JGM_HOME"] == str(tmp_path / "from-env")
    assert store_path() == tmp_path / "flag"
    assert home_mod.current_store() == {"path": str(tmp_path / "flag"), "source": "--home"}
    assert base_home.store_env(tmp_path / "flag", {"PATH": "/bin"}) == {
        "PATH": "/bin",
        "JGM_HOME": str(tmp_path / "flag"),
    }
    monkeypatch.setenv("JGM_HOME", str(tmp_path / "later"))
    assert store_path() == tmp_path / "later"
    assert home_mod.current_store() == {"path": str(tmp_path / "later"), "source": "JGM_HOME"}


@pytest.mark.e2e
def test_seeded_store_reaches_an_mcp_client_that_passes_no_jgm_home(make_repo, tmp_path, jgm_home, cli):
    """Done-when, MCP half: seed with a non-default store, then a stock SDK stdio client finds it."""
    r = make_repo("svc")
    r.record("dec-queue", title="Use RabbitMQ for background jobs", body="Jobs go through RabbitMQ because it acks.")
    r.commit("knowledge")
    env = client_env(HOME=str(tmp_path / "client-home"))
    assert "JGM_HOME" not in env

    async def ask(client):
        return await client.call_tool("recall", {"query": "Which message broker runs background jobs?"})

    before = mcp_session(["mcp", "--repo", str(r.path)], env, ask)  # not seeded anywhere it can see
    text = " ".join(c.text for c in before.content if getattr(c, "text", None))
    assert before.is_error and "[memory/not-seeded]" in text and "jgm seed --repo" in text
    assert str(tmp_path / "client-home") in text  # names the store it looked in

    seeded = cli("seed", "--repo", r.path, "--json")
    assert seeded.exit_code == 0, seeded.output
    assert run_git(r.path, "config", "--get", "jgm.home").stdout.strip() == str(jgm_home)
    after = mcp_session(["mcp", "--repo", str(r.path)], env, ask)
    assert not after.is_error and after.structured_content["records"][0]["id"] == "dec-queue"


def test_hooks_reindex_into_the_recorded_store_without_jgm_home(repo, tmp_path, jgm_home, cli):
    """Done-when, hooks half: `hooks install` records the store; a checkout from a bare shell lands there."""
    repo.record("a1", title="First")
    repo.commit("main")
    repo.git("checkout", "-q", "-b", "feat")
    repo.record("b1", kind="fact", status="verified", title="Added on the branch")
    repo.commit("feat")
    repo.git("checkout", "-q", "main")
    installed = cli("hooks", "install", "--repo", repo.path)
    assert installed.exit_code == 0 and "git config jgm.home" in installed.stderr
    out = subprocess.run(
        ["git", "checkout", "-q", "feat"],
        cwd=repo.path,
        capture_output=True,
        text=True,
        env=bare_env(tmp_path, JGM_HOOK_SYNC="1"),
        timeout=TIMEOUT,
    )
    assert out.returncode == 0 and "reindexed after post-checkout" in out.stderr, out.stderr
    assert set(snapshot(repo.path).records) == {"a1", "b1"}  # read from jgm_home: the recorded store


@pytest.mark.e2e
def test_not_seeded_and_empty_are_not_no_match_on_cli(repo, make_repo, jgm_home, cli):
    repo.record("dec-x", title="Deploy on Fridays is allowed")
    repo.commit()
    p = jgm("recall", "can we deploy on friday?", cwd=repo.path)
    assert p.returncode == 5 and p.stderr.startswith("not-seeded: ") and str(jgm_home) in p.stderr
    assert f"jgm seed --repo {repo.path}" in p.stderr and len(p.stderr.strip().splitlines()) == 1
    t = cli("recall-task", "--goal", "deploy on friday", "--json", cwd=repo.path)
    assert t.exit_code == 5 and json.loads(t.stdout)["status"] == "not-seeded"
    c = cli("context", "--goal", "deploy", "--json", cwd=repo.path)
    assert c.exit_code == 5 and json.loads(c.stdout)["status"] == "not-seeded"
    assert cli("doctor", cwd=repo.path).exit_code != 0 and cli("relations", "dec-x", cwd=repo.path).exit_code != 0
    assert cli("candidates", "list", cwd=repo.path).exit_code == 0
    assert cli("hooks", "status", cwd=repo.path).exit_code == 0
    # readers leave the store as they found it: no workspace folder, lock file or Chroma database (issue 14)
    assert not (jgm_home / "workspaces").exists(), sorted(str(p) for p in jgm_home.rglob("*"))
    empty = make_repo("empty")
    empty.write("knowledge/.keep", "")
    empty.commit()
    assert cli("seed", cwd=empty.path).exit_code == 0
    e = cli("recall", "anything", "--json", cwd=empty.path)
    assert e.exit_code == 5 and "holds no records" in json.loads(e.stdout)["message"]


@pytest.mark.e2e
def test_not_seeded_on_the_api(repo):
    from fastapi.testclient import TestClient

    from jupiter_git_memory.surfaces.api.app import create_app

    repo.record("dec-x", title="Deploy on Fridays is allowed")
    repo.commit()
    app = create_app([repo.path], warm=False)
    wsid = find_workspace(repo.path).id
    with TestClient(app, base_url="http://127.0.0.1") as c:
        token = app.state.jgm.tokens.store_root.joinpath("api-token").read_text().strip()
        h = {"Authorization": f"Bearer {token}"}
        for route, body in (
            ("recall", {"query": "deploy on friday?"}),
            ("recall-task", {"goal": "deploy"}),
            ("context", {"goal": "deploy"}),
        ):
            r = c.post(f"/v1/workspaces/{wsid}/{route}", json=body, headers=h)
            assert r.status_code == 409 and r.json()["error"]["code"] == "memory/not-seeded", (route, r.text)
            assert "jgm seed --repo" in r.json()["error"]["message"]


def test_store_is_printed_by_doctor_and_workspaces(repo, tmp_path, cli, jgm_home, monkeypatch):
    repo.record("a")
    repo.commit()
    other = tmp_path / "other-store"
    assert cli("--home", other, "seed", cwd=repo.path).exit_code == 0
    listed = json.loads(cli("workspaces", "--json", "--home", other).stdout)
    assert listed["store"] == {"path": str(other), "source": "--home"} and len(listed["workspaces"]) == 1
    doc = cli("doctor", "--json", "--home", other, cwd=repo.path)
    assert json.loads(doc.stdout)["store"]["path"] == str(other) and doc.exit_code == 0
    assert os.environ["JGM_HOME"] == str(jgm_home)  # the commands above kept their store, not exported it
    text = cli("workspaces", cwd=repo.path).stdout
    assert text.splitlines()[0] == f"store {jgm_home} (from JGM_HOME)"
    monkeypatch.delenv("JGM_HOME")
    text = cli("doctor", cwd=repo.path).stdout  # no flag, no JGM_HOME: the store `seed` recorded
    assert text.splitlines()[0] == f"store {other} (from git config jgm.home)"


def test_status_false_is_an_alias_of_invalidated(repo):
    from jupiter_git_memory.recall.service import Recaller
    from jupiter_git_memory.seed.seeder import Seeder

    repo.record(
        "fact-old", kind="fact", status="false", title="The gateway listens on port 80", body="Plain HTTP on port 80."
    )
    repo.commit()
    Seeder(repo.path).seed()
    got = Recaller(repo.path).recall("which port does the gateway listen on?", statuses=["false"])
    assert [r["id"] for r in got.results] == ["fact-old"] and got.results[0]["status"] == "invalidated"


def test_floor_warning_only_where_it_matters_and_once(repo, monkeypatch):
    import dataclasses

    from jupiter_git_memory.recall.service import Recaller
    from jupiter_git_memory.seed.seeder import Seeder

    repo.record("dec-db", title="Use PostgreSQL", body="We store data in PostgreSQL.")
    repo.commit()
    Seeder(repo.path).seed()
    rc = Recaller(repo.path)
    assert rc.floor()[1] == "shipped-default"
    assert not [w for w in rc.recall("which database?").warnings if "floor" in w]  # MiniLM's default was measured
    unmeasured = Recaller(repo.path)
    monkeypatch.setattr(
        unmeasured.embedder, "spec", dataclasses.replace(rc.embedder.spec, floor_measured=False, language_floors={})
    )
    first = unmeasured.recall("which database?").warnings
    assert any("no floor calibrated" in w for w in first)
    assert not [w for w in unmeasured.recall("which database again?").warnings if "floor" in w]


@pytest.mark.e2e
def test_version_help_and_outside_a_repo_get_one_line(tmp_path, cli):
    from jupiter_git_memory import __version__

    v = jgm("--version")
    assert v.returncode == 0 and v.stdout.strip() == f"jgm {__version__}"
    for args in (["--help"], ["recall", "--help"], ["hooks", "install", "--help"]):
        h = cli(*args)
        assert h.exit_code == 0 and "<bool>" not in h.stdout and "--home" in h.stdout
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    for args in (
        ["seed"],
        ["check"],
        ["recall", "q"],
        ["doctor"],
        ["hooks", "install"],
        ["watch"],
        ["mcp"],
        ["candidates", "list"],
        ["remember", "--kind", "fact", "--title", "t"],
    ):
        p = cli(*args, cwd=outside)
        lines = p.stderr.strip().splitlines()
        assert p.exit_code in (2, 4) and len(lines) == 1 and "not inside a git repository" in lines[0], (args, p.output)


def test_repo_without_knowledge_roots_says_what_to_do(repo, cli):
    repo.write("README.md", "hello\n")
    repo.commit()
    p = cli("check", cwd=repo.path)
    assert p.exit_code == 0 and "no knowledge roots" in p.stderr and "knowledge/" in p.stderr


@pytest.mark.parametrize(
    "text, key, expected",
    [
        ('ignore = "**/drafts/**"', "`ignore`", 'ignore = ["**/drafts/**"]'),
        ('root = ["knowledge"]', "unknown key `root`", "did you mean `roots`?"),
        ("floor = 1.5", "`floor`", "a number in [0, 1)"),
        ("lexical_weight = -0.1", "`lexical_weight`", "a number in [0, 1]"),
        ('corroborate_margin = "small"', "`corroborate_margin`", "a number in [0, 1)"),
        ("[weights.fact]\nunverified = -2", "`weights.fact.unverified`", "weight >= 0"),
        ("[weights.facts]\nverified = 2", "`weights`", "unknown kind 'facts'"),
        ('hybrid = "yes"', "`hybrid`", "true or false"),
        ('roots = ["knowledge", "docs/adr"]', "`roots`", "'docs/adr' does not exist"),
        ('adr_missing_status = "maybe"', "`adr_missing_status`", '"accepted", "proposed" or "error"'),
    ],
)
def test_config_errors_name_file_key_and_expected_form(repo, text, key, expected):
    from jupiter_git_memory.config import ConfigError, load_settings

    repo.record("a")
    repo.write("jgm.toml", text + "\n")
    with pytest.raises(ConfigError) as e:
        load_settings(repo.path)
    msg = str(e.value)
    assert msg.startswith(str(repo.path / "jgm.toml")) and key in msg and expected in msg, msg


def test_config_error_is_one_line_from_the_cli(repo, cli):
    repo.record("a")
    repo.write("pyproject.toml", '[tool.jgm]\nignore = "**/drafts/**"\n')
    p = cli("check", cwd=repo.path)
    assert p.exit_code == 2 and len(p.stderr.strip().splitlines()) == 1
    assert "pyproject.toml [tool.jgm]: `ignore`" in p.stderr


def test_config_precedence_env_over_jgm_toml_over_pyproject(repo, monkeypatch):
    from jupiter_git_memory.config import load_settings

    repo.write("pyproject.toml", '[tool.jgm]\nmodel = "from-pyproject"\nfloor = 0.4\n')
    s = load_settings(repo.path)
    assert (s.model, s.floor, s.source) == ("from-pyproject", 0.4, f"{repo.path / 'pyproject.toml'} [tool.jgm]")
    repo.write("jgm.toml", 'model = "from-jgm-toml"\n')
    s = load_settings(repo.path)  # jgm.toml replaces [tool.jgm] entirely: no floor from pyproject
    assert (s.model, s.floor, s.source) == ("from-jgm-toml", None, str(repo.path / "jgm.toml"))
    monkeypatch.setenv("JGM_MODEL", "from-env")
    monkeypatch.setenv("JGM_CHROMA_URL", "http://127.0.0.1:8000")
    s = load_settings(repo.path)
    assert (s.model, s.chroma_url) == ("from-env", "http://127.0.0.1:8000")


@pytest.mark.e2e
def test_every_file_key_reaches_settings_with_the_file_default(repo, monkeypatch):
    """Each key's default is written once, on the one settings model, and every key arrives; the
    environment checks its values with the file's own constraints."""
    import pytest

    from jupiter_git_memory.config import ConfigError, Settings, load_settings
    from jupiter_git_memory.config.schema import FILE_KEYS

    s = load_settings(repo.path)  # no settings file: every value but the discovered roots is the default
    for name in set(FILE_KEYS) - {"roots"}:
        assert getattr(s, name) == Settings.model_fields[name].get_default(call_default_factory=True), name
    repo.write(
        "jgm.toml",
        "hybrid = false\nlexical_weight = 0.5\ncorroborate_margin = 0.2\nauto_calibrate = false\nglobal = true\n"
        'at_views = 3\nbrief_budget = 200\nprompt_budget = 100\nadr_missing_status = "accepted"\nfloor = 0.25\n'
        '[weights.fact]\nunverified = 0.9\n[status_map]\n"Under discussion" = "proposed"\n'
        '[formats]\n"knowledge" = "jgm"\n',
    )
    s = load_settings(repo.path)
    assert (s.hybrid, s.lexical_weight, s.corroborate_margin, s.auto_calibrate, s.global_workspace) == (
        False,
        0.5,
        0.2,
        False,
        True,
    )
    assert (s.at_views, s.brief_budget, s.prompt_budget, s.adr_missing_status, s.floor) == (
        3,
        200,
        100,
        "accepted",
        0.25,
    )
    assert (s.weights, s.status_map, s.formats) == (
        {"fact": {"unverified": 0.9}},
        {"Under discussion": "proposed"},
        {"knowledge": "jgm"},
    )
    for var, bad in (("JGM_CHROMA_URL", "not-a-url"), ("JGM_MODEL", "")):
        monkeypatch.setenv(var, bad)
        with pytest.raises(ConfigError, match=var):
            load_settings(repo.path)
        monkeypatch.delenv(var)


def test_every_subprocess_run_in_the_tests_has_a_timeout():
    """A hang must fail its test, not hold CI for the whole job limit."""
    import ast
    from pathlib import Path

    missing = []
    for f in sorted(Path(__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(f.read_text("utf-8"))):
            func = getattr(node, "func", None)
            if (
                isinstance(node, ast.Call)
                and isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and func.value.id == "subprocess"
                and func.attr in ("run", "call", "check_call", "check_output")
                and not any(k.arg == "timeout" for k in node.keywords)
            ):
                missing.append(f"{f.name}:{node.lineno}")
    assert not missing, f"subprocess calls without timeout=: {missing}"


def _documented(text: str, after: str) -> set[str]:
    """The commands a sentence of the docs names after `after` (`model …` means every `model` command, and
    `(but `model use`)` takes one back), as the reader would expand them."""
    sentence = next(s for s in re.split(r"(?<=\.) ", text) if after in s).split(after, 1)[1]
    but = set(re.findall(r"\(but `([^`]+)`\)", sentence))
    return {n for n in re.findall(r"`([^`]+)`", sentence) if n not in but} | {f"-{n}" for n in but}


def _expand(named: set[str], commands: list[str]) -> set[str]:
    chosen = {c for c in commands for n in named if c == n or (n.endswith(" …") and c.startswith(n[:-1]))}
    return chosen - {n[1:] for n in named if n.startswith("-")}


def test_the_commands_page_says_exactly_which_commands_take_repo_and_json():
    """What docs/commands.md (and the README) say about `--home`, `--json` and `--repo` is what the commands
    take: the commands the sentences name as exceptions are exactly those without the option."""
    from pathlib import Path

    import typer

    from jupiter_git_memory.surfaces.cli.main import app

    def leaves(group, prefix=()):
        for name, cmd in group.commands.items():
            if hasattr(cmd, "commands"):
                yield from leaves(cmd, prefix + (name,))
            elif not cmd.hidden:
                yield " ".join(prefix + (name,)), {o for p in cmd.params for o in getattr(p, "opts", [])}

    opts = dict(leaves(typer.main.get_command(app)))
    names = sorted(opts)
    without_json = {n for n in names if "--json" not in opts[n]}
    without_repo = {n for n in names if "--repo" not in opts[n]}
    assert all("--home" in o for o in opts.values()), [n for n in names if "--home" not in opts[n]]
    root = Path(__file__).resolve().parents[1]
    page = " ".join((root / "docs" / "commands.md").read_text("utf-8").split())
    readme = " ".join((root / "README.md").read_text("utf-8").split())
    assert _expand(_documented(page, "for machine-readable output, except"), names) == without_json
    assert _expand(_documented(readme, "and all but"), names) == without_json
    assert _expand(_documented(page, "the store-wide ones,"), names) == without_repo
    # the convention itself: only serve and mcp answer without --json; only store-wide commands lack --repo
    assert without_json == {"serve", "mcp"}
    for name in names:
        store_wide = name == "workspaces" or (name.split()[0] in ("model", "token") and name != "model use")
        assert (name in without_repo) == store_wide, name
