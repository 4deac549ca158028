"""Incremental evidence drift (seed/drift.compute) equals the full computation, row for row, on random real
git histories: commits to cited files, folders and globs, deletions, re-committed and new records, changed
citations, uncommitted edits, merges, date ties and clock skew, and history rewrites that must fall back."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from jupiter_git_memory.git import drift as drift_git
from jupiter_git_memory.records.drift import MAX_COMMITS, Cited, drift_states, path_citations
from jupiter_git_memory.seed import drift as seed_drift

pytestmark = [pytest.mark.unit, pytest.mark.plumbing, pytest.mark.slow]  # slow: scheduled first (conftest.py)

FILES = [f"src/{d}/{n}.py" for d in ("a", "b") for n in ("m0", "m1", "m2", "m3")] + ["lib/x.txt", "lib/y.txt"]
REFS = [*FILES, "src/a/", "src/b/", "lib/", "src/**/*.py", "lib/*.txt", "src/c/new.py", "src/c/"]
REFS += ["src/a/m0.py:1-2", "src/b/m1.py#L2", "reports/r.html"]  # regions (judged by text) and an external


def _head(repo) -> str:
    return repo.git("rev-parse", "HEAD").stdout.strip()


def _cited(repo, cites: dict[str, list[str]], commit: str, status: bytes | None) -> list[Cited]:
    """The records as a seed sees them: baseline = last commit of the record's file, dirty from status."""
    out = []
    for rid, refs in sorted(cites.items()):
        path = f"knowledge/{rid}.md"
        base = repo.git("log", "-1", "--format=%H", commit, "--", path).stdout.strip() or None
        dirty = status is not None and (path.encode() in status or base is None)
        out.append(Cited(rid, path, base, dirty, tuple(path_citations(refs))))
    return out


def _full(repo, cited: list[Cited], commit: str, status: bytes | None) -> dict:
    return drift_states(cited, drift_git.history(repo.path, commit, cited, status))


class History:
    """A repository growing by random steps; `cites` is what each record cites as committed or written."""

    def __init__(self, repo, rnd: random.Random, monkeypatch):
        self.repo, self.rnd, self.mp = repo, rnd, monkeypatch
        self.t = 1_700_000_000
        self.cites: dict[str, list[str]] = {}
        self.n = 0
        for f in FILES:
            repo.write(f, f"# {f}\n")
        for _ in range(4):
            self.new_record()
        self.commit("start")

    def commit(self, msg: str) -> str:
        # ties (same second), ordinary steps and clock skew (a commit dated before its parent)
        self.t += self.rnd.choice([0, 0, 1, 60, -120])
        self.mp.setenv("GIT_COMMITTER_DATE", f"{self.t} +0000")
        self.mp.setenv("GIT_AUTHOR_DATE", f"{self.t} +0000")
        return self.repo.commit(msg)

    def refs(self) -> list[str]:
        return self.rnd.sample(REFS, self.rnd.randint(1, 3))

    def new_record(self) -> None:
        rid = f"r{len(self.cites)}"
        self.cites[rid] = self.refs()
        self.write_record(rid)

    def write_record(self, rid: str) -> None:
        self.n += 1
        self.repo.record(rid, source="[" + ", ".join(self.cites[rid]) + "]", reviewed=f"r{self.n}")

    def touch_code(self) -> None:
        for _ in range(self.rnd.randint(1, 3)):
            f = self.rnd.choice([*FILES, "src/c/new.py", "src/a/extra.py", "lib/z.txt"])
            p = self.repo.path / f
            if p.exists() and self.rnd.random() < 0.2:
                p.unlink()  # a deletion (the cited path goes missing)
            else:
                self.n += 1
                self.repo.write(f, "".join(f"line {self.n} {k}\n" for k in range(self.rnd.randint(1, 4))))

    def step(self) -> str:
        """One random step; its name."""
        r = self.rnd
        kind = r.choice(["code"] * 5 + ["recommit", "new", "recite", "dirty", "dirty-record", "merge", "rewrite"])
        if kind == "code":
            self.touch_code()
            self.commit("code")
        elif kind == "recommit":
            self.write_record(r.choice(sorted(self.cites)))
            self.commit("review")
        elif kind == "new":
            self.new_record()
            self.commit("new record")
        elif kind == "recite":
            rid = r.choice(sorted(self.cites))
            self.cites[rid] = self.refs()
            self.write_record(rid)
            self.commit("recite")
        elif kind == "dirty":
            self.touch_code()  # uncommitted, until a later step commits everything
        elif kind == "dirty-record":
            self.write_record(r.choice(sorted(self.cites)))
        elif kind == "merge":
            self.merge()
        else:
            self.rewrite()
        return kind

    def merge(self) -> None:
        """A side branch forked 0-3 commits back (so before or at the stored commit), merged with a merge
        commit; it adds files of its own only, so it never conflicts."""
        repo, r = self.repo, self.rnd
        self.commit("before merge")
        back = r.randint(0, 3)
        fork = repo.git("rev-parse", "-q", "--verify", f"HEAD~{back}", check=False).stdout.strip() or _head(repo)
        branch = f"side{self.n}"
        repo.git("checkout", "-q", "-b", branch, fork)
        for _ in range(r.randint(1, 2)):
            self.n += 1
            repo.write(r.choice(["src/a/", "src/b/", "lib/"]) + f"side{self.n}.py", f"side {self.n}\n")
            self.commit("side")
        repo.git("checkout", "-q", "main")
        self.t += r.choice([0, 1, 30])
        self.mp.setenv("GIT_COMMITTER_DATE", f"{self.t} +0000")
        repo.git("merge", "-q", "--no-ff", "--no-edit", branch)

    def rewrite(self) -> None:
        """History the stored rows are not an ancestor of: an amend, a reset, a checkout of an older commit."""
        repo, r = self.repo, self.rnd
        how = r.choice(["amend", "reset", "checkout"])
        repo.git("add", "-A")
        self.commit("pending")
        if how == "amend":
            self.touch_code()
            repo.git("add", "-A")
            repo.git("commit", "-q", "--amend", "--allow-empty", "-m", "amended")
        elif how == "reset":
            repo.git("reset", "-q", "--hard", "HEAD~1")
        else:
            n = int(repo.git("rev-list", "--first-parent", "--count", "HEAD").stdout)
            repo.git("checkout", "-q", "-B", "main", f"HEAD~{r.randint(1, max(1, n - 1))}")
        # the records as this commit has them (a reset or checkout takes back later records and citations)
        for rid in list(self.cites):
            p = repo.path / f"knowledge/{rid}.md"
            if not p.exists():
                del self.cites[rid]
                continue
            line = next(ln for ln in p.read_text().splitlines() if ln.startswith("source: ["))
            self.cites[rid] = line[len("source: [") : -1].split(", ")


@pytest.mark.parametrize("seed", range(8))
def test_incremental_drift_equals_the_full_computation_after_every_step(repo, monkeypatch, seed):
    h = History(repo, random.Random(seed), monkeypatch)
    stored: dict[str, dict] = {}  # the worktree view's rows, as the catalog keeps them
    stored_at: dict[str, dict] = {}  # an `--at HEAD` view's rows
    used = {"extended": 0, "full": 0}
    states: set[str] = set()
    for i in range(30):
        kind = h.step()
        commit, status = _head(repo), drift_git.status(repo.path)
        for rows, st in ((stored, status), (stored_at, None)):
            cited = _cited(repo, h.cites, commit, st)
            prior = seed_drift._prior(repo.path, commit, rows)
            used["extended" if prior else "full"] += 1
            got = seed_drift.compute(repo.path, commit, cited, st, rows)
            want = _full(repo, cited, commit, st)
            assert got == want, f"seed {seed}, step {i} ({kind}), {'worktree' if st is not None else 'at'} view"
            rows.clear()
            rows.update(got)
            states.update(d["state"] for d in got.values())
    # both paths ran, and on rows of both main states (the comparison is not between empty rows); `missing`
    # needs a deletion of a path cited at a record's baseline, which not every random history makes
    assert used["extended"] > 10 and used["full"] > 0 and {"fresh", "drifted"} <= states


def _start(repo, monkeypatch) -> dict:
    """A record citing src/, committed; its row computed at that commit."""
    monkeypatch.setenv("GIT_COMMITTER_DATE", "1700000000 +0000")
    repo.write("src/a.py", "a\n")
    repo.record("d1", source="[src/]")
    repo.commit("start")
    return _rows(repo, {"d1": ["src/"]})


def _rows(repo, cites) -> dict:
    commit = _head(repo)
    return seed_drift.compute(repo.path, commit, _cited(repo, cites, commit, None), None, {})


def _commit_at(repo, monkeypatch, t: int, rel: str, msg: str) -> str:
    monkeypatch.setenv("GIT_COMMITTER_DATE", f"{1700000000 + t} +0000")
    repo.write(rel, f"{msg}\n")
    return repo.commit(msg)


def test_a_fast_forward_extends_and_reads_no_history_of_its_own(repo, monkeypatch):
    stored = _start(repo, monkeypatch)
    old = _head(repo)
    shas = [_commit_at(repo, monkeypatch, t, "src/a.py", f"c{t}") for t in range(1, MAX_COMMITS + 4)]
    assert drift_git.commits_since(repo.path, old, _head(repo)) is not None
    seen: list[list[str]] = []
    real = drift_git.history
    monkeypatch.setattr(
        drift_git, "history", lambda r, c, recs, st: seen.append([x.id for x in recs]) or real(r, c, recs, st)
    )
    cited = _cited(repo, {"d1": ["src/"]}, _head(repo), None)
    got = seed_drift.compute(repo.path, _head(repo), cited, None, stored)["d1"]
    assert seen == [[]]  # the extended record asked no history of its own
    assert got["commits"] == len(shas) and [c["sha"] for c in got["changed"]] == shas[::-1][:MAX_COMMITS]
    assert got == _full(repo, cited, _head(repo), None)["d1"]


@pytest.mark.parametrize("how", ["checkout", "amend", "reset"])
def test_history_that_does_not_contain_the_stored_commit_falls_back(repo, monkeypatch, how):
    _start(repo, monkeypatch)
    _commit_at(repo, monkeypatch, 1, "src/a.py", "one")
    stored = _rows(repo, {"d1": ["src/"]})
    if how == "checkout":
        repo.git("checkout", "-q", "-b", "other", "HEAD~1")
        _commit_at(repo, monkeypatch, 2, "src/b.py", "other")
    elif how == "amend":
        repo.write("src/a.py", "amended\n")
        repo.git("commit", "-qam", "amended", "--amend")
    else:
        repo.git("reset", "-q", "--hard", "HEAD~1")
    head = _head(repo)
    assert drift_git.commits_since(repo.path, stored["d1"]["basis"]["at"], head) is None
    cited = _cited(repo, {"d1": ["src/"]}, head, None)
    assert seed_drift.compute(repo.path, head, cited, None, stored) == _full(repo, cited, head, None)


def test_a_merge_of_a_branch_forked_before_the_stored_commit_falls_back_and_one_forked_after_extends(repo, monkeypatch):
    _start(repo, monkeypatch)
    fork = _head(repo)
    _commit_at(repo, monkeypatch, 2, "src/a.py", "main")
    old = _head(repo)
    repo.git("checkout", "-q", "-b", "early", fork)
    _commit_at(repo, monkeypatch, 1, "src/b.py", "early")  # dated before `old`: git lists it after `old`
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--no-ff", "--no-edit", "early")
    assert drift_git.commits_since(repo.path, old, _head(repo)) is None
    old = _head(repo)
    repo.git("checkout", "-q", "-b", "late", old)
    late = _commit_at(repo, monkeypatch, 3, "src/c.py", "late")
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--no-ff", "--no-edit", "late")
    got = drift_git.commits_since(repo.path, old, _head(repo))
    assert got is not None and [c.sha for c in got][1:] == [late]


def test_dates_that_list_the_stored_commit_before_a_new_one_fall_back(repo, monkeypatch):
    """Two branches off the stored commit, one dated before it (clock skew): `git log` lists the stored
    commit before that one, so the new commits do not all come first and nothing is extended."""
    _start(repo, monkeypatch)
    _commit_at(repo, monkeypatch, 10, "src/a.py", "stored")
    old = _head(repo)
    repo.git("checkout", "-q", "-b", "skewed")
    _commit_at(repo, monkeypatch, 5, "src/b.py", "skewed")
    repo.git("checkout", "-q", "main")
    _commit_at(repo, monkeypatch, 20, "src/c.py", "main")
    monkeypatch.setenv("GIT_COMMITTER_DATE", "1700000030 +0000")
    repo.git("merge", "-q", "--no-ff", "--no-edit", "skewed")
    assert drift_git.commits_since(repo.path, old, _head(repo)) is None
    cited = _cited(repo, {"d1": ["src/"]}, _head(repo), None)
    stored = {"d1": seed_drift.compute(repo.path, old, _cited(repo, {"d1": ["src/"]}, old, None), None, {})["d1"]}
    assert seed_drift.compute(repo.path, _head(repo), cited, None, stored) == _full(repo, cited, _head(repo), None)


def test_rows_of_an_older_format_or_another_record_state_are_recomputed(repo, monkeypatch):
    stored = _start(repo, monkeypatch)
    _commit_at(repo, monkeypatch, 1, "src/a.py", "one")
    head = _head(repo)
    cited = _cited(repo, {"d1": ["src/"]}, head, None)
    old_format = {"d1": {k: v for k, v in stored["d1"].items() if k != "basis"}}
    assert seed_drift._prior(repo.path, head, old_format) is None
    # a stored row for the same id whose record cited something else then: its own history is read
    other = _rows(repo, {"d1": ["src/a.py", "lib/"]})
    recited = {"d1": {**other["d1"], "basis": {**other["d1"]["basis"], "at": stored["d1"]["basis"]["at"]}}}
    prior = seed_drift._prior(repo.path, head, recited)
    assert prior is not None and seed_drift.reusable(cited, prior) == set()
    want = _full(repo, cited, head, None)
    assert seed_drift.compute(repo.path, head, cited, None, old_format) == want
    assert seed_drift.compute(repo.path, head, cited, None, recited) == want


def test_seeds_extend_the_stored_rows_and_store_what_a_full_computation_gives(repo, monkeypatch):
    """Real seeds (model, Chroma, catalog): a code commit reads no record's history, a new record only its
    own, a branch switch every record's; each time the stored rows are a full computation's."""
    from jupiter_git_memory.seed.seeder import Seeder

    repo.write("src/pay.py", "A = 1\n")
    repo.write("src/tax.py", "T = 1\n")
    repo.record("dec-pay", title="Payments", source="[src/pay.py]", body="Payments live in src/pay.py.")
    repo.record("dec-src", title="Sources", source="[src/]", body="All code lives in src.")
    repo.commit("start")
    s = Seeder(repo.path)
    s.seed()
    asked: list[list[str]] = []
    real = drift_git.history
    monkeypatch.setattr(
        drift_git, "history", lambda r, c, recs, st: asked.append([x.id for x in recs]) or real(r, c, recs, st)
    )

    def reseed() -> tuple[list[list[str]], dict]:
        """(the records each history read was asked for, the stored rows), checked against a full pass."""
        n = len(asked)
        rep = s.seed()
        seed_asked = asked[n:]
        idx = s.open(view=rep.view, write=False)
        try:
            stored, rows = idx.catalog.drift(), idx.catalog.records()
        finally:
            idx.close()
        _, full = seed_drift.view_drift(repo.path, rep.commit, True, rows, "")
        assert stored == {d["id"]: d for d in full or []}
        return seed_asked, stored

    repo.write("src/pay.py", "A = 2\n")
    sha = repo.commit("code only")
    seen, got = reseed()
    assert seen == [[]] and got["dec-pay"]["changed"][0]["sha"] == sha and got["dec-src"]["commits"] == 1
    repo.write("src/new.py", "N = 1\n")
    repo.record("dec-new", title="New", source="[src/new.py, src/tax.py]", body="A new module.")
    repo.commit("new record")
    seen, got = reseed()
    assert seen == [["dec-new"]] and got["dec-src"]["commits"] == 2 and got["dec-new"]["state"] == "fresh"
    repo.git("checkout", "-q", "-b", "old", "HEAD~2")
    seen, got = reseed()
    assert seen == [["dec-pay", "dec-src"]] and got["dec-pay"]["state"] == "fresh"


_SEGS = hs.sampled_from(["src", "a", "b.py", "x.txt", "[x", "m1", "*", "**", "?.py", "[ab].py", "*.py", "a*"])


@settings(max_examples=400, deadline=None)
@given(hs.lists(hs.lists(_SEGS, min_size=1, max_size=4), max_size=12), hs.lists(_SEGS, min_size=1, max_size=4))
def test_a_glob_scans_only_under_its_literal_prefix_with_the_answer_of_a_full_scan(paths, ref):
    """PathSet answers a glob from the paths under its literal prefix; the answer is a scan of them all."""
    from jupiter_git_memory.records.citations import classify
    from jupiter_git_memory.records.drift import PathSet
    from jupiter_git_memory.records.globs import glob_match

    files, pattern = ["/".join(p) for p in paths], "/".join(ref)
    ps = PathSet(files)
    if classify(pattern) == "glob":
        assert ps.covered(pattern) == [p for p in sorted(set(files)) if glob_match(pattern, p)]
    assert ps.names_any(pattern) == bool(ps.covered(pattern))
