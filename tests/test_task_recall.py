"""Task recall that uses the task (issue 23): citations as data, files → the records governing them, goals
split into concerns, statuses on request, and retired records naming their replacements. Over the eval's
own repository (tests/eval/task_repo: a made-up shipping service whose records cite its code), seeded for
real with the offline model."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from cli_helpers import jgm_json_in

from jupiter_git_memory.app import records_ops as ops
from jupiter_git_memory.recall.concerns import split_concerns
from jupiter_git_memory.recall.context import build_context
from jupiter_git_memory.recall.fusion import fuse
from jupiter_git_memory.recall.service import Recaller
from jupiter_git_memory.recall.task import recall_task
from jupiter_git_memory.records.citations import body_paths, governs
from jupiter_git_memory.seed.seeder import Seeder

pytestmark = pytest.mark.unit

TASK_REPO = Path(__file__).parent / "eval" / "task_repo"


@pytest.fixture
def parcel(repo):
    shutil.copytree(TASK_REPO, repo.path, dirs_exist_ok=True)
    repo.commit("parcelhub")
    report = Seeder(repo.path).seed()
    assert not report.errors, report.errors
    return repo


def ids(res: dict) -> list[str]:
    return [r["id"] for r in res["results"]]


# -- 1. citations as data ----------------------------------------------------------------------------


def test_files_are_matched_by_exact_path_folder_and_glob_only():
    assert governs("parcelhub/storage/", "./parcelhub/storage/orders_repo.py") == "folder"
    assert governs("parcelhub/storage", "parcelhub/storage/orders_repo.py") == "folder"
    assert governs("parcelhub/sto", "parcelhub/storage/orders_repo.py") is None
    assert governs("parcelhub/carriers/*.py", "parcelhub/carriers/dhl.py") == "glob"
    assert governs("parcelhub/carriers/*.py", "parcelhub/carriers/sub/dhl.py") is None  # * stays in its folder
    assert governs("tests/**/*.py", "tests/x.py") == "glob" and governs("tests/**/*.py", "tests/a/b/x.py") == "glob"
    assert governs("Dockerfile", "Dockerfile") == "exact" and governs("https://x.example/a.py", "a.py") is None
    assert body_paths("The handlers live in parcelhub/api/routes.py, see `docs/` and https://x.example/a/b.py.") == [
        "parcelhub/api/routes.py",
        "docs/",
    ]


def test_every_answer_shows_citations_as_a_list(parcel):
    rc = Recaller(parcel.path)
    hit = rc.recall("Which carrier interface must a new integration implement?", k=3, store=False).results
    adapter = next(r for r in hit if r["id"] == "dec-carrier-adapter-interface")
    assert adapter["citations"] == ["parcelhub/carriers/base.py", "parcelhub/carriers/*.py"]
    cat = rc.index().catalog
    rec = ops.get_record(cat, "finding-orders-deadlock", "ws")
    assert rec["citations"] == ["parcelhub/storage/orders_repo.py", "commit 4f2a9c1", "logs/2026-10-02-booking.txt"]
    listed = ops.list_records(cat, kind="fact", limit=50)["records"]
    assert (
        next(r for r in listed if r["id"] == "fact-queue-visibility-timeout")["citations"][0]
        == "deploy/terraform/sqs.tf"
    )


# -- 2. files → records ------------------------------------------------------------------------------


def test_a_goal_whose_words_match_nothing_finds_the_records_governing_its_files(parcel):
    """Before: the file path was appended to the goal and embedded; "tidy up this module" found nothing."""
    from jupiter_git_memory.app.recall import TaskRequest
    from jupiter_git_memory.app.recall import recall_task as task_operation

    rc = Recaller(parcel.path)  # an absolute path, read by the operation (app/paths.py) as the repository's
    asked = TaskRequest(goal="tidy up this module", files=[str(parcel.path / "parcelhub/storage/orders_repo.py")])
    res = task_operation(rc, asked)
    got = {r["id"]: r for r in res["results"]}
    assert res["status"] == "ok" and res["files"] == ["parcelhub/storage/orders_repo.py"]
    assert {"dec-orders-repo-unit-of-work", "finding-orders-deadlock", "dec-storage-query-builder"} <= set(got)
    assert got["dec-storage-query-builder"]["governs"] == [
        {"file": "parcelhub/storage/orders_repo.py", "reason": "cites parcelhub/storage/"}
    ]
    assert got["dec-orders-repo-unit-of-work"]["governs"][0]["reason"] == "cites parcelhub/storage/orders_repo.py"
    assert "governs a file" in got["dec-orders-repo-unit-of-work"]["why"]["fusion"]
    assert got["dec-orders-repo-unit-of-work"]["why"]["ranks"] == {"files": 1}
    assert "dec-rejected-mongodb" not in got  # it cites parcelhub/storage/ but was rejected
    glob = recall_task(rc, "add a column", files=["parcelhub/storage/migrations/0002_x.sql"])
    reason = next(r for r in glob["results"] if r["id"] == "dec-migrations-forward-only")["governs"][0]["reason"]
    assert reason == "cites parcelhub/storage/migrations/*.sql (glob)"
    body = recall_task(rc, "make the linter happy", files=["parcelhub/api/routes.py"])
    assert body["results"][0]["governs"][0]["reason"] == "its body names parcelhub/api/routes.py"
    # retired records that cite the file never govern it under the default filters
    labels = recall_task(rc, "fix a typo", files=["parcelhub/labels/pdf.py"])
    assert "dec-label-pdf" in ids(labels) and "dec-label-zpl" not in ids(labels)
    vat = recall_task(rc, "small cleanup", files=["parcelhub/billing/vat.py"])
    assert {"dec-vat-rounding", "dec-money-decimal"} <= set(ids(vat)) and "fact-vat-per-invoice" not in ids(vat)
    # a file nothing cites adds nothing: an unrelated goal stays empty
    none = recall_task(rc, "add a dark mode to the admin dashboard", files=["parcelhub/admin/theme.py"])
    assert none["status"] == "no-matches" and none["results"] == []


def test_file_matches_and_semantic_matches_are_fused_so_neither_crowds_the_other_out(parcel):
    rc = Recaller(parcel.path)
    res = recall_task(
        rc, "How long may we reuse a price from a shipping company?", files=["parcelhub/storage/orders_repo.py"], k=4
    )
    assert "dec-rate-cache-ttl" in ids(res)[:2] and "dec-orders-repo-unit-of-work" in ids(res)[:2]
    assert res["fusion"]["lists"] == ["goal", "files"]
    # a record both lists hold ranks above the top of either alone
    both = recall_task(rc, "which database keeps the orders", files=["parcelhub/storage/orders_repo.py"])
    assert both["results"][0]["id"] == "dec-postgres-orders" and set(both["results"][0]["why"]["ranks"]) == {
        "goal",
        "files",
    }
    assert [f.id for f in fuse([("a", ["x", "y"]), ("b", ["z", "y"])], 3)] == ["y", "x", "z"]


@pytest.mark.e2e
def test_context_takes_files_errors_and_statuses(parcel):
    code, pack = jgm_json_in(
        "context", "--goal", "tidy up", "--file", "parcelhub/carriers/dhl.py", "--budget", "600", cwd=parcel.path
    )
    assert code == 0 and pack["status"] == "ok", pack
    got = {r["id"]: r for r in pack["records"]}
    assert "finding-dhl-sandbox-rate-limit" in got and got["finding-dhl-sandbox-rate-limit"]["governs"]
    assert "governs parcelhub/carriers/dhl.py: cites parcelhub/carriers/dhl.py" in pack["text"]
    assert pack["receipt"]["filters"]["files"] == ["parcelhub/carriers/dhl.py"]
    code, verified = jgm_json_in("receipt", "verify", pack["receipt"]["id"], cwd=parcel.path)
    assert code == 0 and verified["same"], verified
    hist = build_context(
        Recaller(parcel.path), "when did we start using several carriers", 400, statuses=["historical"]
    )
    assert [r["id"] for r in hist["records"]] == ["hist-multi-carrier"]


# -- 3. several concerns -----------------------------------------------------------------------------


def test_goals_split_into_clauses_lists_and_sentences():
    assert split_concerns("add a carrier with rate caching and VAT rounding") == [
        "add a carrier",
        "rate caching",
        "VAT rounding",
    ]
    assert split_concerns("Add logging to the poller. Event times must be UTC; retry failed jobs, then alert") == [
        "Add logging to the poller",
        "Event times must be UTC",
        "retry failed jobs, then alert",  # one content word is no concern: it joins its neighbour, words kept
    ]
    assert split_concerns("print labels, including the customs declaration") == [
        "print labels",
        "the customs declaration",
    ]
    assert split_concerns("fix the flaky test") == []  # one concern: the goal is asked as is
    assert len(split_concerns(", ".join(f"topic number {i}" for i in range(9)))) == 5


def test_each_concern_is_asked_under_its_own_floor_and_fused(parcel):
    rc = Recaller(parcel.path)
    res = recall_task(rc, "add a carrier with rate caching and VAT rounding")
    assert res["concerns"] == ["add a carrier", "rate caching", "VAT rounding"]
    assert {"dec-carrier-adapter-interface", "dec-rate-cache-ttl", "dec-vat-rounding"} <= set(ids(res))
    vat = next(r for r in res["results"] if r["id"] == "dec-vat-rounding")
    assert vat["why"]["ranks"]["concern: VAT rounding"] == 1 and vat["why"]["semantic"]["floor"] > 0
    assert len(res["receipt"]["query"].splitlines()) == 4 and res["receipt"]["filters"]["concerns"] == res["concerns"]
    # a concern the knowledge base cannot answer adds nothing: its floor holds on its own
    mixed = recall_task(rc, "cache carrier rate quotes and bake a chocolate cake for the party")
    assert mixed["concerns"] == ["cache carrier rate quotes", "bake a chocolate cake for the party"]
    assert all("concern: bake a chocolate cake for the party" not in r["why"]["ranks"] for r in mixed["results"])
    assert "dec-rate-cache-ttl" in ids(mixed)
    whole = recall_task(rc, "add a carrier with rate caching and VAT rounding", split=False)
    assert whole["concerns"] == [] and whole["fusion"]["lists"] == ["goal"]


# -- 4. statuses ---------------------------------------------------------------------------------------


@pytest.mark.e2e
def test_task_recall_takes_statuses_default_unchanged(parcel):
    rc = Recaller(parcel.path)
    goal = "when did we move to several carriers, and should we offer GraphQL?"
    default = recall_task(rc, goal)
    assert "hist-multi-carrier" not in ids(default)
    # the GraphQL concern has no in-force answer: its proposed record comes back marked (dec-proposed-fallback)
    graphql = [r for r in default["results"] if r["id"] == "dec-graphql-api"]
    assert graphql and graphql[0]["status"] == "proposed" and graphql[0]["why"]["semantic"]["fallback"] == "proposed"
    assert default["fallback"] == ["concern: should we offer GraphQL"]
    asked = recall_task(rc, goal, statuses=["historical", "proposed"])
    assert {"hist-multi-carrier", "dec-graphql-api"} <= set(ids(asked))
    assert set(r["status"] for r in asked["results"]) <= {"historical", "proposed"}
    assert asked["receipt"]["filters"]["statuses"] == ["historical", "proposed"]
    # files obey the statuses too: the proposed GraphQL decision governs parcelhub/api/ only when asked for
    files = ["parcelhub/api/schema.graphql"]
    assert "dec-graphql-api" not in ids(recall_task(rc, "tidy", files=files))
    assert ids(recall_task(rc, "tidy", files=files, statuses=["proposed"])) == ["dec-graphql-api"]
    with pytest.raises(ValueError, match="unknown status 'retired'"):
        recall_task(rc, goal, statuses=["retired"])
    code, out = jgm_json_in("recall-task", "--goal", goal, "--status", "historical", cwd=parcel.path)
    assert code == 0 and ids(out) == ["hist-multi-carrier"]


# -- 5. what to read instead ------------------------------------------------------------------------------


def test_retired_records_name_their_replacement_whichever_side_wrote_the_link(parcel):
    rc = Recaller(parcel.path)
    cat = rc.index().catalog
    # the link is written on the newer record (dec-rate-cache-ttl: supersedes: dec-rate-cache-day)
    day = ops.get_record(cat, "dec-rate-cache-day", "ws")
    assert day["status"] == "superseded" and day["superseded_by"] == ["dec-rate-cache-ttl"]
    assert day["current"] == ["dec-rate-cache-ttl"] and day["read_instead"][0]["id"] == "dec-rate-cache-ttl"
    assert day["read_instead"][0]["title"] == "Carrier rate quotes are cached for fifteen minutes"
    # written on the older record (dec-label-zpl: superseded_by: dec-label-pdf)
    assert [r["id"] for r in ops.get_record(cat, "dec-label-zpl", "ws")["read_instead"]] == ["dec-label-pdf"]
    live = ops.get_record(cat, "dec-rate-cache-ttl", "ws")
    assert live["read_instead"] == [] and live["current"] == ["dec-rate-cache-ttl"]
    listed = ops.list_records(cat, status="superseded")["records"]
    assert {r["id"]: [x["id"] for x in r["read_instead"]] for r in listed} == {
        "dec-label-zpl": ["dec-label-pdf"],
        "dec-rate-cache-day": ["dec-rate-cache-ttl"],
        "fact-webhook-retry-fixed": ["dec-webhook-retry"],
    }
    assert ops.relations(cat, "fact-webhook-retry-fixed", "ws")["read_instead"][0]["id"] == "dec-webhook-retry"
    old = rc.recall("how long are rate quotes cached", statuses=["superseded"], store=False).results
    assert old[0]["id"] == "dec-rate-cache-day" and old[0]["read_instead"][0]["id"] == "dec-rate-cache-ttl"
    task = recall_task(rc, "how long are rate quotes cached", statuses=["superseded"])
    assert task["results"][0]["read_instead"][0]["id"] == "dec-rate-cache-ttl"
    by_file = recall_task(rc, "tidy", files=["parcelhub/labels/pdf.py"], statuses=["superseded"])
    assert ids(by_file) == ["dec-label-zpl"] and by_file["results"][0]["read_instead"][0]["id"] == "dec-label-pdf"
