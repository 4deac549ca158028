"""A revision by another agent is recorded beside the recorder's provenance, and every surface shows it."""

from __future__ import annotations

import pytest
from candidates_helpers import CACHE_FACT, candidate_rows, fact, seed_repo, service
from cli_helpers import jgm_in, jgm_json_in

pytestmark = pytest.mark.e2e


@pytest.fixture
def seeded(repo):
    seed_repo(repo)
    return repo


def test_a_revision_by_another_agent_keeps_the_recorders_provenance_and_is_shown(seeded):
    svc = service(seeded)
    a = svc.record(fact(*CACHE_FACT, agent="agent-1", session="s-1"))
    c = svc.revise(
        a.id,
        title="The CI cache key includes the lockfile and Python version",
        body="The CI cache key hashes poetry.lock and the Python version (see `.github/ci.yml`).",
        agent="agent-2",
    )
    assert c["provenance"] == {"agent": "agent-1", "session": "s-1"}  # who recorded it, untouched
    assert [(r["agent"], r["fields"]) for r in c["revisions"]] == [("agent-2", ["title", "body"])]
    assert c["revisions"][0]["at"] >= c["created_at"]
    svc.revise(a.id, tags=["ci"])  # no agent given: the revision still says someone changed it
    svc.revise(a.id, tags=["ci"])  # no change: nothing to record
    stored = candidate_rows(seeded)[a.id].data
    assert [(r["agent"], r["fields"]) for r in stored["revisions"]] == [
        ("agent-2", ["title", "body"]),
        ("unknown", ["tags"]),
    ]
    assert svc.show(a.id)["revisions"] == stored["revisions"] == svc.list()[0]["revisions"]
    repo = str(seeded.path)
    rc, out = jgm_json_in("candidates", "show", a.id, "--repo", repo)
    assert rc == 0 and out["candidate"]["revisions"] == stored["revisions"]
    p = jgm_in("candidates", "show", a.id, "--repo", repo)
    assert {"agent: agent-1", "session: s-1"} <= set(p.stdout.splitlines())  # the recorder's, as sent
    assert "revised by agent-2 (title, body)" in p.stdout and "revised by unknown (tags)" in p.stdout
    rc, out = jgm_json_in("revise", a.id, "--source", "ci/other.yml", "--agent", "cli-agent", "--repo", repo)
    assert rc == 0 and out["candidate"]["revisions"][-1]["agent"] == "cli-agent"
    assert out["candidate"]["revisions"][-1]["fields"] == ["source"]
