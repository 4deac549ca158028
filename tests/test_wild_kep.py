"""KEP statuses: a Kubernetes enhancement keeps its README free of status and says it in `kep.yaml` beside it.
The seed reads that file with the README (worktree and `--rev`), the status goes through the one status table,
and a change to `kep.yaml` alone re-reads the record. Fixture tests/fixtures/wild/kep is ours."""

import shutil
from pathlib import Path

import pytest

from jupiter_git_memory.config import load_settings
from jupiter_git_memory.git.workspace import find_workspace
from jupiter_git_memory.records.formats.sidecar import read_sidecar
from jupiter_git_memory.seed import sources
from jupiter_git_memory.seed.reading import read_knowledge
from jupiter_git_memory.seed.seeder import Seeder

pytestmark = pytest.mark.unit

KEP = Path(__file__).parent / "fixtures" / "wild" / "kep"


def statuses(files, settings) -> dict[str, str]:
    k = read_knowledge(files, {}, settings, reuse=False)
    return {r.id: k.resolution.effective[r.id] for r in k.resolution.records.values()}


def test_kep_yaml_status_is_read_through_the_status_table():
    settings = load_settings(KEP)
    assert "keps/sig-widgets" in settings.roots
    files, _ = sources.read_worktree(KEP, settings)
    got = statuses(files, settings)
    assert got == {
        "ADR-1001": "accepted",  # implementable
        "ADR-1002": "rejected",  # withdrawn
        "ADR-1003": "proposed",  # the template's unfilled "provisional|implementable|…": no status
        "ADR-1004": "accepted",  # implemented, a YAML comment after it; its `#### Status` is an API field's
        "ADR-1005": "accepted",  # no decision-record sections: its kep.yaml makes the README a record
    }
    k = read_knowledge(files, {}, settings, reuse=False)
    rec = next(r for r in k.resolution.records.values() if r.id == "ADR-1002")
    assert "kep.yaml" in rec.metadata["status_source"] and rec.metadata["status_as_written"] == "withdrawn"
    from jupiter_git_memory.seed.checking import explain

    shown = explain(KEP, settings, "keps/sig-widgets/1002-widget-gc/README.md")  # what `jgm check --explain` says
    assert shown["status"] == "rejected" and "1002-widget-gc/kep.yaml` beside it" in shown["status_why"]


def test_a_bad_kep_yaml_is_no_status_never_a_crash():
    side = read_sidecar("keps/x/1-y/kep.yaml", b"status: [unclosed\n")
    assert side.status is None and side.problem
    assert read_sidecar("k.yaml", b"- a list\n").status is None
    assert read_sidecar("k.yaml", b"status: implementable\n").line == 1


def test_a_change_to_kep_yaml_alone_reseeds_the_status_and_rev_reads_it_too(repo):
    shutil.copytree(KEP, repo.path, dirs_exist_ok=True)
    first = repo.commit("keps")
    assert not Seeder(repo.path).seed().errors
    from jupiter_git_memory.recall.service import Recaller

    rc = Recaller(repo.path)
    assert rc.index().catalog.records()["ADR-1001"].effective_status == "accepted"
    rc.close()
    kep = repo.path / "keps/sig-widgets/1001-widget-quotas/kep.yaml"
    kep.write_text(kep.read_text().replace("status: implementable", "status: withdrawn"))
    repo.commit("withdraw 1001")
    Seeder(repo.path).seed()
    rc = Recaller(repo.path)
    assert rc.index().catalog.records()["ADR-1001"].effective_status == "rejected"
    rc.close()
    settings = load_settings(repo.path)
    files, _ = sources.read_rev(find_workspace(repo.path).repo_root, first, settings)
    assert statuses(files, settings)["ADR-1001"] == "accepted"  # as it was at that commit
