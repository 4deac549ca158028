"""Evidence drift decided from real git history (issue 25), without the model: records/drift.py on the
History that git/drift.py reads from temp repos."""

from __future__ import annotations

from jupiter_git_memory.git import drift as drift_git
from jupiter_git_memory.records.drift import Cited, drift_states


def _states(repo, cites: dict[str, list[str]], at: str | None = None) -> dict[str, dict]:
    """Drift of records knowledge/<id>.md citing `cites[id]`: the worktree view, or with `at` that commit's."""
    commit = at or repo.git("rev-parse", "HEAD").stdout.strip()
    st = None if at else drift_git.status(repo.path)
    recs = []
    for rid, refs in cites.items():
        path = f"knowledge/{rid}.md"
        base = repo.git("log", "-1", "--format=%H", commit, "--", path).stdout.strip() or None
        dirty = st is not None and path.encode() in st
        recs.append(Cited(rid, path, base, dirty, tuple(refs)))
    return drift_states(recs, drift_git.history(repo.path, commit, recs, st))


def _start(repo, **cites: list[str]) -> None:
    repo.write("src/app/main.py", "print('hi')\n")
    repo.write("src/app/util.py", "x = 1\n")
    repo.write("src/other.py", "y = 2\n")
    for rid, refs in cites.items():
        repo.record(rid, source="[" + ", ".join(refs) + "]")
    repo.commit("start")


def test_cited_file_changed_after_the_record_is_drifted_with_its_commits(repo):
    _start(repo, d1=["src/app/main.py"])
    repo.write("src/app/main.py", "print('bye')\nprint(2)\n")
    sha = repo.commit("rewrite main")
    got = _states(repo, {"d1": ["src/app/main.py"]})["d1"]
    assert got["state"] == "drifted" and [c["sha"] for c in got["changed"]] == [sha]
    c = got["changed"][0]
    assert c["subject"] == "rewrite main" and c["author"] == "Test" and c["files"] == ["src/app/main.py"]
    assert got["diffstat"] == "1 files, +2 -1"


def test_a_sibling_file_changed_leaves_it_fresh(repo):
    _start(repo, d1=["src/app/main.py"])
    repo.write("src/app/util.py", "x = 3\n")
    repo.commit("sibling")
    assert _states(repo, {"d1": ["src/app/main.py"]})["d1"]["state"] == "fresh"


def test_a_cited_folder_gaining_a_file_is_drifted_and_a_glob_too(repo):
    _start(repo, d1=["src/app/"], d2=["src/**/*.py"], d3=["src/app/*.txt"])
    repo.write("src/app/new.py", "z = 0\n")
    sha = repo.commit("add new")
    got = _states(repo, {"d1": ["src/app/"], "d2": ["src/**/*.py"], "d3": ["src/app/*.txt"]})
    assert got["d1"]["state"] == "drifted" and got["d1"]["changed"][0]["sha"] == sha
    assert got["d2"]["state"] == "drifted"
    assert "d3" not in got  # matched nothing at the baseline either: `jgm check` reports it, no drift (issue 37)


def test_a_deleted_cited_file_is_missing_which_beats_drifted(repo):
    _start(repo, d1=["src/app/main.py", "src/other.py"])
    repo.write("src/other.py", "y = 5\n")
    repo.commit("change other")
    repo.git("rm", "-q", "src/app/main.py")
    repo.commit("remove main")
    got = _states(repo, {"d1": ["src/app/main.py", "src/other.py"]})["d1"]
    assert got["state"] == "missing" and got["missing"] == ["src/app/main.py"]


def test_two_cited_files_one_changed_is_drifted_then_recommitting_the_record_makes_it_fresh(repo):
    _start(repo, d1=["src/app/main.py", "src/other.py"])
    repo.write("src/other.py", "y = 5\n")
    repo.commit("change other")
    cites = {"d1": ["src/app/main.py", "src/other.py"]}
    got = _states(repo, cites)["d1"]
    assert got["state"] == "drifted" and got["changed"][0]["files"] == ["src/other.py"]
    repo.record("d1", source="[src/app/main.py, src/other.py]", reviewed="2026-12-01")
    repo.commit("review d1")
    assert _states(repo, cites)["d1"]["state"] == "fresh"


def test_an_uncommitted_edit_to_a_cited_file_drifts_the_worktree_view_only(repo):
    _start(repo, d1=["src/app/main.py"])
    head = repo.git("rev-parse", "HEAD").stdout.strip()
    repo.write("src/app/main.py", "print('edited')\n")
    got = _states(repo, {"d1": ["src/app/main.py"]})["d1"]
    assert got["state"] == "drifted" and got["uncommitted"] == ["src/app/main.py"] and got["changed"] == []
    assert _states(repo, {"d1": ["src/app/main.py"]}, at=head)["d1"]["state"] == "fresh"
    (repo.path / "src/app/main.py").unlink()
    assert _states(repo, {"d1": ["src/app/main.py"]})["d1"]["state"] == "missing"


def test_an_at_view_answers_as_of_its_commit(repo):
    _start(repo, d1=["src/app/main.py"])
    first = repo.git("rev-parse", "HEAD").stdout.strip()
    repo.write("src/app/main.py", "print('v2')\n")
    second = repo.commit("v2")
    cites = {"d1": ["src/app/main.py"]}
    assert _states(repo, cites, at=first)["d1"]["state"] == "fresh"
    assert _states(repo, cites, at=second)["d1"]["state"] == "drifted"


def test_records_citing_only_external_evidence_are_external_and_a_folder_counts_new_files(repo):
    _start(repo, d1=["https://example.com/x", "commit 4f2a9c1"], d2=["knowledge/"])
    repo.record("d2", source="[knowledge/]", body="edited")
    repo.commit("edit d2")
    repo.write("knowledge/other.md", "notes\n")
    repo.commit("more")
    got = _states(repo, {"d1": ["https://example.com/x", "commit 4f2a9c1"], "d2": ["knowledge/"]})
    assert got["d1"]["state"] == "external" and got["d1"]["external"] == ["https://example.com/x", "commit 4f2a9c1"]
    assert got["d2"]["state"] == "drifted" and got["d2"]["changed"][0]["files"] == ["knowledge/other.md"]
