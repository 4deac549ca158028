"""One failure, one code, on every surface: JgmErrors pass through the candidate service unwrapped, a bad
revision is `revision/not-found` for `seed --rev` as for `recall --at`, and a record read on a store never
seeded says so instead of `not-found` (dec-not-seeded-is-not-no-match)."""

from __future__ import annotations

import ast
import importlib.util
import json
import re
from pathlib import Path

import pytest
from api_helpers import Server, error_code, mcp_run, workspace_id
from cli_helpers import jgm_in

from jupiter_git_memory.base import error_codes as E
from jupiter_git_memory.seed.seeder import Seeder

pytestmark = pytest.mark.unit

OBSERVATION = {
    "kind": "fact",
    "title": "Measured the cache hit rate today",
    "body": "The cache hit rate measured in cache.py is ninety percent because the cache is warm at noon.",
}


def _seed(repo) -> None:
    repo.write("jgm.toml", 'roots = ["knowledge"]\n')
    repo.record("dec-a", title="Decision a about the cache", body="We cache the session because it is slow.")
    repo.commit()
    Seeder(repo.path).seed()


@pytest.mark.e2e
def test_api_a_broken_config_is_config_invalid_for_candidates_as_for_seed_and_unseeded_reads_say_so(
    make_repo, jgm_home
):
    seeded, blank = make_repo("seeded"), make_repo("blank")
    _seed(seeded)
    blank.record("dec-b", title="Decision b about the queue", body="The queue keeps jobs because retries.")
    blank.commit()  # never seeded into this store
    server = Server([seeded.path, blank.path], jgm_home)
    try:
        with server.client() as c:
            a, b = f"/v1/workspaces/{workspace_id(seeded.path)}", f"/v1/workspaces/{workspace_id(blank.path)}"
            r = c.get(b + "/records/dec-b")
            assert r.status_code == 409 and error_code(r) == "memory/not-seeded", r.text
            assert str(jgm_home) in r.json()["error"]["message"] and "jgm seed" in r.json()["error"]["message"]
            r = c.get(b + "/records/dec-b/relations")
            assert r.status_code == 409 and error_code(r) == "memory/not-seeded", r.text
            r = c.get(a + "/records/dec-nope")  # seeded: a missing id is a plain not-found
            assert r.status_code == 404 and error_code(r) == "memory/not-found", r.text
            r = c.post(a + "/recall", json={"query": "cache", "at": "nope"})
            assert r.status_code == 404 and error_code(r) == "revision/not-found", r.text
            seeded.write("jgm.toml", 'roots = ["knowledge"\n')  # broken TOML
            r = c.post(a + "/seed")
            assert r.status_code == 422 and error_code(r) == "config/invalid", r.text
            for route in ("/candidates", "/candidates/validate"):
                r = c.post(a + route, json=OBSERVATION)
                assert r.status_code == 422 and error_code(r) == "config/invalid", (route, r.text)
                assert "jgm.toml" in r.json()["error"]["message"]
    finally:
        server.stop()


@pytest.mark.e2e
def test_mcp_a_broken_config_and_an_unseeded_read_keep_their_codes(make_repo, jgm_home):
    repo = make_repo("blank")
    repo.record("dec-b", title="Decision b about the queue", body="The queue keeps jobs because retries.")
    repo.commit()

    async def session(client):
        got = await client.call_tool("get_record", {"id": "dec-b"})
        repo.write("jgm.toml", 'roots = ["knowledge"\n')  # broken while the server runs
        cand = await client.call_tool("record_candidate", OBSERVATION)
        return [(r.is_error, " ".join(getattr(x, "text", "") for x in r.content)) for r in (got, cand)]

    (got_err, got), (cand_err, cand) = mcp_run(session, jgm_home, repo)
    assert got_err and "[memory/not-seeded]" in got, got
    assert cand_err and "[config/invalid]" in cand and "jgm.toml" in cand, cand


@pytest.mark.e2e
def test_cli_a_bad_revision_is_revision_not_found_for_seed_and_recall(repo):
    _seed(repo)
    for args in (("seed", "--rev", "nope"), ("recall", "cache", "--at", "nope")):
        p = jgm_in(*args, "--repo", str(repo.path), "--json")
        body = json.loads(p.stdout)
        assert p.returncode == 2 and body["error"]["code"] == "revision/not-found", (args, p.stdout, p.stderr)
        assert "'nope' is not a commit" in body["error"]["message"]
        p = jgm_in(*args, "--repo", str(repo.path))
        assert p.returncode == 2 and "error [revision/not-found]" in p.stderr and "Traceback" not in p.stderr


# -- the catalogue (base/error_codes.py): every code the package emits, documented and in the schema --------
PACKAGE = Path(__file__).resolve().parents[1] / "jupiter_git_memory"
CODE_RE = re.compile(r"^[a-z][a-z0-9]*/[a-z0-9][a-z0-9-]*$")
CODE_PREFIX_RE = re.compile(r"^[a-z][a-z0-9]*/$")  # an f-string code with a variable last part: f"http/{status}"
NOT_CODES = {"doc/adr", "docs/adr", "docs/decisions", "n/a", "local/"}  # folder names, a placeholder, a model id


def emitted_codes(source: str) -> set[str]:
    """Code-like literals in `source`: whole strings shaped `area/what`, f-strings starting `area/`, and the
    reason codes of candidate rejections (`Verdict("bad-tags", ...)`, `Answer("rejected", "run-key-reused")`),
    which leave as `candidate/<reason>`."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and CODE_RE.match(node.value):
            found.add(node.value)
        elif isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
            head = str(node.values[0].value)
            if CODE_PREFIX_RE.match(head):
                found.add(head)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("Verdict", "Answer"):
            args = [a.value if isinstance(a, ast.Constant) else None for a in node.args[:2]]
            reason = args[0] if node.func.id == "Verdict" else (args[1] if args[:1] == ["rejected"] else None)  # type: ignore[attr-defined]
            if isinstance(reason, str):
                found.add(f"candidate/{reason}")
    return found - NOT_CODES


def _package_codes() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "error_codes.py":
            continue
        for code in emitted_codes(path.read_text("utf-8")):
            out.setdefault(code, set()).add(str(path.relative_to(PACKAGE.parent)))
    return out


def test_every_code_the_package_can_emit_is_in_the_catalogue():
    unknown = {}
    for code, where in _package_codes().items():
        known = E.entry(code[:-1] + "/<status>") if code.endswith("/") else E.entry(code)
        if known is None:
            unknown[code] = sorted(where)
    assert not unknown, f"add these to jupiter_git_memory/base/error_codes.py (one line each): {unknown}"


def test_the_scan_catches_an_inline_code_that_is_not_in_the_catalogue():
    source = (
        'raise OperationError("daemon/stale-pid", "x")\n'
        'raise CandidateError(f"propose2/{why}", "x")\n'
        'Verdict("too-vague", "x", [])\n'
        'Answer("rejected", "run-key-reused", "x")\n'
        'folder = "docs/adr"\n'
    )
    got = emitted_codes(source)
    assert got == {"daemon/stale-pid", "propose2/", "candidate/too-vague", "candidate/run-key-reused"}
    assert E.entry("daemon/stale-pid") is None and E.entry("candidate/run-key-reused") is not None


def test_every_catalogue_entry_is_used_by_the_package():
    """A catalogue line that nothing raises documents an error that cannot happen."""
    source = "\n".join(p.read_text("utf-8") for p in PACKAGE.rglob("*.py") if p.name != "error_codes.py")
    emitted = set(_package_codes())
    names = {v.code: k for k, v in vars(E).items() if isinstance(v, E.ErrorCode)}
    unused = [
        c
        for c, e in E.CATALOGUE.items()
        if not e.family and c not in emitted and not re.search(rf"\b{names[c]}\b", source)
    ]
    assert not unused, unused


def test_docs_errors_md_is_generated_from_the_catalogue():
    spec = importlib.util.spec_from_file_location("error_reference", PACKAGE.parent / ".ci" / "error_reference.py")
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    assert (PACKAGE.parent / "docs" / "errors.md").read_text("utf-8") == ref.render(), (
        "run `python .ci/error_reference.py --write`"
    )
    for code in E.CATALOGUE:
        assert f"| `{code}` |" in ref.render()


@pytest.mark.e2e
def test_the_openapi_error_schema_lists_the_catalogue(make_repo, jgm_home):
    from jupiter_git_memory.surfaces.api.errors import ErrorBody

    schema = ErrorBody.model_json_schema()
    code = schema["$defs"]["ErrorDetail"]["properties"]["code"]
    enum = next(a["enum"] for a in code["anyOf"] if "enum" in a)
    assert enum == sorted(c for c, e in E.CATALOGUE.items() if not e.family)
    assert {"pattern": "^http/[0-9]{3}$"} in code["anyOf"]
    repo = make_repo("served")
    repo.record("dec-a", title="Decision a about the cache", body="We cache the session because it is slow.")
    repo.commit()
    server = Server([repo.path], jgm_home)  # and the running app's /openapi.json says the same
    try:
        with server.client() as c:
            served = c.get("/openapi.json").json()["components"]["schemas"]["ErrorDetail"]["properties"]["code"]
        assert next(a["enum"] for a in served["anyOf"] if "enum" in a) == enum
    finally:
        server.stop()


def test_an_error_takes_its_status_and_exit_code_from_its_entry():
    from jupiter_git_memory.base.errors import OperationError, StoreFull
    from jupiter_git_memory.candidates.errors import CandidateError
    from jupiter_git_memory.recall.service import NotSeeded

    e = OperationError(E.MEMORY_NOT_SEEDED, "m")
    assert (e.code, e.status, e.exit_code) == ("memory/not-seeded", 409, 5)
    assert (NotSeeded.code, NotSeeded.status, NotSeeded.exit_code) == ("memory/not-seeded", 409, 5)
    assert (StoreFull.code, StoreFull.status) == ("store/disk-full", 507)
    c = CandidateError(E.rejection("bad-tags"), "m")
    assert (c.code, c.status, c.exit_code) == ("candidate/bad-tags", 422, 1)
    legacy = OperationError("request/bad-filter", "m")  # a plain string still works (other branches add codes so)
    assert (legacy.code, legacy.status, legacy.exit_code) == ("request/bad-filter", 400, 2)
