"""Propose on real repos (branch, file, commit; the user's checkout untouched) and promotion after a real merge."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

import pytest
from candidates_helpers import CACHE_FACT, candidate_rows, fact, recall_ids, seed_repo, service
from cli_helpers import jgm_in, jgm_json_in

from jupiter_git_memory.candidates.errors import CandidateError
from jupiter_git_memory.candidates.model import CandidateInput
from jupiter_git_memory.candidates.propose import propose
from jupiter_git_memory.records.parse import parse_record

pytestmark = pytest.mark.e2e

DECISION = (
    "Pin the Python version in CI to 3.12",
    "CI runs on Python 3.12 only, because the ONNX wheels we ship are built and tested for it.",
)


def snapshot(repo) -> dict:
    """Everything of the user's checkout that propose must not change."""
    files = {}
    for dirpath, dirs, names in os.walk(repo.path):
        dirs[:] = [d for d in dirs if d != ".git"]
        for n in names:
            p = Path(dirpath) / n
            files[str(p.relative_to(repo.path))] = p.read_bytes()
    return {
        "status": repo.git("status", "--porcelain=v2", "--branch", "--untracked-files=all").stdout,
        "head": repo.git("symbolic-ref", "HEAD").stdout,
        "head_sha": repo.git("rev-parse", "HEAD").stdout,
        "index": hashlib.sha256((repo.path / ".git" / "index").read_bytes()).hexdigest(),
        "files": files,
        "staged": repo.git("diff", "--cached").stdout,
        "branches": repo.git("branch", "--list", "main", "feature").stdout,
    }


@pytest.fixture
def busy_repo(repo):
    """Seeded, on branch `feature`, with an unstaged edit, a staged edit and an untracked file."""
    seed_repo(repo)
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("src/app.py", "print('feature work')\n")
    repo.commit("feature work")
    repo.write("src/app.py", "print('unsaved edit')\n")
    repo.write("src/staged.py", "x = 1\n")
    repo.git("add", "src/staged.py")
    repo.write("notes.txt", "untracked scratch\n")
    repo.write(
        "knowledge/decisions/dec-draft.md",
        "---\nid: dec-draft\nkind: decision\nstatus: proposed\n"
        "title: A draft\n---\nA draft decision, uncommitted, because it is not ready.\n",
    )
    return repo


def test_propose_writes_a_branch_and_leaves_the_checkout_untouched(busy_repo):
    repo = busy_repo
    svc = service(repo)
    a = svc.record(
        CandidateInput(
            "decision",
            *DECISION,
            tags=["ci", "python"],
            source="ci.yml",
            agent="agent-7",
            session="sess-3",
            work_item="WI-42",
            run_key="rk-1",
        )
    )
    before = snapshot(repo)
    base = repo.git("rev-parse", "HEAD").stdout.strip()
    rc, res = jgm_json_in("candidates", "propose", a.id, "--repo", str(repo.path))
    assert rc == 0, res
    assert snapshot(repo) == before
    rid, path, branch = res["record_id"], res["path"], res["branch"]
    assert rid.startswith("dec-pin-the-python-version-in-ci-to-3-12-") and branch == f"jgm/{rid}"
    assert path == f"knowledge/decisions/{rid}.md" and res["status"] == "proposed" and res["base"] == base
    assert repo.git("rev-parse", f"refs/heads/{branch}").stdout.strip() == res["commit"]
    assert repo.git("rev-parse", f"{branch}^").stdout.strip() == base
    changed = repo.git("diff", "--name-status", base, branch).stdout.split("\n")
    assert changed[0] == f"A\t{path}" and changed[1:] == [""]
    raw = repo.git("show", f"{branch}:{path}").stdout.encode()
    rec = parse_record(path, raw).record
    assert (rec.id, rec.kind, rec.status, rec.title) == (rid, "decision", "proposed", DECISION[0])
    assert rec.tags == ("ci", "python") and rec.source == "ci.yml" and DECISION[1] in rec.body
    assert rec.metadata == {
        "candidate": a.id,
        "agent": "agent-7",
        "session": "sess-3",
        "work_item": "WI-42",
        "run_key": "rk-1",
    }
    msg = repo.git("log", "-1", "--format=%B", branch).stdout
    assert msg.startswith(f"Propose decision {rid}: {DECISION[0]}")
    for trailer in (
        f"Candidate: {a.id}",
        "Agent: agent-7",
        "Session: sess-3",
        "Work-Item: WI-42",
        "Run-Key: rk-1",
        "Status: proposed",
    ):
        assert trailer in msg
    assert res["pr_command"] == f"git push -u origin {branch} && gh pr create --head {branch} --fill --base feature"
    c = svc.show(a.id)
    assert c["state"] == "proposed" and c["proposal"]["branch"] == branch
    # proposing again answers with the same branch instead of making another
    again = propose(svc, a.id)
    assert again["already_proposed"] and again["branch"] == branch
    assert repo.git("branch", "--list", "jgm/*").stdout.split() == [branch]
    assert snapshot(repo) == before


def test_status_maps_to_the_kind_and_git_refusals_are_reported(repo):
    seed_repo(repo)
    svc = service(repo)
    a = svc.record(fact(*CACHE_FACT))
    res = propose(svc, a.id, status="accepted")
    assert res["status"] == "verified" and res["path"].startswith("knowledge/facts/fact-")
    b = svc.record(
        fact(
            "Uploads are split into 8 MiB parts",
            "The uploader splits files into 8 MiB parts, as `uploader.py` shows in PART_SIZE.",
        )
    )
    with pytest.raises(CandidateError) as e:
        propose(svc, b.id, status="merged")
    assert e.value.code == "request/bad-status"
    with pytest.raises(CandidateError) as e:
        propose(svc, b.id, base="no-such-branch")
    assert e.value.code == "propose/no-base"
    svc.reject(b.id, "the part size is configurable")
    with pytest.raises(CandidateError) as e:
        propose(svc, b.id)
    assert e.value.code == "memory/invalid-state" and "configurable" in e.value.message
    with pytest.raises(CandidateError) as e:
        propose(svc, "dec-s3-retry")
    assert e.value.code == "memory/file-backed"


def test_open_pr_reports_a_missing_or_failing_gh_and_keeps_the_branch(repo, tmp_path, monkeypatch):
    seed_repo(repo)
    svc = service(repo)
    a = svc.record(fact(*CACHE_FACT))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    git_dir = os.path.dirname(os.popen("command -v git").read().strip())
    monkeypatch.setenv("PATH", f"{bin_dir}:{git_dir}")  # no gh on PATH
    p = jgm_in("candidates", "propose", a.id, "--open-pr", "--repo", str(repo.path))
    assert p.returncode == 1 and "`gh` is not installed" in p.stderr and "gh pr create" in p.stdout
    branch = svc.show(a.id)["proposal"]["branch"]
    assert repo.git("rev-parse", "--verify", f"refs/heads/{branch}").returncode == 0
    # a gh that fails (fault injection); the repo needs a remote to push to: a bare repo
    remote = tmp_path / "remote.git"
    repo.git("init", "-q", "--bare", str(remote))
    repo.git("remote", "add", "origin", str(remote))
    gh = bin_dir / "gh"
    gh.write_text("#!/bin/sh\necho 'GraphQL: could not resolve to a Repository' >&2\nexit 1\n")
    gh.chmod(gh.stat().st_mode | stat.S_IEXEC)
    b = svc.record(
        fact(
            "Uploads are split into 8 MiB parts",
            "The uploader splits files into 8 MiB parts, as `uploader.py` shows in PART_SIZE.",
        )
    )
    res = propose(svc, b.id, open_pull_request=True)
    assert res["pr"]["opened"] is False and "could not resolve to a Repository" in res["pr"]["error"]
    # the push before it did happen: the branch is on the remote
    assert repo.git("--git-dir", str(remote), "rev-parse", res["branch"]).stdout.strip() == res["commit"]


def test_merge_then_seed_promotes_the_candidate(repo):
    seed_repo(repo)
    svc = service(repo)
    a = svc.record(CandidateInput("decision", *DECISION, source="ci.yml", agent="agent-7", run_key="rk-9"))
    res = propose(svc, a.id, status="accepted")
    pre_merge = repo.git("rev-parse", "HEAD").stdout.strip()
    q = "Which Python version does CI use?"
    assert res["record_id"] not in recall_ids(repo, q)
    repo.git("merge", "-q", "--no-ff", res["branch"], "-m", "Merge candidate PR")
    p = jgm_in("seed", "--repo", str(repo.path))  # what the post-merge hook runs
    assert p.returncode == 0, p.stderr
    c = service(repo).show(a.id)
    assert (c["state"], c["effective"], c["promoted_to"]) == ("promoted", "superseded", res["record_id"])
    ids = recall_ids(repo, q)
    assert ids[0] == res["record_id"] and a.id not in ids
    assert a.id not in recall_ids(repo, q, statuses=["candidate"])
    assert service(repo).list() == []
    from jupiter_git_memory.recall.service import Recaller

    top = Recaller(repo.path).recall(q).results[0]
    assert (top["origin"], top["status"], top["path"]) == ("file", "accepted", res["path"])
    with pytest.raises(CandidateError) as e:
        service(repo).revise(res["record_id"], title="Pin Python 3.13")
    assert e.value.code == "memory/file-backed" and e.value.details["path"] == res["path"]
    # the tree is the truth: checking out the commit before the merge puts the candidate back in review
    from jupiter_git_memory.seed.seeder import Seeder

    repo.git("checkout", "-q", pre_merge)
    Seeder(repo.path).seed()
    assert service(repo).show(a.id)["state"] == "proposed"
    Seeder(repo.path).seed(rev="main")  # an `--at` view never changes candidates
    assert service(repo).show(a.id)["state"] == "proposed"
    repo.git("checkout", "-q", "main")
    Seeder(repo.path).seed()
    assert service(repo).show(a.id)["state"] == "promoted"
    assert len(candidate_rows(repo)) == 1


def test_open_pr_pushes_then_runs_gh_pr_create(repo, tmp_path, monkeypatch):
    """GitHub is out of reach here, so `gh` is a recording stand-in; the push goes to a real bare remote."""
    seed_repo(repo)
    svc = service(repo)
    remote = tmp_path / "remote.git"
    repo.git("init", "-q", "--bare", str(remote))
    repo.git("remote", "add", "origin", str(remote))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "gh-calls.txt"
    gh = bin_dir / "gh"
    gh.write_text(f'#!/bin/sh\necho "$@" >> {calls}\necho https://github.example/org/repo/pull/7\n')
    gh.chmod(gh.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    a = svc.record(
        fact(
            "Uploads are split into 8 MiB parts",
            "The uploader splits files into 8 MiB parts, as `uploader.py` shows in PART_SIZE.",
        )
    )
    res = propose(svc, a.id, open_pull_request=True)
    assert res["pr"] == {"opened": True, "url": "https://github.example/org/repo/pull/7"}
    assert calls.read_text().split() == ["pr", "create", "--head", res["branch"], "--fill", "--base", "main"]
    assert repo.git("--git-dir", str(remote), "rev-parse", res["branch"]).stdout.strip() == res["commit"]
