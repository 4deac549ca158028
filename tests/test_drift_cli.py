"""Evidence drift end to end (issue 25): computed at seed time and kept with the view, `jgm drift` (--base,
--json, --markdown, --fail-on, --at), `jgm governs`, and recall results that say it. Real repos, real model."""

from __future__ import annotations

import json

import pytest

from jupiter_git_memory.git import drift as drift_git
from jupiter_git_memory.seed.seeder import Seeder


def _project(repo) -> str:
    repo.write("src/billing/invoice.py", "def total(): return 1\n")
    repo.write("src/billing/tax.py", "RATE = 0.2\n")
    repo.write("src/auth/login.py", "def login(): pass\n")
    repo.record(
        "dec-invoice",
        title="Invoices are totalled in cents",
        source="src/billing/invoice.py",
        body="Invoice totals are integers in cents to avoid rounding drift.",
    )
    repo.record(
        "dec-auth",
        title="Login goes through the auth module",
        source="src/auth/",
        body="Every login passes through the auth module's login function.",
    )
    repo.record("dec-none", title="We write commit messages in English", body="Commit messages are English.")
    return repo.commit("start")


def _drift(cli, repo, *args) -> tuple[int, dict]:
    r = cli("drift", "--repo", repo.path, "--json", *args)
    assert r.stdout.startswith("{"), (r.output, r.exception)
    return r.exit_code, json.loads(r.stdout)


def test_seed_keeps_drift_with_the_view_and_a_noop_reseed_does_no_git_work(repo, cli, monkeypatch):
    first = _project(repo)
    s = Seeder(repo.path)
    s.seed()
    repo.write("src/billing/invoice.py", "def total(): return 100\n")
    sha = repo.commit("totals in cents")
    s.seed()
    code, rep = _drift(cli, repo)
    states = {r["id"]: r for r in rep["records"]}
    assert code == 0 and set(states) == {"dec-invoice", "dec-auth"}  # dec-none cites no path: no state
    assert states["dec-auth"]["state"] == "fresh"
    inv = states["dec-invoice"]
    assert inv["state"] == "drifted" and [c["sha"] for c in inv["changed"]] == [sha]
    assert inv["changed"][0]["subject"] == "totals in cents" and inv["diffstat"] == "1 files, +1 -1"
    doc = cli("doctor", "--repo", repo.path, "--json")
    assert json.loads(doc.stdout)["counts"]["drifted"] == 1  # doctor counts what the view holds
    text = cli("doctor", "--repo", repo.path).stdout
    assert "evidence: 1 records drifted, 0 cite missing paths" in text

    def no_git_work(*a, **k):
        raise AssertionError("a no-op reseed recomputed drift")

    real = drift_git.history
    monkeypatch.setattr(drift_git, "history", no_git_work)
    assert not s.seed().errors  # nothing changed: the stored key matches, only `git status` ran
    monkeypatch.setattr(drift_git, "history", real)
    code, rep = _drift(cli, repo, "--at", first)  # `--at` views answer as of their commit
    assert {r["id"]: r["state"] for r in rep["records"]} == {"dec-invoice": "fresh", "dec-auth": "fresh"}


def test_recall_marks_a_drifted_record_and_multiplies_its_weight(repo, cli):
    _project(repo)
    repo.write("src/billing/invoice.py", "def total(): return 100\n")
    repo.commit("change totals")
    assert cli("seed", "--repo", repo.path).exit_code == 0
    r = cli("recall", "how are invoice totals computed?", "--repo", repo.path, "--json")
    got = {x["id"]: x for x in json.loads(r.stdout)["results"]}
    inv = got["dec-invoice"]
    assert inv["evidence"]["state"] == "drifted" and inv["evidence"]["changed"][0]["subject"] == "change totals"
    from jupiter_git_memory.recall.ranking import DEFAULT_WEIGHTS

    assert inv["why"]["weight"] == pytest.approx(DEFAULT_WEIGHTS["decision"]["accepted"] * 0.8)  # x drift_weight
    text = cli("recall", "how are invoice totals computed?", "--repo", repo.path).stdout
    assert "evidence drifted: 1 commit since to src/billing/invoice.py" in text
    ctx = cli("context", "--goal", "invoice totals", "--repo", repo.path, "--json")
    pack = json.loads(ctx.stdout)
    assert "evidence drifted: 1 commit since to src/billing/invoice.py" in pack["text"]
    assert [p["evidence"]["state"] for p in pack["records"] if p["id"] == "dec-invoice"] == ["drifted"]
    from jupiter_git_memory.recall.service import Recaller
    from jupiter_git_memory.surfaces.agent.brief import session_brief

    brief = session_brief(Recaller(repo.path))  # the last commit touched the cited file: the brief shows it
    assert brief and "dec-invoice" in brief and "evidence drifted: 1 commit since" in brief


def test_base_lists_exactly_the_records_whose_cited_code_the_branch_touches(repo, cli):
    _project(repo)
    repo.git("checkout", "-q", "-b", "feat")
    repo.write("src/auth/session.py", "TTL = 60\n")  # under dec-auth's cited folder
    repo.write("src/billing/tax.py", "RATE = 0.25\n")  # a sibling of dec-invoice's file: cited by nobody
    repo.commit("sessions")
    assert cli("seed", "--repo", repo.path).exit_code == 0
    code, rep = _drift(cli, repo, "--base", "main")
    assert [(r["id"], r["state"], r["touched"]) for r in rep["records"]] == [
        ("dec-auth", "drifted", ["src/auth/session.py"])
    ]
    assert code == 0
    failing = cli("drift", "--repo", repo.path, "--base", "main", "--fail-on", "drifted", "--markdown")
    assert failing.exit_code == 1 and "**dec-auth**" in failing.stdout and "dec-invoice" not in failing.stdout
    assert cli("drift", "--repo", repo.path, "--fail-on", "missing").exit_code == 0
    bad = cli("drift", "--repo", repo.path, "--fail-on", "sometimes")
    assert bad.exit_code == 2 and "--fail-on must be one of" in bad.output


def test_uncommitted_edit_to_cited_code_drifts_the_worktree_view_and_deletion_is_missing(repo, cli):
    _project(repo)
    assert cli("seed", "--repo", repo.path).exit_code == 0
    repo.write("src/billing/invoice.py", "def total(): return 7\n")  # not committed, not reseeded
    _, rep = _drift(cli, repo)
    inv = {r["id"]: r for r in rep["records"]}["dec-invoice"]
    assert inv["state"] == "drifted" and inv["uncommitted"] == ["src/billing/invoice.py"]
    (repo.path / "src/auth/login.py").unlink()
    repo.git("rm", "-q", "src/auth/login.py")
    repo.commit("drop auth")
    _, rep = _drift(cli, repo)
    auth = {r["id"]: r for r in rep["records"]}["dec-auth"]
    assert auth["state"] == "missing" and auth["missing"] == ["src/auth/"]
    assert cli("drift", "--repo", repo.path, "--fail-on", "missing").exit_code == 1


def test_governs_lists_the_in_force_records_citing_a_path(repo, cli):
    _project(repo)
    assert cli("seed", "--repo", repo.path).exit_code == 0
    r = cli("governs", "src/auth/login.py", "src/billing/tax.py", "--repo", repo.path, "--json")
    got = json.loads(r.stdout)
    assert r.exit_code == 0 and [x["id"] for x in got["records"]] == ["dec-auth"]
    assert got["records"][0]["governs"] == [{"file": "src/auth/login.py", "reason": "cites src/auth/"}]
    assert got["records"][0]["evidence"]["state"] == "fresh"
    none = cli("governs", "README.md", "--repo", repo.path)
    assert none.exit_code == 0 and "no in-force record cites README.md" in none.stdout


def test_base_with_no_shared_history_or_no_such_revision_is_a_clear_error(repo, cli):
    _project(repo)
    assert cli("seed", "--repo", repo.path).exit_code == 0
    repo.git("checkout", "-q", "--orphan", "unrelated")
    repo.git("rm", "-rq", "--cached", ".")
    repo.commit("an unrelated history")
    repo.git("checkout", "-q", "-f", "main")
    r = cli("drift", "--repo", repo.path, "--base", "unrelated", "--json")
    err = json.loads(r.stdout)["error"]
    assert r.exit_code == 2 and err["code"] == "revision/no-merge-base"
    assert "'unrelated'" in err["message"] and "--base main" in err["message"] and "fetch-depth" in err["message"]
    text = cli("drift", "--repo", repo.path, "--base", "unrelated")
    assert text.exit_code == 2 and "no common ancestor" in text.output and "fatal:" not in text.output
    gone = cli("drift", "--repo", repo.path, "--base", "no-such-branch", "--json")
    err = json.loads(gone.stdout)["error"]
    assert gone.exit_code == 2 and err["code"] == "revision/not-found"
    assert err["message"].startswith("--base 'no-such-branch' is not a commit")
