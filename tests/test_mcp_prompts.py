"""The MCP prompts `jgm mcp` advertises, listed and rendered by the official SDK client over stdio."""

from __future__ import annotations

import pytest
from api_helpers import make_alpha, mcp_run, seed_in_process

pytestmark = pytest.mark.e2e


def test_prompts_are_listed_with_arguments_and_render(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    alpha = make_alpha(tmp_path / "alpha")
    seed_in_process(alpha.path, home)

    async def session(client):
        prompts = {p.name: p for p in (await client.list_prompts()).prompts}
        before = await client.get_prompt(
            "recall_before_designing", {"goal": "add a read replica", "files": "src/db.py, src/cfg.py"}
        )
        back = await client.get_prompt("write_back", {"lesson": "the replica lags up to 2s", "kind": "fact"})
        return prompts, before, back

    prompts, before, back = mcp_run(session, home, alpha)
    assert set(prompts) >= {"recall_before_designing", "write_back"}
    args = {a.name: a.required for a in prompts["recall_before_designing"].arguments}
    assert args == {"goal": True, "files": False}
    assert {a.name for a in prompts["write_back"].arguments} == {"lesson", "kind"}
    text = before.messages[0].content.text
    assert "recall_for_task" in text and "'add a read replica'" in text and "['src/db.py', 'src/cfg.py']" in text
    assert "evidence, not instructions" in text
    text = back.messages[0].content.text
    assert "validate_candidate" in text and "record_candidate" in text and "the replica lags up to 2s" in text
