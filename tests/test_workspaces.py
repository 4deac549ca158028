"""Workspaces: one per repo in a shared store, listed from their catalogs, never leaking into each other."""

from __future__ import annotations

import json

import pytest
from api_helpers import make_alpha, make_beta, seed_in_process, workspace_id
from typer.testing import CliRunner

from jupiter_git_memory.surfaces.cli.main import app

pytestmark = pytest.mark.unit

runner = CliRunner()


def two_seeded(make_repo, jgm_home):
    alpha = make_alpha(make_repo("alpha").path)
    beta = make_beta(make_repo("beta").path)
    beta.write("jgm.toml", "global = true\n")
    beta.commit("share beta's records with global recall")
    for r in (alpha, beta):
        seed_in_process(r.path, jgm_home)
    return alpha, beta


def test_workspaces_lists_each_repo_with_counts_commit_and_global_flag(make_repo, jgm_home):
    alpha, beta = two_seeded(make_repo, jgm_home)
    res = runner.invoke(app, ["workspaces", "--json"])
    assert res.exit_code == 0, res.output
    rows = {w["id"]: w for w in json.loads(res.stdout)["workspaces"]}
    a, b = rows[workspace_id(alpha.path)], rows[workspace_id(beta.path)]
    assert len(rows) == 2
    assert (a["name"], a["root"], a["records"], a["global"]) == ("alpha", str(alpha.path), 7, False)
    assert (b["name"], b["root"], b["records"], b["global"]) == ("beta", str(beta.path), 2, True)
    assert a["last_seeded_commit"] == alpha.git("rev-parse", "HEAD").stdout.strip()
    assert b["last_seeded_commit"] == beta.git("rev-parse", "HEAD").stdout.strip()
    assert a["error"] is None and a["root_exists"] and a["last_seed_at"] > 0
    text = runner.invoke(app, ["workspaces"])
    assert text.exit_code == 0 and a["id"] in text.stdout and b["id"] in text.stdout and "global" in text.stdout


def test_recall_never_crosses_workspaces(make_repo, jgm_home):
    from jupiter_git_memory.recall.service import Recaller

    alpha, beta = two_seeded(make_repo, jgm_home)
    in_alpha = Recaller(alpha.path).recall("Stripe is the payment processor for card payments and refunds", k=10)
    in_beta = Recaller(beta.path).recall("Use PostgreSQL as the primary database", k=10)
    assert not any(r["id"].startswith(("dec-b", "fact-b")) for r in in_alpha.results)
    assert not any(r["id"].startswith(("dec-a", "fact-a", "hist-a")) for r in in_beta.results)
    assert Recaller(beta.path).recall("Which payment processor handles refunds?").results[0]["id"] == "dec-b-payments"
    assert in_alpha.receipt["workspace"] == workspace_id(alpha.path)


def test_unreadable_catalog_is_reported_not_fatal(make_repo, jgm_home):
    alpha = make_alpha(make_repo("alpha").path)
    seed_in_process(alpha.path, jgm_home)
    broken = jgm_home / "workspaces" / "broken-0123456789"
    broken.mkdir(parents=True)
    (broken / "catalog.sqlite").write_bytes(b"this is not a sqlite database" * 10)
    rows = {w["id"]: w for w in json.loads(runner.invoke(app, ["workspaces", "--json"]).stdout)["workspaces"]}
    assert rows[workspace_id(alpha.path)]["records"] == 7
    err = rows["broken-0123456789"]["error"]
    assert str(broken / "catalog.sqlite") in err and "jgm seed" in err


def test_empty_store_says_how_to_start(jgm_home):
    res = runner.invoke(app, ["workspaces"])
    assert res.exit_code == 0 and "jgm seed" in res.stdout and str(jgm_home) in res.stdout
    assert json.loads(runner.invoke(app, ["workspaces", "--json"]).stdout) == {
        "store": {"path": str(jgm_home), "source": "JGM_HOME"},
        "workspaces": [],
    }
