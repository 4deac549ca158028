"""The candidate operations' application layer (issue 36, item 1): one declaration of the fields reaches every
surface, each operation answers a typed model and raises a typed error, and one function reads a bearer token."""

from __future__ import annotations

import dataclasses

import pytest
import typer.main
from api_helpers import mcp_tool_schemas
from candidates_helpers import CACHE_FACT, RETRY_RECORD, seed_repo

from jupiter_git_memory.app.candidate_requests import (
    CANDIDATE_FIELDS,
    CandidateRequest,
    ReviseRequest,
)
from jupiter_git_memory.app.candidates import Candidates
from jupiter_git_memory.base.errors import JgmError
from jupiter_git_memory.candidates.answers import CandidateAnswer, CandidateList, CandidateShown, Forgotten
from jupiter_git_memory.candidates.errors import CandidateRejected
from jupiter_git_memory.candidates.fields import REVISABLE, CandidateInput
from jupiter_git_memory.surfaces.api.app import create_app
from jupiter_git_memory.surfaces.api.tokens import bearer_secret
from jupiter_git_memory.surfaces.cli.main import app as cli_app

pytestmark = pytest.mark.unit  # raised by the fixtures a test uses (tests/tiers.py)

NAMES = [f.name for f in dataclasses.fields(CandidateInput)]


@pytest.mark.parametrize(
    ("header", "secret"),
    [
        ("Bearer abc.def", "abc.def"),
        ("bearer abc", "abc"),
        ("BEARER   abc  ", "abc"),
        ("Bearer", None),
        ("Bearer    ", None),
        ("Basic abc", None),
        ("Bearerabc", None),
        ("Bearer\tabc", None),
        (" Bearer abc", None),
        ("", None),
        (None, None),
    ],
)
def test_one_bearer_parser_reads_the_header_as_the_api_and_mcp_did(header, secret):
    assert bearer_secret(header) == secret


@pytest.mark.integration
def test_the_declared_fields_are_every_surfaces_fields_with_their_bounds(tmp_path):
    """API body, MCP tool arguments and CLI options come from CandidateInput: the same names, required-ness
    and bounds everywhere (a field added to CandidateInput appears on all three)."""
    assert [s.name for s in CANDIDATE_FIELDS] == NAMES
    api = create_app([], warm=False).openapi()["components"]["schemas"]
    body = api["CandidateRequest"]
    assert list(body["properties"]) == NAMES
    assert body["required"] == ["kind", "title", "body"]
    assert body["properties"]["title"]["maxLength"] == 200 and body["properties"]["tags"]["maxItems"] == 20
    assert body["properties"]["scope"]["anyOf"][0]["enum"] == ["project", "transferable"]
    assert all(body["properties"][n].get("description") for n in NAMES)  # every field says what it is
    assert list(api["ReviseRequest"]["properties"]) == [*REVISABLE, "agent"]
    assert "required" not in api["ReviseRequest"]

    mcp = mcp_tool_schemas(_git_repo(tmp_path))
    for tool in ("record_candidate", "validate_candidate"):
        assert list(mcp[tool]["properties"]) == NAMES
        assert mcp[tool]["required"] == ["kind", "title", "body"]
        for name in NAMES:  # the same schema as the API's body, field by field (OpenAPI omits a None default)
            prop = {k: v for k, v in mcp[tool]["properties"][name].items() if k != "default" or v is not None}
            assert prop == body["properties"][name], (tool, name)
    assert list(mcp["revise"]["properties"]) == ["id", *REVISABLE, "agent"]

    command = typer.main.get_command(cli_app)
    remember = {p.name: p for p in command.commands["remember"].params}
    assert set(NAMES) <= set(remember)
    assert remember["kind"].required and remember["title"].required and not remember["body"].required
    assert remember["tags"].multiple and remember["tags"].opts == ["--tag"] and remember["files"].opts == ["--file"]
    assert remember["work_item"].opts == ["--work-item"] and remember["agent"].envvar == "JGM_AGENT"
    revise = {p.name for p in command.commands["revise"].params}
    assert set(REVISABLE) | {"agent", "body_file"} <= revise


def _git_repo(tmp_path):
    import subprocess

    path = tmp_path / "r"
    subprocess.run(["git", "init", "-q", str(path)], check=True, timeout=60)
    return path


def test_requests_refuse_what_the_schema_refuses_and_build_the_input():
    req = CandidateRequest(kind="fact", title=CACHE_FACT[0], body=CACHE_FACT[1], tags=["ci"], files=["a.py"])
    inp = req.to_input()
    assert isinstance(inp, CandidateInput) and inp.files == ["a.py"] and inp.tags == ["ci"] and inp.scope is None
    inp.tags.append("x")  # the input's lists are its own
    assert req.tags == ["ci"]
    for bad in ({"kind": "rule"}, {"title": "x" * 201}, {"tags": ["t"] * 21}, {"scope": "elsewhere"}, {"nope": 1}):
        with pytest.raises(ValueError):
            CandidateRequest(**{"kind": "fact", "title": "t", "body": "b", **bad})
    assert ReviseRequest(tags=["ci"]).changes() == {"title": None, "body": None, "tags": ["ci"], "source": None}


def test_operations_answer_typed_models_and_raise_typed_errors(repo):
    seed_repo(repo)
    ops = Candidates.for_repo(repo.path)
    fact = {"kind": "fact", "title": CACHE_FACT[0], "body": CACHE_FACT[1], "source": "ci.yml", "agent": "a1"}

    checked = ops.validate(CandidateRequest(**fact))
    assert isinstance(checked, CandidateAnswer) and checked.decision == "created" and not checked.written
    assert checked.workspace == ops.workspace and checked.dry_run

    made = ops.record(CandidateRequest(**fact))
    assert made.decision == "created" and made.written and made.id and made.workspace == ops.workspace

    # a rejection is an error with the catalogue's code, carrying the answer every surface shows
    placeholder = dict(fact, title="Cache key TODO", run_key=None)
    with pytest.raises(CandidateRejected) as raised:
        ops.record(CandidateRequest(**placeholder))
    e = raised.value
    assert e.code.startswith("candidate/") and e.code == f"candidate/{e.answer.reason_code}"
    assert e.status == 422 and e.exit_code == 1
    assert e.answer.decision == "rejected" and not e.answer.written and e.answer.workspace == ops.workspace
    # a dry run raises as recording would; validate answers it (saying what would happen is its job)
    with pytest.raises(CandidateRejected):
        ops.record(CandidateRequest(**placeholder), dry_run=True)
    assert ops.validate(CandidateRequest(**placeholder)).decision == "rejected"

    listed = ops.listing("open")
    assert isinstance(listed, CandidateList) and [c.id for c in listed.candidates] == [made.id]
    shown = ops.show(made.id)
    assert isinstance(shown, CandidateShown) and shown.candidate.title == CACHE_FACT[0]

    revised = ops.revise(made.id, ReviseRequest(tags=["ci"], agent="a2"))
    assert revised.candidate.tags == ["ci"] and revised.candidate.title == CACHE_FACT[0]
    assert revised.candidate.revisions[-1]["fields"] == ["tags"]

    # a file-backed record is refused with its code, not answered
    with pytest.raises(JgmError) as refused:
        ops.revise(RETRY_RECORD[0], ReviseRequest(title="Retry uploads forever and ever"))
    assert refused.value.code == "memory/file-backed"
    with pytest.raises(JgmError) as not_owner:
        ops.forget(made.id, agent="someone-else")
    assert not_owner.value.code == "memory/not-owner"

    gone = ops.forget(made.id, agent="a1")
    assert isinstance(gone, Forgotten) and gone.forgotten and gone.workspace == ops.workspace
    assert ops.listing("all").candidates == []


def test_revise_names_an_unknown_change(repo):
    seed_repo(repo)
    ops = Candidates.for_repo(repo.path)
    with pytest.raises(TypeError, match="kind"):
        ops.svc.revise("cand-000000000000", kind="decision")


def test_the_review_ui_acts_through_the_candidate_operations():
    """The web review's actions build an app/candidates.py request, as the CLI, API and MCP do (issue 36's
    leftover): a direct call of the service, review or propose would let the page's checks drift from theirs."""
    import ast
    from pathlib import Path

    from jupiter_git_memory.surfaces.web import views_review

    tree = ast.parse(Path(views_review.__file__).read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            imported |= {f"{node.module}.{a.name}" if node.module else a.name for a in node.names}
            imported.add(str(node.module))
    acting = {f"candidates.{m}" for m in ("service", "review", "propose", "transitions", "recording", "access")}
    assert not {i for i in imported if any(i.endswith(a) or f"{a}." in i for a in acting)}, imported
    assert "app.candidates.Candidates" in imported
