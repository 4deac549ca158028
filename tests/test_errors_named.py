"""Errors named for what happened (issue 37, item 5): a hook's deadline that fires inside an index open or a
model load is reported as the deadline, and a bug there leaves as the bug, never as a damaged store or a
missing model. Faults are injected into the real Chroma and onnxruntime entry points; everything else is real
(the store, the seeded index, the model)."""

from __future__ import annotations

import io
import json
import time

import chromadb
import onnxruntime
import pytest
from helpers import seeded

from jupiter_git_memory.base.store import workspace_dir
from jupiter_git_memory.embedding import registry
from jupiter_git_memory.index.vectors import reset_clients
from jupiter_git_memory.surfaces.agent import hook

pytestmark = pytest.mark.integration

DEADLINE = "0.5"


def _slow(*args, **kwargs):
    time.sleep(20)  # far past the deadline: the alarm fires in here
    raise AssertionError("the deadline did not fire")


def _prompt(repo, monkeypatch) -> dict:
    """One prompt through the hook, in process (no daemon), with a short deadline; its JSON answer."""
    monkeypatch.setenv("JGM_HOOK_DEADLINE", DEADLINE)
    monkeypatch.setenv("JGM_NO_DAEMON", "1")
    out = io.StringIO()
    payload = {"cwd": str(repo.path), "hook_event_name": "UserPromptSubmit", "prompt": "how long do entries live?"}
    started = time.monotonic()
    assert hook.run("claude-code", "prompt", json.dumps(payload), out) == 0
    assert time.monotonic() - started < 10  # the deadline ended it, not the injected sleep
    return json.loads(out.getvalue())


def _fresh_chroma(repo, seeder) -> None:
    """Forget this process's open Chroma client, so the hook's recall opens the directory again."""
    reset_clients(str(workspace_dir(seeder.workspace.id, create=False) / "chroma"))


def test_a_deadline_inside_an_index_open_is_the_deadline_not_a_broken_store(repo, monkeypatch):
    s = seeded(repo, 2)
    _fresh_chroma(repo, s)
    monkeypatch.setattr(chromadb, "PersistentClient", _slow)
    line = _prompt(repo, monkeypatch)["systemMessage"]
    assert f"no answer within {DEADLINE}s" in line, line
    assert "Chroma" not in line and "unavailable" not in line


def test_a_deadline_inside_the_model_load_is_the_deadline_not_a_missing_model(repo, monkeypatch):
    seeded(repo, 2)
    monkeypatch.setattr(registry, "_cache", {})  # the hook loads the model afresh, as a cold process does
    monkeypatch.setattr(onnxruntime, "InferenceSession", _slow)
    line = _prompt(repo, monkeypatch)["systemMessage"]
    assert f"no answer within {DEADLINE}s" in line, line
    assert "model" not in line


def test_a_bug_inside_an_index_open_is_not_reported_as_store_damage(repo, monkeypatch):
    from jupiter_git_memory.index.recovery import ChromaUnavailable
    from jupiter_git_memory.recall.service import Recaller

    s = seeded(repo, 2)
    _fresh_chroma(repo, s)

    def bug(*args, **kwargs):
        raise TypeError("PersistentClient() got an unexpected keyword argument 'pth'")

    monkeypatch.setattr(chromadb, "PersistentClient", bug)
    with pytest.raises(TypeError) as got:
        Recaller(repo.path).recall("entries")
    assert not isinstance(got.value, ChromaUnavailable)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(chromadb, "PersistentClient", interrupted)
    with pytest.raises(KeyboardInterrupt):
        Recaller(repo.path).recall("entries")


def test_real_chroma_damage_is_still_named_as_such(repo, monkeypatch):
    """The narrowed catch still takes what Chroma raises for a damaged file (its InternalError)."""
    from jupiter_git_memory.index.recovery import ChromaUnavailable
    from jupiter_git_memory.recall.service import Recaller

    s = seeded(repo, 2)
    chroma = workspace_dir(s.workspace.id, create=False) / "chroma"
    _fresh_chroma(repo, s)
    (chroma / "chroma.sqlite3").write_bytes(b"not a database at all " * 200)
    with pytest.raises(ChromaUnavailable) as got:
        Recaller(repo.path).recall("entries")
    assert "the Chroma directory is corrupt" in str(got.value) and "jgm doctor --repair" in str(got.value)


def test_a_bug_in_the_model_load_is_not_reported_as_an_unavailable_model(repo, monkeypatch):
    from jupiter_git_memory.recall.errors import RecallError
    from jupiter_git_memory.recall.service import Recaller

    seeded(repo, 2)
    monkeypatch.setattr(registry, "_cache", {})

    def bug(*args, **kwargs):
        raise AttributeError("'SessionOptions' object has no attribute 'intra_threads'")

    monkeypatch.setattr(onnxruntime, "InferenceSession", bug)
    with pytest.raises(AttributeError) as got:
        Recaller(repo.path)
    assert not isinstance(got.value, RecallError)

    def damaged(*args, **kwargs):  # what onnxruntime raises for a model file it cannot parse
        from onnxruntime.capi.onnxruntime_pybind11_state import InvalidProtobuf

        raise InvalidProtobuf("[ONNXRuntimeError] : 7 : INVALID_PROTOBUF : Load model failed")

    monkeypatch.setattr(onnxruntime, "InferenceSession", damaged)
    with pytest.raises(RecallError, match="model unavailable: .*onnxruntime cannot load"):
        Recaller(repo.path)
