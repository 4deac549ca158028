"""The `jgm` command line as users run it, on real repos: `check`, `seed`/`recall`/`receipt` and recall outside a
repo through the real console script (exit codes and streams as a shell sees them); the rest in process
(tests/cli_helpers.py), the same app without a fresh interpreter per command."""

import json
import os
import re
import shutil
from pathlib import Path

import pytest
import yaml

pytestmark = [pytest.mark.e2e, pytest.mark.slow]  # slow: scheduled first (conftest.py)

PROJECT = Path(__file__).resolve().parents[1]
from cli_helpers import jgm_in  # noqa: E402
from helpers import JGM_EXE, TIMEOUT, jgm  # noqa: E402,F401


def test_check_reports_file_line_fix_and_exit_code(repo):
    repo.record("OK")
    repo.write("knowledge/bad.md", "---\nid: B\nkind: decision\nstatus: approved\ntitle: t\n---\n")
    repo.record("C1", supersedes="C2")
    repo.record("C2", supersedes="C1")
    p = jgm("check", cwd=repo.path)
    assert p.returncode == 1
    assert "knowledge/bad.md:4: error: status 'approved' is not valid for kind 'decision'" in p.stderr
    assert "fix: use one of: proposed, accepted" in p.stderr and "supersede cycle" in p.stderr
    data = json.loads(jgm("check", "--json", cwd=repo.path).stdout)
    assert data["ok"] is False and data["records"] == 1 and len(data["errors"]) == 3
    (repo.path / "knowledge/bad.md").unlink()
    (repo.path / "knowledge/C1.md").unlink()
    (repo.path / "knowledge/C2.md").unlink()
    assert jgm("check", cwd=repo.path).returncode == 0


def test_seed_and_recall_json(repo):
    repo.record(
        "fact-port",
        kind="fact",
        status="verified",
        title="The API server listens on port 8321",
        body="By default the HTTP API binds 127.0.0.1:8321.",
    )
    repo.commit()
    out = json.loads(jgm("seed", "--json", "--repo", str(repo.path), check=True).stdout)
    assert out["counts"]["added"] == 1 and out["counts"]["embedded_chunks"] == 1 and len(out["commit"]) == 40
    rec = json.loads(jgm("recall", "what port does the API use?", "--json", cwd=repo.path, check=True).stdout)
    (r,) = rec["results"]
    assert {"id", "kind", "status", "title", "score", "source", "path", "commit", "snippet"} <= set(r)
    assert r["id"] == "fact-port" and rec["receipt"]["ids"] == ["fact-port"]
    shown = json.loads(jgm("receipt", "show", rec["receipt"]["id"], cwd=repo.path, check=True).stdout)
    assert shown["ids"] == ["fact-port"]
    assert jgm("receipt", "verify", rec["receipt"]["id"], cwd=repo.path).returncode == 0


def test_recall_outside_repo_is_no_workspace(tmp_path, jgm_home):
    p = jgm("recall", "anything", cwd=tmp_path)
    assert p.returncode == 4 and "not inside a git repository" in p.stderr and str(jgm_home) in p.stderr
    t = jgm("recall-task", "--goal", "anything", "--json", cwd=tmp_path)
    assert t.returncode == 4 and json.loads(t.stdout)["status"] == "no-workspace"


def test_recall_task_retrieval_failed_when_model_missing(repo):
    repo.record("A")
    repo.commit()
    env_model = {"JGM_MODEL": "bge-base-en-v1.5"}  # a real spec whose files are not installed here
    p = jgm_in("recall-task", "--goal", "x", "--json", cwd=repo.path, env={**os.environ, **env_model})
    out = json.loads(p.stdout)
    assert p.returncode == 3 and out["status"] == "retrieval-failed" and "jgm model pull" in out["warnings"][0]


def test_model_list(repo):
    data = json.loads(jgm_in("model", "list", "--json", check=True).stdout)
    names = {m["name"]: m for m in data["models"]}
    assert names["minilm-l6-v2-int8"]["available"] and names["minilm-l6-v2-int8"]["default"]
    assert set(names) >= {"bge-small-en-v1.5", "bge-base-en-v1.5"}


def test_project_knowledge_base_passes_check_and_eval_gate(make_repo):
    """Our own knowledge/ is valid and holds the eval gate: the floor is calibrated automatically by the
    seed, no question copies its record, off-topic questions stay empty, nothing leaks. Issue 13's target
    (recall@3 >= 0.95, in-domain empty >= 0.9) is not reached yet; the gate holds what is (bench/README.md:
    0.88-0.90 recall@3 at ~100 records; 0.86 recall@3 and 0.5 in-domain empty at 151 records, 2026-12-04;
    0.884 at 158 records, 2026-12-05; 0.886 at 159 records once the Japanese question became answerable and a
    Slack question took its in-domain place). 0.841 since 48 records were corrected to match the code
    (2026-12-06; no recall code changed): their new text moved 7 of the 30 probes' best cosines by up to 0.03,
    the probes' MAD from 0.018 to 0.031, and so the calibrated floor from 0.28 to 0.31; with the records' new
    text `required-frontmatter`, `change-model-error`, `store-path` and `japanese-questions` are now missed and
    `where-truth-lives` and `proposed-replacement` found. The recall gate sits below the lowest
    figure of bench/eval_noise.py (each question's vector moved by noise of 3e-4 per component: 0.818-0.841
    over 24 runs, `proposed-replacement` flipping), as dec-eval-sets-per-language says."""
    kb = make_repo("self")
    shutil.copytree(PROJECT / "knowledge", kb.path / "knowledge")
    shutil.copy(PROJECT / "pyproject.toml", kb.path / "pyproject.toml")
    kb.commit("knowledge")
    assert jgm_in("check", cwd=kb.path).returncode == 0
    jgm_in("seed", cwd=kb.path, check=True)
    p = jgm_in(
        "eval",
        str(PROJECT / "tests/eval/questions.yaml"),
        "--min-recall",
        "0.81",
        "--min-off-topic-empty",
        "1.0",
        "--min-in-domain-empty",
        "0.5",
        "--json",
        cwd=kb.path,
    )
    report = json.loads(p.stdout)
    hybrid = report["modes"]["hybrid"]
    assert p.returncode == 0, [q for q in hybrid["per_question"] if not q["ok"]]
    assert hybrid["off_topic_empty_rate"] == 1.0 and hybrid["forbidden_leaks"] == 0 and report["lint"] == []
    assert hybrid["answerable"] >= 40 and hybrid["no_answer"] >= 15
    assert len(report["eval_sha256"]) == 64 and report["floor_source"] == "calibrated"
    assert report["floor_provenance"]["source"] == "auto" and report["floor_provenance"]["probe_count"] >= 20
    # the README quickstart's question, asked as the README asks it, is answered first by the record our eval
    # set expects for that question (its `cutoff` question asks the same; the README prints no answer of its
    # own). A new record that outranks it, or a reworded question on another subject, fails here until the
    # README question and the eval set agree again.
    question = re.search(r'jgm recall "([^"]+)"', (PROJECT / "README.md").read_text("utf-8")).group(1)
    (same,) = [
        q
        for q in yaml.safe_load((PROJECT / "tests/eval/questions.yaml").read_text("utf-8"))["questions"]
        if q["id"] == "cutoff"
    ]
    assert same["expect"], same  # the eval set says which record answers it
    answer = json.loads(jgm_in("recall", question, "--json", cwd=kb.path, check=True).stdout)
    assert answer["status"] == "ok" and answer["results"], answer
    top = answer["results"][0]
    assert top["id"] in same["expect"] and top["status"] in ("accepted", "verified"), (question, top)


def test_eval_gate_fails_on_leak(repo, tmp_path):
    repo.record("dec-a", title="Use PostgreSQL as the database", body="We use PostgreSQL.")
    repo.commit()
    jgm_in("seed", cwd=repo.path, check=True)
    f = tmp_path / "q.yaml"
    f.write_text("questions:\n  - {id: q1, query: 'which database do we use?', expect: [dec-a], forbid: [dec-a]}\n")
    p = jgm_in("eval", str(f), "--json", cwd=repo.path)
    assert p.returncode == 1 and json.loads(p.stdout)["gate"]["problems"] == ["1 forbidden leaks"]
    f.write_text("questions: [{query: 1}]\n")
    bad = jgm_in("eval", str(f), cwd=repo.path)
    assert bad.returncode == 2 and "needs `query`" in bad.stderr
