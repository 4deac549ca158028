"""Per-workspace floors: keyed by (workspace, model identity), calibrated after a material seed, with
provenance; the eval lint; probes disjoint from every eval set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from jupiter_git_memory.recall.calibrate import MIN_RECORDS, SHIPPED_PROBES, after_seed, auto_calibrate, robust_floor
from jupiter_git_memory.recall.eval_lint import content_words, shared_run
from jupiter_git_memory.recall.floors import corpus_change, corpus_sketch, floors_path, get_floor, save_floor
from jupiter_git_memory.recall.service import Recaller
from jupiter_git_memory.seed.seeder import Seeder

pytestmark = pytest.mark.unit

PROJECT = Path(__file__).resolve().parents[1]
TOPICS = [
    "database",
    "cache",
    "queue",
    "logging",
    "metrics",
    "tracing",
    "auth",
    "billing",
    "search",
    "email",
    "storage",
    "backups",
    "deploys",
    "feature flags",
    "rate limits",
    "retries",
    "timeouts",
    "pagination",
    "webhooks",
    "exports",
    "imports",
    "locales",
]


def _corpus(repo, n=MIN_RECORDS + 2):
    for i, topic in enumerate(TOPICS[:n]):
        repo.record(
            f"dec-{i:02d}",
            title=f"How we handle {topic}",
            body=f"We handle {topic} with tool {i} because it is simple.",
        )
    repo.commit("corpus")


def test_floor_store_is_per_workspace_and_identity(tmp_path):
    ident = {"model": "m", "sha": "1"}
    save_floor("ws-a", ident, 0.41, {"source": "probes"}, tmp_path)
    assert get_floor("ws-a", ident, tmp_path)["floor"] == 0.41
    assert get_floor("ws-b", ident, tmp_path) is None  # another workspace never inherits it
    assert get_floor("ws-a", {"model": "m", "sha": "2"}, tmp_path) is None  # nor another identity
    # a v1 store (keyed by identity alone) is not trusted for any workspace
    floors_path(tmp_path).write_text(json.dumps({"abc": {"floor": 0.2, "identity": ident}}))
    assert get_floor("ws-a", ident, tmp_path) is None


def test_corpus_change_estimate():
    ids = {f"c{i:04d}" for i in range(1000)}
    sk = corpus_sketch(ids)
    assert corpus_change(sk, ids) == 0.0
    changed = {c for c in ids if c >= "c0200"} | {f"n{i:04d}" for i in range(200)}
    assert corpus_change(sk, changed) >= 0.1
    assert corpus_change(None, ids) == 1.0


def test_robust_floor_ignores_one_near_domain_probe():
    cosines = [0.20, 0.21, 0.22, 0.23, 0.24, 0.25, 0.26, 0.60]
    floor, med, mad = robust_floor(cosines)
    assert floor < 0.35 < max(cosines) and med == 0.235


def test_seed_calibrates_automatically_with_provenance(make_repo, tmp_path):
    a, b = make_repo("a"), make_repo("b")
    _corpus(a)
    b.record("dec-one", title="Use PostgreSQL", body="We use PostgreSQL because of its JSON support.")
    b.commit("tiny")
    report = Seeder(a.path, calibrate=after_seed).seed()
    assert report.floor["action"] == "calibrated"
    assert report.floor["reason"].startswith("first measurement for this knowledge base with the shipped probes (en ")
    assert set(report.floor["languages"]) == {"en", "zh"}  # a floor per shipped probe language
    info = Recaller(a.path).floor_info()
    assert info.source == "calibrated" and info.value == report.floor["floor"]
    assert info.provenance["source"] == "auto" and info.provenance["probes_file"] == str(SHIPPED_PROBES)
    assert info.provenance["corpus"]["records"] == MIN_RECORDS + 2 and "sketch" not in info.provenance["corpus"]
    assert Seeder(a.path, calibrate=after_seed).seed().floor["action"] == "kept"  # unchanged corpus: not measured again
    # a tiny workspace keeps the shipped default, and never uses workspace a's floor
    tiny = Seeder(b.path, calibrate=after_seed).seed().floor
    assert tiny["action"] == "shipped" and tiny["floor"] == 0.3 and "shipped calibration" in tiny["reason"]
    other = Recaller(b.path)
    assert other.floor_info().source == "shipped-default"
    assert other.floor_info().warnings[0].startswith("floor 0.3: minilm-l6-v2-int8's shipped calibration for en")
    assert other.floor_info("我們用哪個資料庫？").value == 0.55  # a Chinese question: the shipped zh floor


def test_a_floor_measured_before_the_lexical_gate_is_measured_again_once(make_repo):
    repo = make_repo("gate")
    _corpus(repo)
    Seeder(repo.path, calibrate=after_seed).seed()
    rc = Recaller(repo.path)
    entry = get_floor(rc.workspace.id, rc.floor_identity)
    assert "lexical_gate" in entry["languages"]["zh"] and "lexical_gate" not in entry["languages"]["en"]
    del entry["languages"]["zh"]["lexical_gate"]  # as a store calibrated by an earlier version holds it
    save_floor(rc.workspace.id, rc.floor_identity, entry["floor"], entry)
    assert rc.floor_info("我們用哪個資料庫？").gate is None
    again = Seeder(repo.path, calibrate=after_seed).seed().floor
    assert again["action"] == "calibrated" and again["reason"].startswith("measured before the lexical gate")
    gate = Recaller(repo.path).floor_info("我們用哪個資料庫？").gate
    assert gate is not None and gate[0] < again["languages"]["zh"]
    assert Seeder(repo.path, calibrate=after_seed).seed().floor["action"] == "kept"


def test_a_floor_measured_before_the_pair_floors_is_measured_again_once(make_repo):
    repo = make_repo("pair")
    _corpus(repo)  # English records only: measured, there is no pair floor, and it says so as null
    Seeder(repo.path, calibrate=after_seed).seed()
    rc = Recaller(repo.path)
    entry = get_floor(rc.workspace.id, rc.floor_identity)
    assert entry["languages"]["en"]["cross_floor"] is None and rc.floor_info().cross_floor is None
    del entry["languages"]["en"]["cross_floor"]  # as a store calibrated by an earlier version holds it
    save_floor(rc.workspace.id, rc.floor_identity, entry["floor"], entry)
    again = Seeder(repo.path, calibrate=after_seed).seed().floor
    assert again["action"] == "calibrated" and "the floors per language pair" in again["reason"]
    assert "cross_floor" in get_floor(rc.workspace.id, rc.floor_identity)["languages"]["en"]
    assert Seeder(repo.path, calibrate=after_seed).seed().floor["action"] == "kept"


def test_only_recallable_records_count_towards_calibrating(make_repo):
    """The records a floor is measured on are the ones recall returns by default: proposed and superseded
    records of the view do not make a small corpus large enough."""
    repo = make_repo("counted")
    _corpus(repo, MIN_RECORDS - 1)
    repo.record("dec-new", status="proposed", title="A proposal", body="Perhaps a queue.")
    repo.record("dec-old", title="Old way", body="Cron jobs.", superseded_by="dec-00")
    repo.commit("not recallable by default")
    floor = Seeder(repo.path, calibrate=after_seed).seed().floor
    assert floor["action"] == "shipped" and floor["reason"].startswith(f"{MIN_RECORDS - 1} recallable records")
    repo.record("dec-more", title="How we handle retries", body="We retry three times with backoff.")
    repo.commit("one more in force")
    assert Seeder(repo.path, calibrate=after_seed).seed().floor["action"] == "calibrated"


def test_calibrate_command_floor_is_kept_by_seed(make_repo, tmp_path):
    repo = make_repo("c")
    _corpus(repo)
    Seeder(repo.path).seed()
    from jupiter_git_memory.recall.calibrate import calibrate

    probes = tmp_path / "p.txt"
    probes.write_text(
        "\n".join(
            [
                "Who won the chess final?",
                "What is the best pasta shape?",
                "How tall is K2?",
                "Which birds migrate south?",
                "What is a haiku?",
            ]
        )
    )
    res = calibrate(Recaller(repo.path), probes)
    assert res["source"] == "probes" and res["median_cos"] <= res["floor"]
    assert auto_calibrate(Recaller(repo.path))["action"] == "kept"  # a team's own probes win over ours
    assert Recaller(repo.path).floor_info().provenance["probes_file"] == str(probes)


def test_eval_lint_flags_copied_runs():
    record = "This is how recall decides that it has no answer for a question."
    assert (
        shared_run("How does the tool decide that it has no answer for a question?", record)
        == "decid no answer question"
    )
    assert shared_run("How does the memory tell that a question lies outside what it knows?", record) is None
    assert content_words("The Decisions were made") == ["decision", "made"]


def _questions():
    files = [PROJECT / "tests/eval/questions.yaml", *sorted((PROJECT / "bench/eval").glob("*.yaml"))]
    return {f.name: [q["query"] for q in yaml.safe_load(f.read_text())["questions"]] for f in files}


def test_probes_disjoint_from_every_eval_set():
    probes = yaml.safe_load(SHIPPED_PROBES.read_text())["probes"]
    sets = _questions()
    assert len(sets) >= 4
    for name, queries in sets.items():
        for p in probes:
            for q in queries:
                assert p.strip().lower() != q.strip().lower(), (name, q)
                assert shared_run(p, q) is None, (name, p, q)


def test_eval_sets_have_the_required_shape():
    for f in sorted((PROJECT / "bench/eval").glob("*.yaml")):
        qs = yaml.safe_load(f.read_text())["questions"]
        kinds = [q.get("kind", "answerable") for q in qs]
        assert kinds.count("answerable") >= 40 and kinds.count("in-domain") >= 10 and kinds.count("off-topic") >= 5, f
        assert {q["split"] for q in qs} == {"dev", "heldout"}, f


SAVER = """
import sys, threading
from pathlib import Path
from jupiter_git_memory.recall.floors import save_floor

store, name, rounds = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
errors = []

def run(thread):
    for i in range(rounds):
        try:
            save_floor(f"{name}-{thread}", {"model": "m"}, 0.3, {"round": i}, store)
        except Exception as e:
            errors.append(repr(e))

threads = [threading.Thread(target=run, args=(t,)) for t in range(2)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("\\n".join(errors))
sys.exit(1 if errors else 0)
"""


@pytest.mark.e2e
def test_concurrent_floor_saves_lose_nothing(tmp_path):
    """Four processes (two threads each, as a server seeding two workspaces) saving floors at once: before the
    lock and unique temp files, they failed with FileNotFoundError (one pid-named temp file per process) and
    overwrote each other's floors (read-modify-write without a lock)."""
    import subprocess
    import sys

    store = tmp_path / "store"
    procs = [
        subprocess.Popen([sys.executable, "-c", SAVER, str(store), f"ws{n}", "30"], stdout=subprocess.PIPE, text=True)
        for n in range(4)
    ]
    outs = [(p.communicate(timeout=120)[0], p.returncode) for p in procs]
    assert all(rc == 0 for _, rc in outs), outs
    floors = json.loads(floors_path(store).read_text())["floors"]
    assert {e["workspace"] for e in floors.values()} == {f"ws{n}-{t}" for n in range(4) for t in range(2)}
    assert all(e["round"] == 29 for e in floors.values())  # each workspace's last save is the one kept
    assert not list(store.glob("*.tmp")) and not list(store.glob(".floors.json.*"))  # no temp file left
    assert oct(floors_path(store).stat().st_mode & 0o777) == "0o600"
