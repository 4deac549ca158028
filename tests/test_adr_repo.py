"""Existing ADR folders in a real repo with no config: discovery, seed, recall, relations, check."""

import json
import shutil
from pathlib import Path

import pytest
from cli_helpers import jgm_in

from jupiter_git_memory.config import load_settings

pytestmark = pytest.mark.e2e

FIX = Path(__file__).parent / "fixtures" / "adr"


def adr_repo(repo):
    """adr-tools records in a folder only `.adr-dir` names, log4brains' in one only `.log4brains.yml` names."""
    shutil.copytree(FIX / "nygard/doc/adr", repo.path / "design/records")
    repo.write(".adr-dir", "design/records\n")
    shutil.copytree(FIX / "log4brains", repo.path, dirs_exist_ok=True)
    repo.commit("existing ADRs")
    return repo


def test_discovery_without_config_and_explicit_roots(repo):
    adr_repo(repo)
    (repo.path / "docs/decisions").mkdir(parents=True)
    assert load_settings(repo.path).roots == ("knowledge", "design/records", "architecture/log", "docs/decisions")
    repo.write("jgm.toml", 'roots = ["architecture/log"]\n')
    assert load_settings(repo.path).roots == ("architecture/log",)


def test_seed_recall_relations_on_existing_adrs(repo, embedder):
    from jupiter_git_memory.recall.service import Recaller
    from jupiter_git_memory.seed.seeder import Seeder

    adr_repo(repo)
    rep = Seeder(repo.path).seed().to_json()  # every file indexed; ADR-0010 says no status: proposed
    inv = {d["root"]: d for d in rep["inventory"]}
    assert inv["design/records"]["formats"] == {"nygard": {"found": 13, "indexed": 13, "errors": 0}}
    assert inv["design/records"]["skipped"] == {"ignored: README, index or template": 2}
    assert inv["design/records"]["no_status"] == 1
    assert inv["architecture/log"]["formats"] == {"log4brains": {"found": 5, "indexed": 5, "errors": 0}}
    assert rep["errors"] == []
    assert any("say no status" in w["message"] and w["path"] == "design/records" for w in rep["warnings"])

    q = "Which database stores the ledger entries?"
    rc = Recaller(repo.path)
    now = rc.recall(q, k=3).results
    assert now[0]["id"] == "ADR-0005" and "ADR-0002" not in [r["id"] for r in now]
    old = rc.recall(q, k=3, statuses=["superseded"]).results
    assert old[0]["id"] == "ADR-0002" and old[0]["status"] == "superseded"
    rc.close()

    rel = json.loads(jgm_in("relations", "ADR-0003", "--json", cwd=repo.path).stdout)
    assert rel["status"] == "accepted" and [e["id"] for e in rel["amended_by"]] == ["ADR-0007", "ADR-0008"]
    assert all(not e["retires"] for e in rel["amended_by"])
    rel2 = json.loads(jgm_in("relations", "ADR-0002", "--json", cwd=repo.path).stdout)
    assert rel2["current"] == ["ADR-0005"] and rel2["superseded_by"][0]["retires"] is True


def check(repo, *args):
    """`jgm check` in-process (the same Typer app the console script runs)."""
    from typer.testing import CliRunner

    from jupiter_git_memory.surfaces.cli.main import app

    return CliRunner().invoke(app, ["check", "--repo", str(repo.path), *args])


def test_check_no_silent_zero_status_map_and_explain(repo):
    repo.write("docs/adr/meeting-notes.md", "# Notes\n\nWe talked about the roadmap.\n")
    repo.write("docs/adr/README.md", "# ADRs\n")
    p = check(repo)
    assert p.exit_code == 1
    assert "docs/adr: warning: 2 Markdown files under this root but no records were indexed" in p.stdout
    assert "jgm check --explain" in p.stdout

    adr_repo(repo)
    (repo.path / "docs/adr/meeting-notes.md").unlink()
    assert check(repo).exit_code == 0  # "Under discussion" (ADR-0013) is in the status table since issue 27
    repo.write(
        "jgm.toml", 'roots = ["design/records", "architecture/log"]\n[status_map]\n"Under discussion" = "proposed"\n'
    )
    p = check(repo, "--json")
    data = json.loads(p.stdout)
    assert p.exit_code == 0 and data["records"] == 18, p.stdout

    e = json.loads(check(repo, "--explain", "design/records/0002-store-ledger-entries-in-postgres.md", "--json").stdout)
    assert (e["format"], e["id"], e["kind"], e["status"], e["effective_status"]) == (
        "nygard",
        "ADR-0002",
        "adr",
        "superseded",
        "superseded",
    )
    assert "numbered file" in e["id_rule"] and "Superseded by" in e["status_why"]
    assert e["links"]["superseded_by"] == [{"written": "ADR-0005", "id": "ADR-0005", "found": True}]


def test_adr_config_keys_are_validated(repo):
    import pytest

    from jupiter_git_memory.config import ConfigError

    repo.write("jgm.toml", '[formats]\n"docs/adr" = "rst"\n')
    with pytest.raises(ConfigError, match="formats.*'rst'.*nygard"):
        load_settings(repo.path)
    repo.write("jgm.toml", '[status_map]\n"Done" = "verified"\n')
    with pytest.raises(ConfigError, match="status_map.*not an ADR status"):
        load_settings(repo.path)
    repo.write("jgm.toml", '[status_map]\n"✅ Done!" = "accepted"\n[formats]\n"docs/adr/" = "madr2"\n')
    opts = load_settings(repo.path).adapter_options()
    assert opts.status_map == {"done": "accepted"} and opts.forced("docs/adr/x.md") == ("madr2", "docs/adr")
