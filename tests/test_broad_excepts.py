"""Every broad catch in the package is reviewed (issue 37, item 5).

A broad catch (`except Exception`, `except BaseException`, a bare `except:`, `contextlib.suppress(Exception)`)
turns whatever happened into what its message says. Once it turned a hook's deadline inside an index open into
"Chroma could not be opened … check the directory". So each one is listed here with why it must be broad and
why its report cannot mislabel (it reports the exception's own type, re-raises it, or fails open and logs it).
Catches that only clean up and re-raise (every `raise` in them bare, the last statement one) need no entry.
A catch that means one failure names its exception types instead: index/failures.py (the store's),
embedding/onnx_embedder.ort_failures (the model's).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

PACKAGE = Path(__file__).resolve().parent.parent / "jupiter_git_memory"
BROAD = {"Exception", "BaseException"}

# "path::function::what is caught" -> why it is broad, and why it cannot mislabel what it catches
ALLOWED = {
    "seed/reading.py::read_isolated::Exception": "one file's parse failure becomes that file's error, naming the "
    "exception's type: a bad file never stops the rest of the seed",
    "freshness/watch_feed.py::Feed._run::Exception": "the watcher thread reports the type and retries; the "
    "seed after the re-plan catches up",
    "freshness/watch.py::Watcher._follow::Exception": "background re-plan: reported with the type, retried",
    "freshness/watch.py::Watcher._reload_config::Exception": "a broken config (or a validator's error) keeps "
    "the last good settings; the watch must not die over an edit",
    "freshness/watch.py::Watcher._reseed::Exception": "a failed background reseed is reported with its type "
    "and logged; the next change or `jgm seed` catches up",
    "freshness/hook_run.py::run_hook::Exception": "a git hook never fails the git command: first line printed, "
    "the traceback logged",
    "freshness/hook_run.py::reseed_job::Exception": "the background reseed's result records the failure; "
    "logged with its traceback",
    "freshness/hook_run.py::main::Exception": "a detached job with nobody watching: logged",
    "recall/calibrate.py::after_seed::Exception": "the post-seed calibration never fails the seed; the seed "
    "prints the failure with its type and recall names the floor in force",
    "records/safe_yaml.py::_Loader.construct_object::Exception": "a YAML value the constructor cannot build "
    "(a bad date, a huge integer) is that record's error at its line, with the type",
    "app/workspace_handle.py::WorkspaceHandle._follow_config::Exception": "a config a server cannot apply is "
    "logged; it answers with the last good settings",
    "app/workspace_handle.py::WorkspaceHandle._once_more::Exception": "looks for a stale SQLite read in the "
    "cause chain; everything else is re-raised as it came",
    "app/workspace_handle.py::WorkspaceHandle._renewed_after_a_crash::Exception": "a crash in a request is "
    "logged and re-raised; closing what the crash left may fail too",
    "app/workspace_handle.py::WorkspaceHandle._reopen::suppress(Exception)": "closing an index a stale read "
    "already broke: it is forgotten either way",
    "embedding/registry.py::_install::Exception": "the probe of a model being added: tokenizers raises plain "
    "Exception for a bad tokenizer.json; the message quotes the error",
    "embedding/registry.py::pull_model::Exception": "the hub library raises its own, requests' or httpx's "
    "errors by version; the message gives the chain of causes",
    "candidates/access.py::CandidateAccess.try_index::Exception": "the candidate is saved; its index failure is "
    "reported with the type, and a retry or a seed indexes it",
    "surfaces/daemon/forward.py::forward.local::Exception": "the daemon's answer is only a shortcut: on any "
    "failure the caller answers in process (a bug is logged with its traceback)",
    "surfaces/daemon/server.py::Daemon.close::Exception": "exiting: a handle that will not close is dropped",
    "surfaces/daemon/server.py::Daemon.answer::Exception": "the caller answers in process; the reason goes to the log",
    "surfaces/daemon/server.py::main::Exception": "a detached process: the reason goes to the log",
    "surfaces/web/views_review.py::_candidate_page::Exception": "the page still shows the candidate; the "
    "missing comparison says why, with the type",
    "surfaces/agent/hook.py::_log::Exception": "a log that cannot be written must not fail the hook",
    "surfaces/agent/hook.py::run::Exception": "the hook fails open: one line says 'error', the log has the "
    "type; its deadline and Ctrl-C are BaseExceptions and pass this catch",
    "surfaces/agent/edit.py::run::Exception": "the edit hook fails open (an edit never waits on memory): "
    "nothing printed, the log has the type; its deadline and Ctrl-C are BaseExceptions and pass this catch",
    "surfaces/api/errors.py::CrashGuard.__call__::Exception": "the API's crash mapper: a bug becomes "
    "`internal/error` with its traceback in the log",
    "surfaces/api/app.py::_warm::Exception": "warm-up only: the first request reports the failure with its code",
    "surfaces/cli/common.py::reported::Exception": "the CLI's one error mapper: a JgmError keeps its code, "
    "anything else is reported as an internal error (base.errors.as_error)",
    "surfaces/mcp/errors.py::StoreLogHandler.emit::Exception": "the store log is unwritable: logging's own "
    "handleError reports it",
    "surfaces/mcp/server.py::warm::Exception": "warm-up only: each call reports its own failure",
    "base/store.py::try_log::suppress(Exception)": "a log line on an error path must not replace the error",
    "index/vectors.py::_Chroma.stop::Exception": "stopping a half-started Chroma system: nothing more to release",
    "index/vectors.py::_forget_failed::suppress(Exception)": "stopping a Chroma system that failed to start",
}


def _caught(node: ast.expr | None) -> list[str]:
    if node is None:
        return ["bare"]
    names = node.elts if isinstance(node, ast.Tuple) else [node]
    return [n.id for n in names if isinstance(n, ast.Name) and n.id in BROAD]


def _only_reraises(handler: ast.ExceptHandler) -> bool:
    raises = [n for n in ast.walk(handler) if isinstance(n, ast.Raise)]
    last = handler.body[-1]
    return all(r.exc is None for r in raises) and isinstance(last, ast.Raise) and last.exc is None


class _Finder(ast.NodeVisitor):
    def __init__(self, rel: str):
        self.rel, self.stack, self.found = rel, [], []

    def _scope(self, node):
        self.stack.append(node.name)
        self.generic_visit(node)
        self.stack.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scope

    def _note(self, node: ast.AST, what: str) -> None:
        self.found.append((f"{self.rel}::{'.'.join(self.stack) or '<module>'}::{what}", node.lineno))

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        for what in _caught(node.type):
            if not _only_reraises(node):
                self._note(node, what)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        f = node.func
        if (isinstance(f, ast.Attribute) and f.attr == "suppress") or (isinstance(f, ast.Name) and f.id == "suppress"):
            for what in _caught(ast.Tuple(elts=list(node.args))):
                self._note(node, f"suppress({what})")
        self.generic_visit(node)


def broad_catches() -> list[tuple[str, int]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        finder = _Finder(path.relative_to(PACKAGE).as_posix())
        finder.visit(ast.parse(path.read_text("utf-8"), str(path)))
        found += finder.found
    return found


def test_every_broad_catch_is_reviewed_and_every_review_still_applies():
    found = broad_catches()
    unreviewed = sorted(f"{key} (line {line})" for key, line in found if key not in ALLOWED)
    assert not unreviewed, (
        "broad catches without a review: catch the exceptions the message means (index/failures.py, "
        "embedding/onnx_embedder.ort_failures), or add an entry to ALLOWED saying why it must be broad and why "
        "it cannot mislabel a deadline, Ctrl-C or a bug:\n  " + "\n  ".join(unreviewed)
    )
    gone = sorted(set(ALLOWED) - {key for key, _ in found})
    assert not gone, f"reviews of catches that are no longer there (remove them): {gone}"


def test_the_finder_sees_each_kind_of_broad_catch():
    src = (
        "import contextlib\n"
        "def f():\n"
        "    try: pass\n"
        "    except Exception: return 1\n"
        "    try: pass\n"
        "    except (OSError, BaseException) as e: raise RuntimeError() from e\n"
        "    try: pass\n"
        "    except: pass\n"
        "    try: pass\n"
        "    except BaseException:\n"
        "        cleanup()\n"
        "        raise\n"
        "    with contextlib.suppress(Exception): pass\n"
        "    try: pass\n"
        "    except OSError: pass\n"
    )
    finder = _Finder("x.py")
    finder.visit(ast.parse(src))
    assert [k for k, _ in finder.found] == [
        "x.py::f::Exception",
        "x.py::f::BaseException",
        "x.py::f::bare",
        "x.py::f::suppress(Exception)",
    ]
