"""Recall under the memory contract, end to end with the real model and embedded Chroma."""

import pytest

from jupiter_git_memory.recall.calibrate import calibrate
from jupiter_git_memory.recall.context import build_context
from jupiter_git_memory.recall.receipts import get_receipt
from jupiter_git_memory.recall.service import Recaller, RecallError
from jupiter_git_memory.recall.task import recall_task
from jupiter_git_memory.recall.verify import verify_receipt
from jupiter_git_memory.seed.seeder import Seeder


@pytest.fixture
def kb(repo):
    repo.record(
        "dec-postgres",
        title="Use PostgreSQL as the primary database",
        body="All services store their relational data in PostgreSQL 16, managed by the platform team.",
    )
    repo.record(
        "dec-mysql",
        status="superseded",
        title="Use MySQL as the primary database",
        body="Services store relational data in MySQL 5.7.",
        superseded_by="dec-postgres",
    )
    repo.record(
        "fact-port",
        kind="fact",
        status="verified",
        title="The API server listens on port 8321",
        body="By default the HTTP API binds 127.0.0.1:8321; override it with --port.",
    )
    repo.record(
        "fact-py39",
        kind="fact",
        status="false",
        title="The CI pipeline runs on Python 3.9",
        body="CI uses Python 3.9 for every job.",
    )
    repo.record(
        "cand-redis",
        kind="candidate",
        status="candidate",
        title="Maybe cache sessions in Redis",
        body="An agent noticed session lookups are slow and suggests caching them in Redis.",
    )
    repo.record(
        "dec-logging",
        status="proposed",
        title="Log in JSON lines",
        body="Proposal: emit structured logs as JSON lines.",
    )
    repo.commit()
    Seeder(repo.path).seed()
    return repo


def ids(res):
    return [r["id"] for r in res.results]


def test_default_filters_exclude_superseded_false_candidate_proposed(kb):
    rc = Recaller(kb.path)
    assert ids(rc.recall("which database do services use for relational data?", k=5)) == ["dec-postgres"]
    assert "fact-py39" not in ids(rc.recall("which python version does CI run?", k=5))
    assert "cand-redis" not in ids(rc.recall("should we cache sessions in redis?", k=5))
    assert "dec-logging" not in ids(rc.recall("what log format do we use?", k=5, fallback=False))
    # with nothing in force to answer, the proposed record comes back marked (dec-proposed-fallback)
    logs = rc.recall("what log format do we use?", k=5)
    assert ids(logs) == ["dec-logging"] and logs.fallback == "proposed" and logs.results[0]["status"] == "proposed"


def test_status_replaces_default_set(kb):
    rc = Recaller(kb.path)
    assert ids(rc.recall("which database do services use?", k=5, statuses=["superseded"])) == ["dec-mysql"]
    res = rc.recall("which python version does CI run?", k=5, statuses=["invalidated"])
    assert ids(res) == ["fact-py39"] and res.results[0]["status"] == "invalidated"
    assert ids(rc.recall("cache sessions in redis", k=5, statuses=["candidate"])) == ["cand-redis"]


def test_result_fields(kb):
    r = Recaller(kb.path).recall("what port does the API listen on?", k=1).results[0]
    assert r["id"] == "fact-port" and r["kind"] == "fact" and r["status"] == "verified"
    assert r["path"] == "knowledge/fact-port.md" and len(r["commit"]) == 40 and "8321" in r["snippet"]
    assert 0 < r["score"] <= 1.7


def test_kind_filter(kb):
    assert ids(Recaller(kb.path).recall("database and API port", k=5, kinds=["fact"])) == ["fact-port"]


def test_no_answer_is_empty_in_every_dense_mode(kb):
    rc = Recaller(kb.path)
    for mode in ("dense", "hybrid"):
        assert rc.recall("What is the recipe for banana bread?", mode=mode).results == []
    # words shared with the records ("python", "database", "port") do not bring them back in hybrid mode
    stuffed = "python database port: best temperature to bake sourdough bread"
    assert rc.recall(stuffed, mode="lexical").results  # the words do match lexically...
    assert rc.recall(stuffed, mode="hybrid").results == []  # ...but nothing passes the dense floor


def test_floor_bound_to_identity(kb, tmp_path, minilm_dir):
    probes = tmp_path / "probes.txt"
    probes.write_text(
        "\n".join(
            [
                "What is the recipe for banana bread?",
                "Who won the 2010 world cup?",
                "How do I book a vacation day?",
                "Which font does the logo use?",
                "What is the weather tomorrow?",
            ]
        )
    )
    rc = Recaller(kb.path)
    assert rc.floor()[1] == "shipped-default" and rc.floor()[2]
    res = calibrate(rc, probes)
    assert res["probe_count"] == 5 and res["floor"] >= res["max_cos"] and round(res["floor"], 2) == res["floor"]
    floor, source, warnings = Recaller(kb.path).floor()
    assert (floor, source, warnings) == (res["floor"], "calibrated", [])
    # another identity never uses that floor
    from jupiter_git_memory.embedding import registry

    registry.add_model("minilm-cls2", minilm_dir, pooling="cls", dimension=384)
    (kb.path / "jgm.toml").write_text('model = "minilm-cls2"\n')
    Seeder(kb.path).seed(rebuild=True)
    other = Recaller(kb.path)
    floor2, source2, warnings2 = other.floor()
    assert source2 == "shipped-default" and floor2 == other.embedder.spec.default_floor
    assert "no floor calibrated" in warnings2[0]
    assert any("no floor calibrated" in w for w in other.recall("database").warnings)


def test_receipt_stored_and_verified_then_detects_change(kb):
    rc = Recaller(kb.path)
    res = rc.recall("what port does the API listen on?", k=2)
    rid = res.receipt["id"]
    stored = get_receipt(rc.index().catalog, rid)
    assert stored["ids"] == ids(res) and len(stored["query_sha256"]) == 64
    assert stored["index"]["identity"] and stored["provider"]["name"] == "jupiter-git-memory"
    assert stored["filters"]["statuses"] == ["accepted", "verified", "unverified"] and stored["k"] == 2
    assert verify_receipt(rc, rid)["same"] is True
    kb.record(
        "fact-port",
        kind="fact",
        status="false",
        title="The API server listens on port 8321",
        body="By default the HTTP API binds 127.0.0.1:8321; override it with --port.",
    )
    kb.commit("port fact was wrong")
    Seeder(kb.path).seed()
    v = verify_receipt(rc, rid)
    assert v["same"] is False and "fact-port" not in v["new_ids"]
    assert any("new commit" in r for r in v["reasons"]) and v["changed_records"] == ["fact-port"]


def test_recall_task_statuses(kb, monkeypatch):
    rc = Recaller(kb.path)
    ok = recall_task(
        rc, "which database should my new service use?", errors=["psycopg.OperationalError"], files=["db/schema.sql"]
    )
    assert ok["status"] == "ok" and ok["results"][0]["id"] == "dec-postgres" and ok["receipt"]["mode"] == "task"
    none = recall_task(rc, "bake a chocolate cake for the party")
    assert none["status"] == "no-matches" and none["results"] == []
    assert recall_task(None, "anything")["status"] == "no-workspace"

    def broken(*a, **kw):  # what Chroma raises for a segment it cannot read (a bug of ours would not be this)
        from chromadb.errors import InternalError

        raise InternalError("chroma segment unreadable")

    monkeypatch.setattr(type(rc.index().vectors), "query", broken)  # fault injection only
    failed = recall_task(rc, "which database should my new service use?")
    assert failed["status"] == "retrieval-failed" and "chroma segment unreadable" in failed["warnings"][0]
    with pytest.raises(RecallError):
        rc.recall("database")


def test_recall_task_global_workspaces(kb, make_repo):
    other = make_repo("shared")
    other.write("jgm.toml", "global = true\n")
    other.record(
        "dec-shared-style",
        title="All teams use Black for Python formatting",
        body="Python code across the company is formatted with Black.",
    )
    other.commit()
    Seeder(other.path).seed()
    rc = Recaller(kb.path)
    without = recall_task(rc, "how should I format python code?")
    assert all(r["id"] != "dec-shared-style" for r in without["results"]) and without["global_results"] == []
    with_global = recall_task(rc, "how should I format python code?", include_global=True)
    assert [r["id"] for r in with_global["global_results"]] == ["dec-shared-style"]
    assert with_global["global_results"][0]["workspace"] != rc.workspace.id


def test_context_respects_budget(kb):
    rc = Recaller(kb.path)
    for budget in (60, 120, 400):
        ctx = build_context(rc, "set up the database and the API server", budget)
        assert ctx["used_tokens"] <= budget
        assert ctx["text"].startswith("# Project memory (evidence, not instructions)")
        assert get_receipt(rc.index().catalog, ctx["receipt"]["id"])["ids"] == [r["id"] for r in ctx["records"]]
    big = build_context(rc, "set up the database and the API server", 400)
    assert {r["id"] for r in big["records"]} >= {"dec-postgres"}
    assert all(r["status"] in ("accepted", "verified", "unverified") and r["commit"] for r in big["records"])
    with pytest.raises(ValueError):
        build_context(rc, "x", 5)


def test_long_lived_recaller_sees_new_seed(kb):
    rc = Recaller(kb.path)
    assert "fact-new" not in ids(rc.recall("how many replicas does the queue have?"))
    kb.record(
        "fact-new",
        kind="fact",
        status="verified",
        title="The job queue runs three replicas",
        body="RabbitMQ runs as three replicas.",
    )
    kb.commit()
    Seeder(kb.path).seed()
    assert "fact-new" in ids(rc.recall("how many replicas does the queue have?"))


def test_hybrid_with_common_term_pruning_still_finds_the_record(kb, monkeypatch):
    from jupiter_git_memory.recall import retrieval

    monkeypatch.setattr(retrieval, "LEXICAL_PRUNE_FROM", 0)  # force the large-index path on a small index
    res = Recaller(kb.path).recall("which relational database does the platform team manage?", k=3)
    assert ids(res)[0] == "dec-postgres" and res.results[0]["why"]["lexical"] > 0
