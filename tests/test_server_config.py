"""A long-running `jgm serve` follows its repo's config: edits apply to the next request, a broken config
keeps the last good settings for reads and fails a seed with the file named."""

from __future__ import annotations

import pytest
from api_helpers import Server, make_beta, seed_in_process, workspace_id

pytestmark = pytest.mark.e2e


def test_running_server_follows_config_edits(tmp_path):
    home = tmp_path / "home"
    repo = make_beta(tmp_path / "beta")
    repo.write("jgm.toml", 'roots = ["knowledge"]\n')
    repo.record(
        "note-refunds",
        rel="notes/note-refunds.md",
        kind="fact",
        status="verified",
        title="Refunds reach the customer within five working days",
        body="A refund through Stripe shows on the customer's statement within five working days.",
    )
    repo.commit("config and a note outside the roots")
    seed_in_process(repo.path, home)
    server = Server([repo.path], home)
    try:
        http = server.client()
        base = f"/v1/workspaces/{workspace_id(repo.path)}"

        def ids(query: str) -> list[str]:
            resp = http.post(base + "/recall", json={"query": query, "k": 3})
            assert resp.status_code == 200, resp.text
            return [r["id"] for r in resp.json()["results"]]

        assert "dec-b-payments" in ids("Which company processes our card payments?")
        assert "note-refunds" not in ids("How long until a refund reaches the customer?")

        repo.write("jgm.toml", 'roots = ["knowledge"]\nfloor = 0.99\n')  # a setting read at recall time
        assert ids("Which company processes our card payments?") == []

        repo.write("jgm.toml", 'roots = ["knowledge"\n')  # broken TOML
        assert ids("Which company processes our card payments?") == []  # the last good settings
        resp = http.post(base + "/seed")
        assert resp.status_code == 422, resp.text
        assert resp.json()["error"]["code"] == "config/invalid" and "jgm.toml" in resp.json()["error"]["message"]

        repo.write("jgm.toml", 'roots = ["knowledge", "notes"]\n')  # a seed reads the roots afresh
        resp = http.post(base + "/seed")
        assert resp.status_code == 200, resp.text
        assert "note-refunds" in ids("How long until a refund reaches the customer?")
        assert "dec-b-payments" in ids("Which company processes our card payments?")  # floor back to calibrated
    finally:
        server.stop()
