"""app/paths.py's rules, one by one, on folders in a temp dir (no git): what a typed path becomes, from where."""

from __future__ import annotations

import pytest

from jupiter_git_memory.app.paths import PathOutsideRepo, cited_path, repo_path, repo_paths

pytestmark = pytest.mark.unit


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "repo"
    (root / "src/shop").mkdir(parents=True)
    (root / "src/shop/payments.py").write_text("x\n")
    (root / ".github").mkdir()
    (tmp_path / "beside.py").write_text("x\n")
    return root


def test_a_relative_path_is_read_from_the_folder_inside_the_repository(tree):
    here = tree / "src/shop"
    for typed in ("payments.py", "./payments.py", "../shop/payments.py", ".//payments.py", str(here / "payments.py")):
        assert repo_path(tree, typed, here) == "src/shop/payments.py", typed
    assert repo_path(tree, "../../.github/ci.yml", here) == ".github/ci.yml"  # a dot folder keeps its dot
    assert repo_path(tree, "..", here) == "src" and repo_path(tree, "../", here) == "src/"
    assert repo_path(tree, "src\\shop\\cart.py", tree) == "src/shop/cart.py"
    assert repo_path(tree, "payments.py", "src/shop") == "src/shop/payments.py"  # a relative cwd: from the root


def test_without_a_folder_a_path_is_repository_relative(tree):
    assert repo_path(tree, "src/shop/payments.py") == "src/shop/payments.py"
    assert repo_path(tree, "./src/../src/shop/") == "src/shop/"
    assert repo_paths(tree, ["a.py", " ", "./a.py", "b/"]) == ["a.py", "b/"]
    with pytest.raises(ValueError, match="names the whole repository"):
        repo_paths(tree, ["src/..", "a.py"])


def test_from_outside_the_repository_a_path_existing_there_wins_else_the_root(tree):
    beside = tree.parent
    assert repo_path(tree, "repo/src/shop/payments.py", beside) == "src/shop/payments.py"
    assert repo_path(tree, "src/shop/payments.py", beside) == "src/shop/payments.py"
    assert repo_path(tree, "beside.py", beside) == "beside.py"  # exists here but outside: the root's beside.py


@pytest.mark.parametrize(
    "typed, cwd, where",
    [
        ("../../../x.py", "src/shop", "the current folder"),
        ("../x.py", None, "the repository root"),
        ("/etc/passwd", None, "the repository root"),
        ("BESIDE", "src/shop", "the current folder"),
    ],
)
def test_a_path_outside_the_repository_is_refused_naming_it(tree, typed, cwd, where):
    typed = str(tree.parent / "beside.py") if typed == "BESIDE" else typed
    with pytest.raises(PathOutsideRepo) as e:
        repo_path(tree, typed, tree / cwd if cwd else None)
    assert e.value.code == "request/path-outside-repo" and e.value.exit_code == 2 and e.value.status == 400
    assert e.value.message.startswith(f"{typed} is outside the repository {tree}") and where in e.value.message
    assert e.value.details == {"path": typed, "repository": str(tree)}


def test_a_symlinked_repository_root_still_takes_its_physical_paths(tree, tmp_path):
    link = tmp_path / "link"
    link.symlink_to(tree)
    assert repo_path(link, str(tree / "src/shop/payments.py")) == "src/shop/payments.py"
    assert repo_path(link, "payments.py", tree / "src/shop") == "src/shop/payments.py"


def test_a_citation_is_rewritten_only_where_it_names_a_repository_path(tree, tmp_path):
    here = tree / "src/shop"
    assert cited_path(tree, "./payments.py:22", here) == "src/shop/payments.py:22"
    assert cited_path(tree, "payments.py::pay", here) == "src/shop/payments.py::pay"  # exists here, not at the root
    assert cited_path(tree, f"{here}/payments.py:10-40", None) == "src/shop/payments.py:10-40"
    kept = ["https://example.test/a.py", "make load-test", "nothere.py:3", str(tmp_path / "report.txt"), "../../../x"]
    assert [cited_path(tree, k, here) for k in kept] == kept
    (tree / "top.py").write_text("x\n")
    (here / "top.py").write_text("x\n")
    assert cited_path(tree, "top.py", here) == "top.py"  # the root has it: already repository-relative
