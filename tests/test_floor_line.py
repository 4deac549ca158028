"""One clear line about which floor is in force and where it came from (issue 37, item 7): the seed, `jgm
doctor` and recall's receipt line say it in the same words: set in the settings, calibrated on this knowledge
base from N probe questions, or the model's shipped default and why (too few records, calibration off)."""

from __future__ import annotations

import pytest
from cli_helpers import jgm_in, jgm_json_in

from jupiter_git_memory.embedding.specs import MINILM_INT8
from jupiter_git_memory.recall.floors import MIN_RECORDS, floor_for, save_floor

pytestmark = pytest.mark.unit

IDENT = {"model": "m", "revision": "1"}


def test_each_source_names_the_floor_and_where_it_came_from(tmp_path):
    config = floor_for("ws", IDENT, MINILM_INT8, override=0.42, store=tmp_path).provenance["in_force"]
    assert config == "floor 0.42 in force: set in the project settings (`floor = 0.42`)"

    few = floor_for("ws", IDENT, MINILM_INT8, store=tmp_path, records=3).provenance["in_force"]
    assert few.startswith(f"floor {MINILM_INT8.language_floors.get('en', MINILM_INT8.default_floor):g} in force: ")
    assert f"{MINILM_INT8.name}'s shipped default, because this knowledge base has 3 recallable records" in few
    assert f"fewer than the {MIN_RECORDS} a calibration needs" in few
    off = floor_for("ws", IDENT, MINILM_INT8, store=tmp_path, auto_calibrate=False, records=99)
    assert off.provenance["in_force"].endswith("because auto-calibration is off (`auto_calibrate = false`)")
    unknown = floor_for("ws", IDENT, MINILM_INT8, store=tmp_path).provenance["in_force"]
    assert unknown.endswith("because no floor has been measured on this knowledge base yet (`jgm seed` measures one)")

    details = {"source": "auto", "probe_count": 30, "corpus": {"records": 57, "chunks": 80}}
    save_floor("ws", IDENT, 0.27, details, tmp_path)
    measured = floor_for("ws", IDENT, MINILM_INT8, store=tmp_path).provenance["in_force"]
    assert (
        measured
        == "floor 0.27 in force: calibrated on this knowledge base (57 records) from 30 shipped probe questions"
    )
    zh = floor_for("ws", IDENT, MINILM_INT8, store=tmp_path, language="zh").provenance["in_force"]
    assert zh.startswith(  # MiniLM ships a stricter floor for Chinese questions than the English probes gave
        f"floor {MINILM_INT8.language_floors['zh']:g} in force for zh questions: {MINILM_INT8.name}'s shipped floor "
        "for them, stricter than the floors calibrated on this knowledge base (57 records)"
    )
    save_floor("ws", IDENT, 0.33, dict(details, source="probes", probes_file="team.yaml", probe_count=12), tmp_path)
    own = floor_for("ws", IDENT, MINILM_INT8, store=tmp_path).provenance["in_force"]
    assert (
        own
        == "floor 0.33 in force: calibrated on this knowledge base (57 records) from 12 probe questions from team.yaml"
    )


def _lines(repo) -> tuple[str, str, str]:
    """(the seed's floor line, doctor's, the recall receipt line's), as the CLI prints them."""
    seed = jgm_in("seed", "--repo", repo.path, check=True).stdout
    doctor = jgm_in("doctor", "--repo", repo.path, check=True).stdout
    recall = jgm_in("recall", "how are retries handled", "--repo", repo.path, check=True).stdout
    (s,) = [line for line in seed.splitlines() if line.startswith("floor ")]
    (d,) = [line for line in doctor.splitlines() if line.startswith("floor ")]
    (r,) = [line.split(" · ", 1)[1] for line in recall.splitlines() if line.startswith("receipt ")]
    return s, d, r


@pytest.mark.integration
def test_seed_doctor_and_recall_say_the_same_line(repo):
    for i in range(3):
        repo.record(f"dec-{i}", title=f"Retries policy {i}", body=f"Retries back off exponentially, attempt {i}.")
    repo.commit()
    seed, doctor, recall = _lines(repo)
    assert seed == doctor == recall, (seed, doctor, recall)
    assert "shipped default, because this knowledge base has 3 recallable records" in seed

    for i in range(3, MIN_RECORDS + 2):
        repo.record(f"dec-{i}", title=f"Subsystem {i} choice", body=f"Subsystem {i} uses option {i} for reason {i}.")
    repo.commit()
    seed, doctor, recall = _lines(repo)
    assert seed == doctor == recall, (seed, doctor, recall)
    assert f"calibrated on this knowledge base ({MIN_RECORDS + 2} records) from " in seed
    assert "shipped probe questions" in seed

    _, answer = jgm_json_in("recall", "how are retries handled", "--repo", repo.path)
    assert answer["floor_provenance"]["in_force"] == recall  # the API/MCP answers carry the same line
    _, diagnosis = jgm_json_in("doctor", "--repo", repo.path)
    assert diagnosis["floor"]["line"] == doctor and diagnosis["floor"]["source"] == "calibrated"

    repo.write("jgm.toml", "floor = 0.45\n")
    seed, doctor, recall = _lines(repo)
    assert seed == doctor == recall == "floor 0.45 in force: set in the project settings (`floor = 0.45`)"


@pytest.mark.integration
def test_a_failed_calibration_says_so_and_which_floor_still_holds(repo, monkeypatch):
    from jupiter_git_memory.recall import calibrate
    from jupiter_git_memory.seed.seeder import Seeder

    repo.record("dec-0", title="Retries policy", body="Retries back off exponentially.")
    repo.commit()

    def broken(views):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(calibrate, "auto_calibrate", broken)
    floor = Seeder(repo.path, calibrate=calibrate.after_seed).seed().floor
    assert floor["action"] == "failed" and floor["reason"] == "OSError: [Errno 5] Input/output error"
    assert floor["line"].startswith("floor calibration failed (OSError: [Errno 5] Input/output error); floor ")
    assert (
        "in force: " in floor["line"]
        and "shipped default, because this knowledge base has 1 recallable" in floor["line"]
    )


@pytest.mark.integration
def test_a_shipped_floor_counts_the_views_records_once_per_generation(repo, monkeypatch):
    """Why a shipped floor holds depends on how many records are in force; the count is on every such
    recall's path (3 ms at 7,000 records), so it is made once per catalog generation, and again after a seed."""
    from jupiter_git_memory.index.catalog import Catalog
    from jupiter_git_memory.recall.service import Recaller
    from jupiter_git_memory.seed.seeder import Seeder

    for i in range(3):
        repo.record(f"dec-{i}", title=f"Retries policy {i}", body=f"Retries back off exponentially, attempt {i}.")
    repo.commit()
    assert not Seeder(repo.path).seed().errors
    counts: list[int] = []
    real = Catalog.count_in

    def count_in(self, statuses):
        counts.append(n := real(self, statuses))
        return n

    monkeypatch.setattr(Catalog, "count_in", count_in)
    rc = Recaller(repo.path)
    try:
        first = [rc.recall("how are retries handled", k=3).floor_provenance["in_force"] for _ in range(3)]
        assert counts == [3] and all("has 3 recallable records" in line for line in first), (counts, first)
        repo.record("dec-3", title="Retries policy 3", body="Retries give up after five attempts.")
        repo.commit()
        assert not Seeder(repo.path).seed().errors
        again = rc.recall("how are retries handled", k=3).floor_provenance["in_force"]
        assert counts == [3, 4] and "has 4 recallable records" in again, (counts, again)
    finally:
        rc.close()
