"""The precedence of settings, held at `load_settings`: the environment (JGM_MODEL and JGM_CHROMA_URL only) >
jgm.toml > [tool.jgm], a jgm.toml replacing [tool.jgm] whole, each origin checked on its own and named in its
errors, and a file's chroma_url used only once approved. A settings model that merged its sources blindly
or read every field from the environment would pass most other tests and break these."""

from __future__ import annotations

import pytest

from jupiter_git_memory.config import DEFAULT_IGNORE, ConfigError, load_settings

NOT_SETTINGS = {  # JGM_* variables of the process, or names of settings the environment must not set
    "JGM_FLOOR": "0.9",
    "JGM_ROOTS": "not json",
    "JGM_IGNORE": '["**"]',
    "JGM_WEIGHTS": "{",
    "JGM_HYBRID": "false",
    "JGM_GLOBAL": "true",
    "JGM_GLOBAL_WORKSPACE": "true",
    "JGM_AT_VIEWS": "1",
    "JGM_SOURCE": "/elsewhere",
    "JGM_ROOTS_CONFIGURED": "true",
    "JGM_REFUSED": "[]",
}


def test_only_model_and_chroma_url_come_from_the_environment(repo, monkeypatch):
    repo.write("jgm.toml", "floor = 0.3\n")
    before = load_settings(repo.path)
    for var, value in NOT_SETTINGS.items():
        monkeypatch.setenv(var, value)
    after = load_settings(repo.path)
    assert after == before and after.floor == 0.3 and after.ignore == DEFAULT_IGNORE
    monkeypatch.setenv("jgm_model", "lower-case-name")  # the names are matched in any case, as before
    assert load_settings(repo.path).model == "lower-case-name"


def test_the_environment_wins_yet_a_bad_file_value_is_still_an_error(repo, monkeypatch):
    monkeypatch.setenv("JGM_MODEL", "from-env")
    repo.write("jgm.toml", 'model = "from-file"\n')
    assert load_settings(repo.path).model == "from-env"
    repo.write("jgm.toml", 'model = ""\n')  # overridden, but the file is wrong: say so
    with pytest.raises(ConfigError, match=r"jgm\.toml: `model`: String should have at least 1 character"):
        load_settings(repo.path)


def test_an_environment_error_names_the_variable_not_the_file(repo, monkeypatch):
    repo.write("jgm.toml", 'model = "from-file"\n')
    monkeypatch.setenv("JGM_MODEL", "")
    with pytest.raises(ConfigError) as e:
        load_settings(repo.path)
    assert str(e.value).startswith("environment JGM_MODEL: ") and "jgm.toml" not in str(e.value), e.value


def test_jgm_toml_replaces_tool_jgm_whole(repo):
    repo.write("pyproject.toml", '[tool.jgm]\nignore = ["**/drafts/**"]\nhybrid = false\nfloor = 5\n')
    with pytest.raises(ConfigError, match=r"pyproject\.toml \[tool\.jgm\]: `floor`"):
        load_settings(repo.path)
    repo.write("jgm.toml", "lexical_weight = 0.5\n")  # the broken [tool.jgm] is not read at all now
    s = load_settings(repo.path)
    assert (s.lexical_weight, s.hybrid, s.floor, s.ignore) == (0.5, True, None, DEFAULT_IGNORE)
    assert s.source == str(repo.path / "jgm.toml")


def test_a_file_chroma_url_needs_approval_the_environments_does_not(repo, monkeypatch):
    repo.write("jgm.toml", 'chroma_url = "http://127.0.0.1:9"\n')
    s = load_settings(repo.path)
    assert s.chroma_url is None and [r.key for r in s.refused] == ["chroma_url"]
    assert "jgm.trust-chroma-url" in s.notices()[0]
    monkeypatch.setenv("JGM_CHROMA_URL", "http://127.0.0.1:8")
    s = load_settings(repo.path)
    assert (s.chroma_url, s.refused) == ("http://127.0.0.1:8", ())
    monkeypatch.delenv("JGM_CHROMA_URL")
    repo.git("config", "jgm.trust-chroma-url", "http://127.0.0.1:9")
    s = load_settings(repo.path)
    assert (s.chroma_url, s.refused) == ("http://127.0.0.1:9", ())


def test_a_derived_value_is_no_file_key(repo):
    """`source`, `refused`, ... are computed; a file naming them must not steer them."""
    repo.write("jgm.toml", 'source = "elsewhere"\nroots_configured = true\nfloor = 2\n')
    with pytest.raises(ConfigError) as e:
        load_settings(repo.path)
    lines = str(e.value).splitlines()
    assert [line.split(": ", 2)[1] for line in lines] == [
        "`floor`",
        "unknown key `source`",
        "unknown key `roots_configured`",
    ]


def test_settings_are_immutable_and_compare_by_value(repo):
    repo.write("jgm.toml", 'ignore = ["**/drafts/**"]\n')
    a, b = load_settings(repo.path), load_settings(repo.path)
    assert a == b and a is not b  # the watcher and the workspace handle reload only when settings changed
    with pytest.raises((AttributeError, ValueError)):  # pydantic's ValidationError is a ValueError
        a.floor = 0.5  # type: ignore[misc]
    repo.write("jgm.toml", 'ignore = ["**/other/**"]\n')
    assert load_settings(repo.path) != a
