"""The candidate operations under every surface: a request in (app/candidate_requests.py), a typed answer
out (candidates/answers.py), a typed error raised (a JgmError with its catalogue code).

The CLI (`jgm remember|revise|forget|candidates …`), the HTTP API (routes_candidates.py), MCP
(surfaces/mcp/candidates.py) and the review UI build the request from their own inputs, call one of these
and render the answer; none of them reads a status string to learn whether an operation failed. A
rejected observation raises `CandidateRejected` (code `candidate/<reason>`), carrying the answer each
surface still shows. Every answer names its workspace.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..candidates import review
from ..candidates import service as candidate_service
from ..candidates.answers import CandidateAnswer, CandidateList, CandidateShown, Forgotten, Proposal
from ..candidates.errors import CandidateRejected
from ..candidates.service import CandidateService
from .candidate_requests import CandidateRequestBase, ConcludeRequest, ProposeRequest, RejectRequest, ReviseRequestBase
from .paths import PathOutsideRepo, cited_path, repo_path

NOT_A_RULE = "A candidate is not a project rule: a reviewer promotes it by merging a pull request."
# The reviewer's conclusions (candidates/review.py): action -> (its function, what it does).
CONCLUSIONS = {
    "duplicate": (
        review.duplicate_of,
        "Close a candidate as a duplicate of a record or candidate; its evidence is kept on the target",
    ),
    "merge": (
        review.merge_into,
        "Merge a candidate into an open candidate: its text becomes an observation of the target",
    ),
    "supersede": (
        review.supersedes,
        "Make the candidate's proposal supersede an in-force record (`supersedes:` in its file)",
    ),
}


@dataclass
class Candidates:
    """One workspace's candidate operations. `workspace` is the id answers name: a server's handle id (a
    further served worktree is `<id>.<folder>`), else the workspace's own."""

    svc: CandidateService
    workspace: str

    @classmethod
    def for_handle(cls, handle: Any) -> Candidates:
        """A server's (sharing its handle's model); its errors keep their own codes (config/invalid, …)."""
        return cls(candidate_service.for_handle(handle), handle.id)

    @classmethod
    def for_repo(cls, repo: Path | None) -> Candidates:
        svc = CandidateService(repo)
        return cls(svc, svc.workspace.id)

    def record(
        self, req: CandidateRequestBase, dry_run: bool = False, cwd: str | None = None, **extra: Any
    ) -> CandidateAnswer:
        """Record the observation (or, `dry_run`, say what recording would do). Created, merged and skipped
        are answers (`written` says whether the store changed); a rejection raises CandidateRejected. Its
        `files` are read from `cwd` (`located`)."""
        a = self.svc.record(self.located(req, cwd).to_input(), dry_run=dry_run)
        answer = self._answer(a, extra)
        if a.decision == "rejected":
            raise CandidateRejected(a.reason_code, a.reason, answer)
        return answer

    def validate(self, req: CandidateRequestBase, cwd: str | None = None, **extra: Any) -> CandidateAnswer:
        """What recording would answer, writing nothing: a rejection is an answer here (that is the question)."""
        return self._answer(self.svc.validate(self.located(req, cwd).to_input()), extra)

    def located(self, req: CandidateRequestBase, cwd: str | None = None) -> CandidateRequestBase:
        """`req` with its `files` as the repository paths the record will cite (app/paths.py: an absolute
        path inside the repository, or one typed in a subfolder, `cwd`). One that lies outside is left as
        given, for the checks to refuse as `candidate/bad-files`, the candidate contract's answer. The paths
        its `evidence` and `source` name are read the same way (`cited_path`); other text is kept."""
        root = self.svc.workspace.repo_root
        located = []
        for f in getattr(req, "files", None) or []:
            try:
                located.append(repo_path(root, f, cwd) if str(f).strip() else f)
            except PathOutsideRepo:
                located.append(f)
        update: dict[str, Any] = {"files": located} if located else {}
        evidence, source = getattr(req, "evidence", None), getattr(req, "source", None)
        if evidence:
            update["evidence"] = [cited_path(root, e, cwd) if isinstance(e, str) else e for e in evidence]
        if isinstance(source, str):
            update["source"] = cited_path(root, source, cwd)
        return req.model_copy(update=update) if update else req

    def _answer(self, a: Any, extra: dict[str, Any]) -> CandidateAnswer:
        return CandidateAnswer.model_validate(dict(a.to_json(), workspace=self.workspace, **extra))

    def listing(self, state: str | None = "queue") -> CandidateList:
        """Candidates oldest first: `queue` (open + proposed), `all` or one state; another is request/bad-filter."""
        return CandidateList.model_validate({"candidates": self.svc.list(state), "workspace": self.workspace})

    def show(self, cid: str) -> CandidateShown:
        return self._shown(self.svc.show(cid))

    def reject(self, cid: str, req: RejectRequest) -> CandidateShown:
        return self._shown(self.svc.reject(cid, req.why))

    def revise(self, rid: str, req: ReviseRequestBase, cwd: str | None = None) -> CandidateShown:
        """The new `source`'s path, if it names one, is read from `cwd` as `located` reads it."""
        changes = req.changes()
        if isinstance(changes.get("source"), str):
            changes["source"] = cited_path(self.svc.workspace.repo_root, changes["source"], cwd)
        return self._shown(self.svc.revise(rid, agent=getattr(req, "agent", None), **changes))

    def forget(self, rid: str, agent: str | None = None, reviewer: bool = False) -> Forgotten:
        """Only the recorder (`agent`) or a reviewer forgets an open candidate (candidates/transitions.py)."""
        res = self.svc.forget(rid, agent=agent, reviewer=reviewer)
        return Forgotten.model_validate(dict(res, workspace=self.workspace))

    def propose(self, cid: str, req: ProposeRequest) -> Proposal:
        """Write the record file on a new branch (candidates/propose.py); the served checkout is not touched."""
        from ..candidates.propose import propose as write_proposal

        res = write_proposal(self.svc, cid, req.status, req.base, req.open_pr)
        return Proposal.model_validate(dict(res, workspace=self.workspace))

    def conclude(self, cid: str, action: str, req: ConcludeRequest, reviewer: str) -> CandidateShown:
        """A reviewer's conclusion (CONCLUSIONS): `req.reviewer`, else the surface's name for its reviewer."""
        fn = CONCLUSIONS[action][0]
        return self._shown(fn(self.svc, cid, req.target, req.reviewer or reviewer))

    def _shown(self, candidate: dict[str, Any]) -> CandidateShown:
        return CandidateShown.model_validate({"candidate": candidate, "workspace": self.workspace})
