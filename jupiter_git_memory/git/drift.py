"""The git plumbing behind evidence drift (records/drift.py decides; this only reads git).

One pass per computation, whatever the number of records: `git merge-base --octopus` of the records'
baselines bounds the history, one `git log --numstat` lists every commit since with the files it changed,
one listing gives the files of the view (`ls-tree` for a commit, `ls-files` for a worktree) and, for a
worktree view, `git status` and `git diff-index --numstat HEAD` the uncommitted changes. The seeder keys the
result on `drift_key` (the view's commit, the records' baselines and citations, the worktree's status), so
a no-op reseed runs only `git status` and writes nothing. The texts judging needs (records/drift_judge.py:
each changed cited file at the record's baseline and in the view) come from one `git cat-file --batch`
(`GitTexts`); a text at a commit never changes, so it is kept across computations by (commit, path).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import OrderedDict
from collections.abc import Iterable
from pathlib import Path

from ..base import error_codes as E
from ..base.errors import JgmError
from ..records.drift import RULES, Cited, Commit, History
from . import state
from .listing import diff_names, split_z, tree_paths, worktree_files
from .revisions import is_ancestor
from .runner import git

_FORMAT = "--format=%x01%H%x1f%P%x1f%an%x1f%aI%x1f%s"
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def status(root: Path) -> bytes:
    """The worktree's `git status` (the cheap check a no-op reseed pays)."""
    return state.status(root)


def drift_key(commit: str | None, records: Iterable[Cited], worktree_status: bytes | None) -> str:
    """What a view's drift depends on; equal keys, equal states."""
    h = hashlib.sha256(
        json.dumps([RULES, commit, sorted((r.id, r.path, r.commit, r.dirty, r.citations) for r in records)]).encode()
    )
    h.update(worktree_status or b"")
    return h.hexdigest()[:32]


def shallow_marker(root: Path) -> str:
    """The repository's shallow boundary (a hash of `<git-dir>/shallow`), '' when its history is complete. A
    drift computed in a shallow clone stops at the boundary, so it is part of what drift depends on: after
    `git fetch --unshallow` (or a deepen) every state is computed again, not extended (issue 35, item 6)."""
    p = "".join(state.git_paths(root, "shallow", check=False)).strip()
    try:
        data = Path(p).read_bytes() if p else b""
    except OSError:
        return ""
    return hashlib.sha256(data).hexdigest()[:12] if data.strip() else ""


def parse_log(out: bytes) -> list[Commit]:
    """`git log -z --numstat` in _FORMAT as commits, newest first."""
    commits: list[Commit] = []
    head: list[str] | None = None
    files: dict[str, tuple[int, int]] = {}

    def flush() -> None:
        if head is not None:
            sha, parents, author, date, subject = (head + ["", "", "", ""])[:5]
            commits.append(Commit(sha, tuple(parents.split()), author, date, subject, dict(files)))

    for token in out.split(b"\0"):
        token = token.lstrip(b"\n")
        if token.startswith(b"\x01"):
            flush()
            head, files = token[1:].decode("utf-8", "replace").split("\x1f", 4), {}
        elif token.count(b"\t") >= 2:
            add, dele, path = token.split(b"\t", 2)
            files[path.decode("utf-8", "surrogateescape")] = (
                int(add) if add.isdigit() else 0,
                int(dele) if dele.isdigit() else 0,
            )
    flush()
    return commits


def history(root: Path, commit: str | None, records: list[Cited], worktree_status: bytes | None) -> History:
    """The History of a view at `commit` (`worktree_status`: a worktree view's `git status`, else None)."""
    baselines = sorted({r.commit for r in records if r.commit and not r.dirty})
    commits: list[Commit] = []
    if commit and baselines:
        base = git(root, "merge-base", "--octopus", *baselines, check=False).decode().strip()
        rng = [commit, f"^{base}"] if base else [commit]
        commits = parse_log(git(root, "log", "--no-renames", "-z", "--numstat", _FORMAT, *rng, "--"))
    if worktree_status is None:
        paths = tree_paths(root, commit) if commit else []
        return History(commits, paths, commit=commit, texts=GitTexts(root, commit, False, paths))
    gone, dirty = set(), {}
    for item in filter(None, worktree_status.split(b"\0")):
        xy, path = item[:2], item[3:].decode("utf-8", "surrogateescape")
        dirty[path] = (0, 0)
        if b"D" in xy:
            gone.add(path)
    if commit and dirty:
        # plumbing: `git diff` refreshes (writes) git's index even with --no-optional-locks, which would take
        # index.lock beside the user's git and change what the next no-op check sees; diff-index never does
        numstat = git(root, "diff-index", "--numstat", "-z", "--no-renames", "HEAD", "--", check=False)
        for token in numstat.split(b"\0"):
            if token.count(b"\t") >= 2:
                add, dele, p = token.split(b"\t", 2)
                path = p.decode("utf-8", "surrogateescape")
                if path in dirty:
                    dirty[path] = (int(add) if add.isdigit() else 0, int(dele) if dele.isdigit() else 0)
    listed = [p for p in worktree_files(root) if p not in gone]
    return History(commits, listed, dirty, commit, texts=GitTexts(root, commit, True, listed))


_TEXTS: OrderedDict[tuple[str, str, str], str | None] = OrderedDict()  # (root, commit, path) -> text
_TEXTS_MAX = 4096


class GitTexts:
    """records/drift_judge.Texts over git: texts at a commit from `git cat-file --batch` (kept by commit and
    path across computations), the view's texts from its commit or, for a worktree view, from the files."""

    def __init__(self, root: Path, commit: str | None, worktree: bool, paths: list[str]):
        self.root, self.commit, self.worktree = root, commit, worktree
        self.tops = {p.split("/", 1)[0] for p in paths if "/" in p}
        self._view: dict[str, str | None] = {}
        self._trees: dict[str, list[str]] = {}

    def _key(self, rev: str | None, path: str) -> tuple[str, str, str] | None:
        rev = self.commit if rev is None and not self.worktree else rev
        return (str(self.root), rev, path) if rev else None

    def prefetch(self, specs: Iterable[tuple[str | None, str]]) -> None:
        want = []
        for rev, path in set(specs):
            key = self._key(rev, path)
            if key is None:
                self.text(rev, path)
            elif key not in _TEXTS and "\n" not in path:
                want.append(key)
        if want:
            got = read_texts(self.root, [f"{k[1]}:{k[2]}" for k in want])
            for k, text in zip(want, got):
                _TEXTS[k] = text
            while len(_TEXTS) > _TEXTS_MAX:
                _TEXTS.popitem(last=False)

    def text(self, rev: str | None, path: str) -> str | None:
        key = self._key(rev, path)
        if key is None:  # the worktree's file
            if path not in self._view:
                try:
                    self._view[path] = (self.root / path).read_bytes().decode("utf-8", "replace")
                except OSError:
                    self._view[path] = None
            return self._view[path]
        if key not in _TEXTS:
            self.prefetch([(rev, path)])
        return _TEXTS.get(key)

    def paths_at(self, rev: str) -> list[str]:
        if rev not in self._trees:
            self._trees[rev] = tree_paths(self.root, rev) if _SHA.fullmatch(rev) else []
        return self._trees[rev]

    def ever_had(self, top: str) -> bool:
        """Whether the view or its history ever had `top/` (one `git log -1` for a folder the view lacks)."""
        if top in self.tops:
            return True
        if not self.commit:
            return False
        return bool(git(self.root, "log", "-1", "--format=%H", self.commit, "--", f"{top}/", check=False).strip())

    def search(self, needle: str, symbol: bool) -> list[str]:
        """The view's files holding `needle` (a whole word when it is a symbol's name): `git grep -l`."""
        args = ["grep", "-l", "-z", "-I", "-F", *(["-w"] if symbol else []), "-e", needle]
        if self.worktree:
            return split_z(git(self.root, *args, "--untracked", "--", check=False))
        if not self.commit:
            return []
        prefix = f"{self.commit}:"
        return [p.removeprefix(prefix) for p in split_z(git(self.root, *args, self.commit, "--", check=False))]


def read_texts(root: Path, specs: list[str]) -> list[str | None]:
    """The texts of `<commit>:<path>` specs, in order, from one `git cat-file --batch` (None: no such file)."""
    out = git(root, "cat-file", "--batch", input="".join(f"{s}\n" for s in specs).encode(), check=False)
    got: list[str | None] = []
    pos = 0
    for _spec in specs:
        end = out.index(b"\n", pos)
        head = out[pos:end].split()
        if len(head) == 3 and head[1] in (b"blob", b"tree", b"commit", b"tag"):
            size = int(head[2])
            data = out[end + 1 : end + 1 + size]
            got.append(data.decode("utf-8", "replace") if head[1] == b"blob" else None)
            pos = end + 1 + size + 1
        else:  # `<spec> missing` (or ambiguous)
            got.append(None)
            pos = end + 1
    return got


def commits_since(root: Path, old: str, new: str) -> list[Commit] | None:
    """The commits `old..new`, newest first, when git's order at `new` provably puts every one of them before
    every commit at or below `old`, so drift rows stored at `old` extend by them (records/drift.Prior).

    `git log` pops commits newest-date first from a queue a commit joins when its first child is popped; so
    the order among a set of commits whose children all lie in the set does not depend on where the walk
    stops. The commits `new --not old^@` are such a set; when none of them but `old` has a parent outside
    it, everything below `old` joins the queue only after `old` is popped, and when `old` comes last, every
    new commit precedes every stored one. None otherwise: `old` not an ancestor (another branch, a rebase,
    a reset), a merge of history forked below `old`, or dates that put `old` before a new commit."""
    if old == new:
        return []
    if not _SHA.fullmatch(old) or not _SHA.fullmatch(new):  # a stored value, never passed to git as an option
        return None
    if not is_ancestor(root, old, new):
        return None
    walk = [
        ln.split()
        for ln in git(root, "rev-list", "--parents", new, "--not", f"{old}^@", "--", check=False).decode().splitlines()
    ]
    if not walk or walk[-1][0] != old:
        return None
    inside = {ln[0] for ln in walk}
    if any(p not in inside for ln in walk[:-1] for p in ln[1:]):
        return None
    commits = parse_log(git(root, "log", "--no-renames", "-z", "--numstat", _FORMAT, new, f"^{old}", "--"))
    return commits if [c.sha for c in commits] == [ln[0] for ln in walk[:-1]] else None


class NoMergeBase(JgmError, ValueError):
    """`--base REV` shares no history with the view's commit: there is no change between them to ask about."""

    entry = E.REVISION_NO_MERGE_BASE


def changed_between(root: Path, base: str, head: str) -> set[str]:
    """Files changed between the merge base of `base` and `head`, and `head` (what a PR changes); NoMergeBase
    naming both when they share no history (an orphan branch, an unrelated fetch, a shallow clone)."""
    if not git(root, "merge-base", base, head, check=False).strip():
        raise NoMergeBase(
            f"--base {base!r} and {head[:12]!r} have no common ancestor in {root}, so no change lies between "
            "them; pass the branch this one was made from (e.g. `--base main`), or in a shallow clone fetch "
            "more history (`git fetch --unshallow`, or actions/checkout with fetch-depth: 0)"
        )
    return set(diff_names(root, [f"{base}...{head}"]))
