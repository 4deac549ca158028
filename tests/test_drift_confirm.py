"""`jgm drift confirm ID...` (issue 37, item 2): a person's confirmation is one `reviewed` line in the record's
file, in Git; a confirmed record is fresh until its cited code changes after the reviewed commit. Real repos in
temp dirs, the CLI in process."""

from __future__ import annotations

import datetime as _dt
import json

import pytest
from cli_helpers import jgm_in, jgm_json_in

pytestmark = pytest.mark.plumbing  # the words of the records do not matter here, only states and files


def _states(repo) -> dict[str, dict]:
    code, rep = jgm_json_in("drift", "--repo", repo.path)
    assert code == 0, rep
    return {r["id"]: r for r in rep["records"]}


def _numstat(repo, *args: str) -> list[str]:
    return repo.git("diff", "--numstat", *args).stdout.split("\n")[:-1]


def _project(repo) -> str:
    repo.write("src/billing/invoice.py", "def total():\n    return 1\n")
    repo.write("src/billing/tax.py", "RATE = 0.2\n")
    repo.record("dec-cents", title="Invoice totals are integers in cents", source="src/billing/invoice.py")
    repo.record("dec-tax", title="Tax is a flat rate", source="src/billing/tax.py")
    repo.record("dec-url", title="We follow the style guide", source="https://example.com/style")
    repo.record("dec-old", status="superseded", title="Totals were floats", source="src/billing/invoice.py")
    repo.commit("start")
    repo.write("src/billing/invoice.py", "def total():\n    return 100\n")
    return repo.commit("totals in cents")


def test_confirm_writes_one_line_and_the_record_stays_fresh_until_its_cited_code_changes_again(repo):
    _project(repo)
    assert jgm_in("seed", "--repo", repo.path).returncode == 0
    assert _states(repo)["dec-cents"]["state"] == "drifted"
    head = repo.git("rev-parse", "HEAD").stdout.strip()
    before = (repo.path / "knowledge/dec-cents.md").read_bytes()
    code, got = jgm_json_in("drift", "confirm", "dec-cents", "--repo", repo.path)
    assert code == 0 and got["mode"] == "worktree" and got["commit"] == head
    line = f"reviewed: {head} on {_dt.date.today().isoformat()}"
    assert [(r["id"], r["path"], r["text"]) for r in got["records"]] == [("dec-cents", "knowledge/dec-cents.md", line)]
    assert _numstat(repo) == ["1\t0\tknowledge/dec-cents.md"]  # exactly one line added, nothing else changed
    after = (repo.path / "knowledge/dec-cents.md").read_bytes()
    assert after.replace(line.encode() + b"\n", b"") == before
    assert "git commit" in got["next"] and "knowledge/dec-cents.md" in got["next"]
    assert _states(repo)["dec-cents"]["state"] == "fresh"  # being edited: its own drift waits for the commit
    repo.commit("confirm dec-cents")
    states = _states(repo)
    assert states["dec-cents"]["state"] == "fresh" and states["dec-tax"]["state"] == "fresh"
    assert _governed(repo) == "fresh"
    repo.write("src/billing/invoice.py", "def total():\n    return 100  # cents\n")
    again = repo.commit("comment the unit")
    cents = _states(repo)["dec-cents"]
    assert cents["state"] == "drifted" and [c["sha"] for c in cents["changed"]] == [again]
    assert _governed(repo) == "drifted"  # recall's evidence reads the same stored state


def _governed(repo) -> str:
    """dec-cents's evidence state as recall answers give it (`jgm governs`, from the view's stored drift)."""
    code, got = jgm_json_in("governs", "src/billing/invoice.py", "--repo", repo.path)
    assert code == 0, got
    return next(r["evidence"]["state"] for r in got["records"] if r["id"] == "dec-cents")


def test_the_baseline_is_the_reviewed_commit_not_the_commit_that_carries_the_line(repo, monkeypatch):
    """Code that changed after the review drifts the record even when the line is committed after it."""
    _project(repo)
    assert jgm_in("seed", "--repo", repo.path).returncode == 0
    assert jgm_in("drift", "confirm", "dec-cents", "--repo", repo.path).returncode == 0
    repo.write("src/billing/invoice.py", "def total():\n    return 200\n")
    repo.git("commit", "-q", "-m", "after the review", "--", "src/billing/invoice.py")
    later = repo.git("rev-parse", "HEAD").stdout.strip()
    repo.commit("confirm dec-cents")  # the line lands after the code change it never saw
    cents = _states(repo)["dec-cents"]
    assert cents["state"] == "drifted" and [c["sha"] for c in cents["changed"]] == [later]
    assert cents["baseline"] != cents["commit"]  # the reviewed commit, older than the file's last commit
    assert cents["reviewed"].startswith(cents["baseline"] + " on ")
    text = jgm_in("drift", "--repo", repo.path).stdout
    assert f"dec-cents: Invoice totals are integers in cents · confirmed at {cents['baseline'][:10]}" in text
    from jupiter_git_memory.seed import drift as seed_drift
    from jupiter_git_memory.seed.seeder import Seeder

    def resolved(*a, **k):
        raise AssertionError("a no-op reseed resolved the reviewed commits again")

    monkeypatch.setattr(seed_drift.revisions, "in_history", resolved)
    assert not Seeder(repo.path).seed().errors  # the values are in the drift key as written: nothing to resolve


def test_a_reviewed_commit_outside_the_history_falls_back_to_the_files_commit_and_check_warns(repo):
    _project(repo)
    repo.record(
        "dec-cents",
        title="Invoice totals are integers in cents",
        source="src/billing/invoice.py",
        reviewed="0123456789abcdef0123456789abcdef01234567 on 2026-01-01",
    )
    repo.commit("a reviewed line naming no commit of ours")
    assert jgm_in("seed", "--repo", repo.path).returncode == 0
    assert _states(repo)["dec-cents"]["state"] == "fresh"  # counted from the file's last commit, as before
    code, rep = jgm_json_in("check", "--repo", repo.path)
    warned = [w for w in rep["warnings"] if w["record_id"] == "dec-cents"]
    assert len(warned) == 1 and warned[0]["line"] == 7 and "jgm drift confirm dec-cents" in warned[0]["fix"]


def test_refusals_name_the_reason_and_write_nothing(repo):
    _project(repo)
    assert jgm_in("seed", "--repo", repo.path).returncode == 0
    cases = {
        ("dec-nope",): ("memory/not-found", 4),
        ("dec-old",): ("confirm/not-in-force", 1),
        ("dec-url",): ("confirm/uncited", 1),
        ("dec-tax", "dec-url"): ("confirm/uncited", 1),  # all or nothing: dec-tax is not written either
        ("../x",): ("request/bad-id", 2),
    }
    for ids, (want, exit_code) in cases.items():
        code, got = jgm_json_in("drift", "confirm", *ids, "--repo", repo.path)
        assert (got["error"]["code"], code) == (want, exit_code), (ids, got)
        assert "jgm" in got["error"]["message"] or "evidence" in got["error"]["message"] or want != "confirm/uncited"
    assert repo.git("status", "--porcelain").stdout == ""
    repo.write("src/billing/invoice.py", "def total():\n    return 3\n")  # uncommitted cited code
    code, got = jgm_json_in("drift", "confirm", "dec-cents", "--repo", repo.path)
    assert (
        code == 1
        and got["error"]["code"] == "confirm/uncommitted"
        and "src/billing/invoice.py" in got["error"]["message"]
    )
    assert repo.git("status", "--porcelain").stdout == " M src/billing/invoice.py\n"


def test_branch_mode_commits_the_line_on_a_new_branch_and_leaves_the_checkout_untouched(repo):
    _project(repo)
    assert jgm_in("seed", "--repo", repo.path).returncode == 0
    head = repo.git("rev-parse", "HEAD").stdout.strip()
    repo.write("notes.txt", "my own uncommitted work\n")
    code, got = jgm_json_in("drift", "confirm", "dec-cents", "dec-tax", "--branch", "--repo", repo.path)
    assert code == 0 and got["mode"] == "branch" and got["branch"].startswith("jgm/confirm-dec-cents")
    assert (
        repo.git("rev-parse", "HEAD").stdout.strip() == head and repo.git("branch", "--show-current").stdout == "main\n"
    )
    assert repo.git("status", "--porcelain").stdout == "?? notes.txt\n"  # working tree and index as they were
    assert repo.git("rev-parse", f"{got['branch']}^").stdout.strip() == head
    assert sorted(_numstat(repo, head, got["branch"])) == ["1\t0\tknowledge/dec-cents.md", "1\t0\tknowledge/dec-tax.md"]
    assert "git push" in got["next"]
    repo.git("merge", "-q", "--ff-only", got["branch"])
    assert {rid: r["state"] for rid, r in _states(repo).items()} == {
        "dec-cents": "fresh",
        "dec-tax": "fresh",
        "dec-url": "external",
    }
    repo.write("knowledge/dec-tax.md", (repo.path / "knowledge/dec-tax.md").read_text() + "More.\n")
    code, got = jgm_json_in("drift", "confirm", "dec-tax", "--branch", "--repo", repo.path)
    assert code == 1 and got["error"]["code"] == "confirm/uncommitted" and "without --branch" in got["error"]["message"]
    edited = (repo.path / "knowledge/dec-tax.md").read_text()
    assert jgm_in("drift", "confirm", "dec-tax", "--repo", repo.path).returncode == 0  # on the tree: edits kept
    now = (repo.path / "knowledge/dec-tax.md").read_text()
    assert now.endswith("More.\n") and len(now.splitlines()) == len(edited.splitlines())  # its line replaced


def test_confirm_on_adr_adapter_records(repo):
    """A MADR 3 record with `evidence` gets a `reviewed` front matter key; a Nygard ADR citing only itself is
    refused as uncited (its own file is not code to re-read it against)."""
    repo.write("jgm.toml", 'roots = ["docs/decisions"]\n')
    repo.write("src/db.py", "ENGINE = 'postgres'\n")
    madr = "---\nstatus: accepted\ndate: 2026-01-02\nevidence: src/db.py\n---\n# Use Postgres\n\n## Context\n\nX.\n"
    repo.write("docs/decisions/0001-use-postgres.md", madr)
    nygard = "# 2. Log in JSON\n\nDate: 2026-01-03\n\n## Status\n\nAccepted\n\n## Context\n\nY.\n"
    repo.write("docs/decisions/0002-log-in-json.md", nygard)
    repo.commit("adrs")
    repo.write("src/db.py", "ENGINE = 'postgresql'\n")
    repo.commit("rename the engine")
    assert jgm_in("seed", "--repo", repo.path).returncode == 0
    states = _states(repo)
    rid = next(r for r, d in states.items() if d["path"] == "docs/decisions/0001-use-postgres.md")
    assert states[rid]["state"] == "drifted"
    code, got = jgm_json_in("drift", "confirm", rid, "--repo", repo.path)
    assert code == 0 and got["records"][0]["line"] == 5 and got["records"][0]["text"].startswith("reviewed: ")
    assert _numstat(repo) == ["1\t0\tdocs/decisions/0001-use-postgres.md"]
    repo.commit("confirm")
    assert _states(repo)[rid]["state"] == "fresh"
    nyg = json.loads(
        jgm_in("check", "--explain", "docs/decisions/0002-log-in-json.md", "--repo", repo.path, "--json").stdout
    )
    code, got = jgm_json_in("drift", "confirm", nyg["id"], "--repo", repo.path)
    assert code == 1 and got["error"]["code"] == "confirm/uncited"
