"""Issue 27 end to end: `jgm seed` and `jgm check --explain` on a real git repository holding decision
collections of several shapes with no config; and the automatic floor is the same for the same corpus."""

import json
import shutil
import tomllib
from pathlib import Path

import pytest
from cli_helpers import jgm_in, jgm_json_in

pytestmark = pytest.mark.e2e

WILD = Path(__file__).parent / "fixtures" / "wild"


def wild_repo(repo):
    """ADRs three folders deep (`## Status`, change logs), proposals with bullet statuses two of which no table
    knows, guides and tutorials beside them, and a folder of two decision records (a near miss)."""
    shutil.copytree(WILD / "section", repo.path, dirs_exist_ok=True)
    shutil.copytree(WILD / "bullets", repo.path, dirs_exist_ok=True)
    shutil.copytree(WILD / "nearmiss/design", repo.path / "design")
    shutil.copytree(WILD / "statusfolders/withdrawn", repo.path / "withdrawn")
    repo.commit("existing decisions")
    return repo


def test_seed_names_each_collection_and_why_then_check_explains_each_status(repo):
    wild_repo(repo)
    p = jgm_in("seed", cwd=repo.path)
    assert p.returncode == 0, p.stderr
    assert "docs/references/architecture: 11 Markdown files, 9 indexed [nygard 9/9]; skipped: 2 ignored" in p.stdout
    assert "found as a folder of decision records: numbered or dated files with a status marker (8 of 8" in p.stdout
    assert "proposals: 9 Markdown files, 9 indexed [madr2 9/9]; found as a folder of decision records" in p.stdout
    # two collections number 0004-0006 alike: all indexed, and a link goes to its own collection's file
    assert "indexed as 'ADR-0004-task-graph', not 'ADR-0004'" in p.stderr
    assert "points to 'ADR-0004'" not in p.stderr
    block = p.stdout[p.stdout.index("[status_map]") :]
    assert tomllib.loads(block) == {"status_map": {"awaiting tsc vote": "proposed"}}  # one line for two files
    assert (
        "design looks like a decision collection" in p.stderr and 'roots = ["knowledge", "docs/references/' in p.stderr
    )
    for out in ("CHANGELOG.md", "docs/guides/", "docs/tutorials/", "README.md", "visions/", "0000-proposal"):
        assert out not in p.stdout.replace("README, index", "")

    rc, data = jgm_json_in("seed", cwd=repo.path)
    assert rc == 0 and data["counts"]["added"] == 0
    assert any(n.startswith("design looks like a decision collection") for n in data["notes"])
    inv = {d["root"]: d for d in data["inventory"]}
    assert set(inv) == {"knowledge", "docs/references/architecture", "proposals", "withdrawn"}
    assert (
        inv["proposals"]["unmapped"] == {"awaiting tsc vote": 2}
        and inv["docs/references/architecture"]["no_status"] == 1
    )

    rc, e = jgm_json_in("check", "--explain", "docs/references/architecture/adr-102-flood-gossip.md", cwd=repo.path)
    assert (rc, e["id"], e["status"], e["effective_status"]) == (0, "ADR-0102", "superseded", "superseded")
    assert e["collection"].startswith("a folder of decision records: numbered or dated files with a status marker: ")
    assert e["status_why"].startswith("'Implemented. Superseded by [ADR-104](adr-104-pull-gossip.md)' (a `## Status`")
    assert "a retiring phrase" in e["status_why"]
    assert e["links"]["superseded_by"] == [{"written": "ADR-0104", "id": "ADR-0104", "found": True}]
    rc, e = jgm_json_in("check", "--explain", "proposals/0005-timestamp-cache.md", cwd=repo.path)
    assert e["links"]["superseded_by"] == [{"written": "ADR-0004", "id": "ADR-0004-task-graph", "found": True}]
    rc, e = jgm_json_in("check", "--explain", "proposals/0008-sandboxing.md", cwd=repo.path)
    assert (
        e["status"] == "proposed" and "never in force" in e["status_why"] and '"awaiting tsc vote"' in e["status_why"]
    )
    rc, e = jgm_json_in("check", "--explain", "withdrawn/0006-shallow-updates.md", cwd=repo.path)
    assert (e["status"], e["status_why"]) == ("rejected", "'withdrawn' (the folder name `withdrawn/`) via status table")
    rc, e = jgm_json_in("check", "--explain", "docs/references/architecture/adr-106-vote-batching.md", cwd=repo.path)
    assert e["status"] == "proposed" and "adr_missing_status = 'proposed'" in e["status_why"]

    text = jgm_in("check", "--explain", "proposals/0005-timestamp-cache.md", cwd=repo.path)
    assert "collection: a folder of decision records" in text.stdout
    assert (
        "status_why: 'Implemented (Orbit 1.2). Superseded by [OR-0004](0004-task-graph.md)**' (a `Status:` bullet"
        in text.stdout
    )
    check = jgm_in("check", cwd=repo.path)
    assert check.returncode == 0, check.stdout + check.stderr

    rc, got = jgm_json_in("recall", "How do peers learn about new blocks with gossip?", cwd=repo.path)
    ids = [r["id"] for r in got["results"]]
    assert "ADR-0104" in ids and "ADR-0102" not in ids  # the superseded one stays out of default recall


def _corpus(repo, n=24):
    topics = [
        "ledger",
        "queue",
        "cache",
        "search",
        "billing",
        "auth",
        "email",
        "export",
        "import",
        "backup",
        "deploy",
        "metrics",
        "tracing",
        "logging",
        "flags",
        "quota",
        "retry",
        "timeout",
        "pagination",
        "webhook",
        "locale",
        "upload",
        "thumbnail",
        "archive",
    ]
    for i, t in enumerate(topics[:n], 1):
        repo.write(
            f"docs/adr/{i:04d}-{t}.md",
            f"# {i}. How we handle {t}\n\n## Status\n\nAccepted\n\n## Context\n\nWe need {t}.\n\n"
            f"## Decision\n\nWe handle {t} with service {i}, because it is the simplest.\n",
        )
    repo.commit("corpus")


def test_the_auto_floor_is_the_same_for_the_same_corpus_even_when_the_vector_index_misses(repo, monkeypatch):
    from jupiter_git_memory.index.vectors import VectorIndex
    from jupiter_git_memory.recall.calibrate import SHIPPED_PROBES, after_seed, calibrate
    from jupiter_git_memory.recall.service import Recaller
    from jupiter_git_memory.seed.seeder import Seeder

    _corpus(repo)
    first = Seeder(repo.path, calibrate=after_seed).seed().floor
    assert first["action"] == "calibrated"
    again = Seeder(repo.path, calibrate=after_seed).seed(rebuild=True)
    rc = Recaller(repo.path)
    exact = calibrate(rc, SHIPPED_PROBES, save=False)
    assert exact["floor"] == first["floor"] == rc.floor_info().value and again.records == 24
    real_query = VectorIndex.query

    def approximate(self, vector, n):  # fault: an approximate index that misses the nearest chunk
        return real_query(self, vector, n)[1:]

    monkeypatch.setattr(VectorIndex, "query", approximate)
    missed = calibrate(rc, SHIPPED_PROBES, save=False)
    rc.close()
    assert missed["floor"] == exact["floor"] and missed["probes"] == exact["probes"]
    assert json.dumps(missed["probes"])  # cosines as plain numbers


def test_an_empty_default_answer_from_a_mostly_proposed_knowledge_base_says_what_it_left_out(repo):
    from jupiter_git_memory.recall.service import Recaller
    from jupiter_git_memory.seed.seeder import Seeder

    shutil.copytree(WILD / "nostatus", repo.path, dirs_exist_ok=True)  # RFCs that say no status: proposed
    repo.commit("rfcs")
    Seeder(repo.path).seed()
    rc = Recaller(repo.path)
    marked = rc.recall("How are struct fields made private?", k=3)  # the proposed fallback answers, marked
    assert marked.results[0]["id"] == "ADR-0001" and marked.fallback == "proposed"
    assert not any("6 of 6 records are proposed" in w for w in marked.warnings)
    empty = rc.recall("How are struct fields made private?", k=3, fallback=False)  # `proposed_fallback = false`
    assert empty.results == [] and any("6 of 6 records are proposed" in w for w in empty.warnings)
    asked = rc.recall("How are struct fields made private?", k=3, statuses=["proposed"])
    assert asked.results[0]["id"] == "ADR-0001" and not any("proposed" in w for w in asked.warnings)
    assert asked.fallback is None
    rc.close()
