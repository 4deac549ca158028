"""find_workspace asks git once for a working tree (every recall through the daemon pays it) and answers as
the three separate questions did everywhere: a subfolder, a linked worktree, a bare repository, inside .git,
outside any repository."""

from __future__ import annotations

import pytest

from jupiter_git_memory.base import git as git_runner
from jupiter_git_memory.index import workspace
from jupiter_git_memory.index.workspace import BareRepository, NotARepo, find_workspace


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
