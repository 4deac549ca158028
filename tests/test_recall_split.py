"""The Recaller split by job (issue 26): a long-lived holder changes the settings through `use_settings`
(never private state), and a result keeps the JSON shape every surface prints."""

from jupiter_git_memory.app.workspace_handle import WorkspaceHandle
from jupiter_git_memory.recall.service import Recaller
from jupiter_git_memory.seed.seeder import Seeder

RESULT_KEYS = [
    "id",
    "kind",
    "status",
    "title",
    "score",
    "source",
    "citations",
    "path",
    "commit",
    "dirty",
    "origin",
    "snippet",
    "content_hash",
    "why",
    "evidence",
]


def seeded(repo):
    repo.record("dec-postgres", title="Use PostgreSQL as the primary database", body="We store orders in PostgreSQL.")
    repo.record(
        "dec-mysql",
        status="superseded",
        title="Use MySQL as the primary database",
        body="Orders were stored in MySQL 5.7.",
        superseded_by="dec-postgres",
    )
    repo.commit()
    Seeder(repo.path).seed()
    return repo


def test_a_served_recaller_takes_an_edited_config_through_use_settings(repo):
    """Before the split the handle set `r._seeder = None` and `r.weights` from outside; now the Recaller
    takes new settings itself: the weights follow and the next view refresh seeds with the new settings."""
    handle = WorkspaceHandle.for_repo(seeded(repo).path)
    r = handle.recaller()
    before = r.views.seeder()
    repo.write("jgm.toml", "[weights.decision]\naccepted = 0.5\n")
    assert handle.recaller() is r  # same model and Chroma URL: the same Recaller, new settings
    assert r.settings.weights == {"decision": {"accepted": 0.5}} and r.weights["decision"]["accepted"] == 0.5
    after = r.views.seeder()
    assert after is not before and after.settings == r.settings
    handle.close()


def test_a_result_keeps_the_printed_shape_and_a_retired_one_says_what_to_read(repo):
    rc = Recaller(seeded(repo).path)
    res = rc.recall("which database stores the orders?", k=3)
    assert res.results and list(res.results[0]) == RESULT_KEYS
    old = rc.recall("which database stores the orders?", k=3, statuses=["superseded"]).results
    assert [r["id"] for r in old] == ["dec-mysql"]
    assert list(old[0]) == [*RESULT_KEYS, "read_instead"] and old[0]["read_instead"][0]["id"] == "dec-postgres"
    assert res.receipt["record_hashes"] == {r["id"]: r["content_hash"] for r in res.results}
