"""find_workspace asks git once for a working tree (every recall through the daemon pays it) and answers as
the three separate questions did everywhere: a subfolder, a linked worktree, a bare repository, inside .git,
outside any repository."""

from __future__ import annotations

import os
import time

import pytest

from jupiter_git_memory.git import runner as git_runner
from jupiter_git_memory.git import workspace
from jupiter_git_memory.git.workspace import BareRepository, NotARepo, RememberedWorkspaces, find_workspace

pytestmark = pytest.mark.integration


def _asked(monkeypatch) -> list[list[str]]:
    """The git commands find_workspace runs (a spy on the one runner; the commands still run)."""
    calls: list[list[str]] = []
    real = git_runner.run

    def spy(argv, **kw):
        calls.append(list(argv))
        return real(argv, **kw)

    monkeypatch.setattr(git_runner, "run", spy)
    return calls


def _one_at_a_time(start) -> tuple[str, bool, str | None]:
    """The answer as the separate rev-parse questions give it (the code before the single call)."""
    g = workspace.git
    common = g(start, "rev-parse", "--path-format=absolute", "--git-common-dir").decode().strip()
    bare = g(start, "rev-parse", "--is-bare-repository").decode().strip() == "true"
    return common, bare, None if bare else g(start, "rev-parse", "--show-toplevel").decode().strip()


def test_a_working_tree_is_located_with_one_rev_parse(repo, monkeypatch):
    repo.write("src/deep/x.py", "x\n")
    repo.commit()
    calls = _asked(monkeypatch)
    ws = find_workspace(repo.path / "src" / "deep")
    assert ws.repo_root == repo.path.resolve() and not ws.bare
    assert [c[3] for c in calls] == ["rev-parse", "config"], calls  # git -C DIR <command>
    assert workspace._locate(repo.path / "src") == _one_at_a_time(repo.path / "src")


def test_a_linked_worktree_is_its_own_root_in_the_same_workspace(repo, tmp_path):
    repo.commit("first")
    other = tmp_path / "wt"
    repo.git("worktree", "add", "-q", str(other), "-b", "side")
    main, linked = find_workspace(repo.path), find_workspace(other)
    assert linked.repo_root == other.resolve() and linked.id == main.id
    assert workspace._locate(other) == _one_at_a_time(other)


def test_a_bare_repository_and_the_inside_of_dot_git_answer_as_before(repo, tmp_path):
    repo.commit("first")
    bare = tmp_path / "bare.git"
    repo.git("clone", "-q", "--bare", str(repo.path), str(bare))
    with pytest.raises(BareRepository):
        find_workspace(bare)
    ws = find_workspace(bare, bare_ok=True)
    assert ws.bare and ws.repo_root == bare.resolve()
    assert workspace._locate(bare) == _one_at_a_time(bare)
    with pytest.raises(NotARepo, match="not inside a git repository"):  # --show-toplevel fails in .git
        find_workspace(repo.path / ".git")


def test_outside_any_repository_and_a_missing_folder_are_not_a_repo(tmp_path):
    (tmp_path / "plain").mkdir()
    for where in (tmp_path / "plain", tmp_path / "missing"):
        with pytest.raises(NotARepo, match="not inside a git repository"):
            find_workspace(where)


def test_a_warm_recall_runs_no_git_config(repo, monkeypatch):
    """The "never seeded" message names the command that seeds (it asks git for the repository's store);
    it is built only when it is said, not on every recall."""
    from helpers import seeded

    from jupiter_git_memory.recall.service import Recaller

    seeded(repo, 2)
    rc = Recaller(repo.path)
    try:
        assert rc.recall("caching layer", k=2).results
        calls = _asked(monkeypatch)
        assert rc.recall("caching layer 1", k=2).results
        assert not [c for c in calls if "config" in c], calls
    finally:
        rc.close()


def _age(*paths) -> None:
    past = time.time() - 10
    for p in paths:
        os.utime(p, (past, past), follow_symlinks=False)


def _aged_repo(repo):
    repo.write("src/deep/x.py", "x\n")
    repo.commit()
    deep = repo.path / "src" / "deep"
    _age(deep, deep.parent, repo.path, repo.path / ".git", repo.path / ".git" / "config")
    return deep


def test_a_remembered_workspace_asks_git_nothing_while_nothing_it_rests_on_moved(repo, monkeypatch):
    deep = _aged_repo(repo)
    seen = RememberedWorkspaces()
    first = seen.find(deep)
    calls = _asked(monkeypatch)
    assert seen.find(deep) == first == find_workspace(deep) and len(calls) == 2  # only find_workspace's own


def test_a_new_remote_a_nested_repository_and_fresh_metadata_ask_git_again(repo, tmp_path):
    deep = _aged_repo(repo)
    seen = RememberedWorkspaces()
    before = seen.find(deep)
    repo.git("remote", "add", "origin", "https://example.com/team/project.git")  # the config file changes
    renamed = seen.find(deep)
    assert renamed.key == "remote:example.com/team/project" and renamed.id != before.id
    run_git = repo.git
    run_git("init", "-q", str(deep.parent))  # a repository made inside: src/ now answers for src/deep
    assert seen.find(deep).repo_root == deep.parent.resolve()
    linked = tmp_path / "wt"
    repo.git("worktree", "add", "-q", str(linked), "-b", "side")
    assert seen.find(linked).repo_root == linked.resolve()  # just made: asked, not remembered
    repo.git("worktree", "remove", str(linked))
    with pytest.raises(NotARepo):
        seen.find(linked)


def test_a_remote_from_an_included_or_the_global_config_asks_git_again(repo, tmp_path, monkeypatch):
    """Issue 35, item 15: the remote that names the workspace can live outside the repository's config."""
    glob = tmp_path / "global.gitconfig"
    glob.write_text("[user]\n\tname = T\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(glob))
    deep = _aged_repo(repo)
    _age(glob)
    seen = RememberedWorkspaces()
    before = seen.find(deep)
    glob.write_text('[remote "origin"]\n\turl = https://example.com/team/global.git\n')
    assert seen.find(deep).key == "remote:example.com/team/global"  # the global file is watched
    glob.write_text("[user]\n\tname = T\n")
    shared = tmp_path / "shared.gitconfig"
    shared.write_text("")
    repo.git("config", "include.path", str(shared))
    _age(repo.path / ".git" / "config", glob)
    assert seen.find(deep).id == before.id
    shared.write_text('[remote "origin"]\n\turl = https://example.com/team/included.git\n')
    _age(shared)  # nothing jgm stats moved: only the included file did
    assert seen.find(deep).key == "remote:example.com/team/included"
