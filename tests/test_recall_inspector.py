"""The recall inspector explains a cut with the ranking's own verdict and shows scores that have a scale."""

from __future__ import annotations

import re
from types import SimpleNamespace

from helpers import seeded

from jupiter_git_memory.recall.floors import save_floor
from jupiter_git_memory.recall.ranking import DEFAULT_STATUSES
from jupiter_git_memory.recall.service import Recaller
from jupiter_git_memory.surfaces.web.inspect import cuts
from jupiter_git_memory.surfaces.web.pages import env

QUESTION = "what happens to the events weekly?"  # content words: happens, events (3 records), weekly (none)
RECORDS = {
    "dec-events-bus": (
        "Domain events go over the NATS bus",
        "Services publish domain events to NATS because it is light.",
    ),
    "fact-events-kept": (
        "Audit events are kept for 400 days",
        "The audit service keeps events for 400 days (infra/audit.yaml).",
    ),
    "dec-events-schema": (
        "Payloads follow JSON Schema",
        "Every events payload is validated so that consumers can rely on fields.",
    ),
    "dec-db": ("Use PostgreSQL as the primary database", "All services store data in PostgreSQL because of JSONB."),
    "dec-cache": ("Cache user sessions in Redis", "Sessions are cached in Redis so that restarts keep them."),
    "fact-port": ("The gateway listens on port 8443", "The public gateway terminates TLS on port 8443 (gateway.yaml)."),
}


def test_a_record_cut_by_corroboration_is_explained_by_that_rule_with_scaled_scores(repo):
    seeded(repo, {rid: {"title": title, "body": body} for rid, (title, body) in RECORDS.items()})
    lexical = {r["id"] for r in Recaller(repo.path).recall(QUESTION, k=10, mode="lexical", store=False).results}
    assert lexical == {"dec-events-bus", "fact-events-kept", "dec-events-schema"}
    repo.write("jgm.toml", "floor = 0.0\n")
    dense = Recaller(repo.path).recall(QUESTION, k=10, mode="dense", store=False).results
    target = max((r for r in dense if r["id"] in lexical), key=lambda r: r["why"]["cos"])
    floor = round(target["why"]["cos"] - 0.005, 4)
    # everything above the floor is in the corroboration band; one word of a six-record base is not enough
    repo.write("jgm.toml", f"floor = {floor}\ncorroborate_margin = 0.9\n")
    recaller = Recaller(repo.path)
    res = recaller.recall(QUESTION, k=5, mode="hybrid", store=False)
    assert target["id"] not in [r["id"] for r in res.results]
    left = {x["id"]: x for x in cuts(recaller, QUESTION, 5, None, list(DEFAULT_STATUSES), "hybrid", [])}
    got = left[target["id"]]
    assert got["why"].startswith("corroboration:"), got["why"]  # was "ranked 1 of 1, below k = 5": re-derived
    assert got["rule"] == "corroboration" and f"{got['corroboration']:.2f}" in got["why"]
    assert 0 < got["corroboration"] < 1 and "≥ 1" in got["why"]
    for x in left.values():  # scores on a scale, not raw bm25
        assert 0.0 <= x["lexical"] <= 1.0 and 0.0 <= x["relevance"] <= 1.0, x
        assert x["rule"] in ("floor", "corroboration"), x
    assert max(x["lexical"] for x in left.values()) == 1.0
    request = SimpleNamespace(url=SimpleNamespace(path="/ui/w/ws/recall"), scope={}, query_params={})
    html = env.get_template("recall.html").render(
        request=request,
        base="/ui",
        session=None,
        csrf="",
        ws="ws",
        modes=["hybrid"],
        all_statuses=[],
        kinds=[],
        ask={"q": QUESTION, "mode": "hybrid", "statuses": [], "kinds": [], "k": 5},
        res=res.to_json(),
        cut=list(left.values()),
    )
    row = re.search(r'<tr data-rule="corroboration">(?:(?!</tr>).)*' + target["id"] + r".*?</tr>", html, re.S)
    assert row, html
    cells = re.findall(r'<td class="num">([^<]*)</td>', row.group(0))
    assert cells == [
        f"{got['cos']:.3f}",
        f"{got['relevance']:.3f}",
        f"{got['lexical']:.2f}",
        f"{got['corroboration']:.2f}",
    ]
    assert "corroboration: cosine" in row.group(0)
    assert f'id="floor-line">floor {floor:g} in force: set in the project settings' in html  # the seed's words


def test_a_question_is_explained_against_its_own_languages_floor(repo):
    """A Chinese question is held to the Chinese floor; the inspector must say so, not cite the English one."""
    seeded(repo, {rid: {"title": title, "body": body} for rid, (title, body) in RECORDS.items()})
    recaller = Recaller(repo.path)
    question = "事件保存多久？"
    top = max(h.cos for h in recaller.hits(recaller.index(), question, list(DEFAULT_STATUSES), None, 30, False))
    en, zh = round(top - 0.2, 4), round(top + 0.01, 4)  # English floor under the best record, Chinese above it
    save_floor(
        recaller.workspace.id,
        recaller.floor_identity,
        en,
        {"source": "auto", "languages": {"en": {"floor": en}, "zh": {"floor": zh}}},
        recaller.store_root,
    )
    recaller = Recaller(repo.path)
    assert recaller.recall(question, k=5, mode="hybrid", store=False).results == []
    left = cuts(recaller, question, 5, None, list(DEFAULT_STATUSES), "hybrid", [])
    assert left and all(x["rule"] == "floor" and f"≤ floor {zh:.3f}" in x["why"] for x in left), left
