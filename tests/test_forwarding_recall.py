"""Forwarding from retired records, end to end (issue 34, part 5): real git repositories, the real model, the
real `jgm`. A retired record that matches leads to its in-force replacement, marked `via`, on every surface
(recall, task recall, context packs, the prompt hook and the session brief), and is itself never returned."""

from __future__ import annotations

import json
import textwrap

import pytest
from cli_helpers import jgm_in, jgm_json_in
from helpers import jgm

pytestmark = pytest.mark.e2e

ADRS = {
    "0001-record-architecture-decisions.md": (
        "Record architecture decisions",
        "Accepted",
        "We need to record the architectural decisions made on this project.",
        "We will use Architecture Decision Records, as described by Michael Nygard.",
    ),
    "0002-use-postgresql.md": (
        "Use PostgreSQL",
        "Superseded by [3. Use managed PostgreSQL on RDS](0003-use-managed-postgresql-on-rds.md)",
        "The shop needs a database for orders, customers and stock levels, with transactions across them.",
        "We will use PostgreSQL as our database.",
    ),
    "0003-use-managed-postgresql-on-rds.md": (
        "Use managed PostgreSQL on RDS",
        "Accepted\n\nSupersedes [2. Use PostgreSQL](0002-use-postgresql.md)",
        "Patching and backing up our own servers took a day of on-call time every month.",
        "We move to Amazon RDS, Multi-AZ, with automated snapshots kept for 14 days.",
    ),
    "0004-send-emails-from-background-jobs.md": (
        "Send emails from background jobs",
        "Accepted",
        "Sending mail inside a web request made checkout slow whenever the mail provider was.",
        "Confirmation and password-reset mails are queued as Sidekiq jobs and sent through Postmark.",
    ),
    "0005-use-react-for-the-storefront.md": (
        "Use React for the storefront",
        "Accepted",
        "The storefront pages grew interactive: cart, filters, live stock.",
        "The storefront is a React single-page app built with Vite.",
    ),
    "0006-deploy-with-github-actions.md": (
        "Deploy with GitHub Actions",
        "Accepted",
        "Deploys were run by hand from a laptop.",
        "Every merge to main is built, tested and deployed by a GitHub Actions workflow.",
    ),
    "0007-structured-json-logs.md": (
        "Structured JSON logs",
        "Accepted",
        "Grepping free-text logs across services was slow during incidents.",
        "All services log one JSON object per line with a request id.",
    ),
    "0008-version-the-api-in-the-path.md": (
        "Version the API in the path",
        "Accepted",
        "Mobile clients stay on old versions for months.",
        "The public API carries its major version in the path, /v1/ and /v2/.",
    ),
}
QUESTION = "which database do we use?"
RETIRED, REPLACEMENT = "ADR-0002", "ADR-0003"


def _adr(n: int, title: str, status: str, context: str, decision: str) -> str:
    return (
        f"# {n}. {title}\n\nDate: 2024-0{min(n, 9)}-01\n\n## Status\n\n{status}\n\n## Context\n\n{context}\n\n"
        f"## Decision\n\n{decision}\n\n## Consequences\n\nNone worth noting yet.\n"
    )


@pytest.fixture
def adr_repo(repo):
    """The small team repository of issue 34: Nygard ADRs, "Use PostgreSQL" superseded by the RDS one."""
    for name, (title, status, context, decision) in ADRS.items():
        repo.write(f"doc/adr/{name}", _adr(int(name[:4]), title, status, context, decision))
    repo.commit("adr")
    repo.git("checkout", "-q", "-b", "choose-the-database")
    repo.write("db/README.md", "Which database do we use for orders?\n")
    repo.commit("which database do we use for orders")
    p = jgm_in("seed", cwd=repo.path)
    assert p.returncode == 0, p.stderr
    return repo


def _ids(results: list[dict]) -> list[str]:
    return [r["id"] for r in results]


def test_recall_forwards_from_the_superseded_adr_and_never_returns_it(adr_repo):
    rc, ans = jgm_json_in("recall", QUESTION, cwd=adr_repo.path)
    assert rc == 0 and ans["status"] == "ok", ans
    assert _ids(ans["results"]) == [REPLACEMENT]  # without forwarding: no-matches (the RDS ADR is under the floor)
    top = ans["results"][0]
    why = top["why"]
    assert why["via"] == f"{RETIRED}, superseded" and why["via_path"] == [RETIRED, REPLACEMENT]
    assert why["cos"] is not None and why["cos"] <= ans["floor"] < why["via_cos"]  # it did not pass by itself
    assert why["relevance"] < why["via_cos"] and top["score"] == pytest.approx(
        why["relevance"] * why["weight"], abs=1e-3
    )
    assert top["status"] == "accepted" and "read_instead" not in top
    assert ans["receipt"]["ids"] == [REPLACEMENT]
    human = jgm_in("recall", QUESTION, cwd=adr_repo.path).stdout
    assert f"via {RETIRED}, superseded" in human and "Use managed PostgreSQL on RDS" in human
    assert "Use PostgreSQL  " not in human  # the retired record's own line (title, two spaces, id) is not there


def test_asking_for_superseded_records_still_returns_them_as_they_are(adr_repo):
    rc, ans = jgm_json_in("recall", QUESTION, "--status", "superseded", cwd=adr_repo.path)
    assert rc == 0 and _ids(ans["results"]) == [RETIRED]
    assert [x["id"] for x in ans["results"][0]["read_instead"]] == [REPLACEMENT]
    assert all("via" not in r["why"] for r in ans["results"])
    # lexical mode shows lexical evidence alone: retired records carry none, so nothing is forwarded there
    rc, ans = jgm_json_in("recall", QUESTION, "--mode", "lexical", cwd=adr_repo.path)
    assert RETIRED not in _ids(ans["results"]) and all("via" not in r["why"] for r in ans["results"])


def test_task_recall_context_and_hooks_forward_without_leaking(adr_repo):
    rc, task = jgm_json_in("recall-task", "--goal", QUESTION, cwd=adr_repo.path)
    assert rc == 0 and REPLACEMENT in _ids(task["results"]) and RETIRED not in _ids(task["results"])
    hit = next(r for r in task["results"] if r["id"] == REPLACEMENT)
    assert hit["why"]["semantic"]["via"] == f"{RETIRED}, superseded"

    rc, pack = jgm_json_in("context", "--goal", QUESTION, "--budget", "400", cwd=adr_repo.path)
    assert rc == 0 and REPLACEMENT in _ids(pack["records"]) and RETIRED not in _ids(pack["records"])
    assert next(r for r in pack["records"] if r["id"] == REPLACEMENT)["via"] == f"via {RETIRED}, superseded"
    assert f"[{REPLACEMENT} · adr/accepted" in pack["text"] and f"[{RETIRED} ·" not in pack["text"]
    assert f"via {RETIRED}, superseded" in pack["text"] and "## Use PostgreSQL\n" not in pack["text"]

    for event, payload in (
        ("prompt", {"prompt": QUESTION, "cwd": str(adr_repo.path)}),
        ("session-start", {"cwd": str(adr_repo.path)}),  # the branch and the last commit ask about the database
    ):
        p = jgm("hook", "claude-code", event, input=json.dumps(payload), cwd=adr_repo.path)
        text = json.loads(p.stdout)["hookSpecificOutput"]["additionalContext"]
        assert f"[{REPLACEMENT} · adr/accepted" in text, (event, text)
        assert f"[{RETIRED} ·" not in text and "## Use PostgreSQL\n" not in text, (event, text)


RECORDS = {
    # a chain: Redis (superseded) -> SQS (accepted, then superseded by) -> Temporal (accepted)
    "dec-queue-redis": (
        "decision",
        "superseded",
        "Background jobs run on Redis with RQ",
        "superseded_by: dec-queue-sqs",
        "Jobs are pushed to a Redis list and worked off by RQ workers on the app servers.",
    ),
    "dec-queue-sqs": (
        "decision",
        "accepted",
        "Move the job queue to Amazon SQS",
        "supersedes: dec-queue-redis",
        "Redis lost jobs on failover twice; SQS keeps messages for four days.",
    ),
    "dec-queue-temporal": (
        "decision",
        "accepted",
        "Long workflows run on Temporal",
        "supersedes: dec-queue-sqs",
        "Multi-step order flows need retries and timers that survive deploys; Temporal gives both.",
    ),
    # a false fact and the fact that corrects it
    "fact-timeout-30": (
        "fact",
        "false",
        "The gateway cuts requests off after 30 seconds",
        "",
        "Nginx in front of the API closes any request still running after 30 seconds.",
    ),
    "fact-timeout-edge": (
        "fact",
        "verified",
        "Edge limit is two minutes",
        "supersedes: fact-timeout-30",
        "Measured in November: the load balancer allows 120 s before it answers 504.",
    ),
    # declared superseded, its successor only proposed: there is nothing in force to forward to
    "dec-css-old": (
        "decision",
        "superseded",
        "Style the site with Bootstrap",
        "superseded_by: dec-css-draft",
        "We use Bootstrap 4 classes for the marketing site layout and buttons.",
    ),
    "dec-css-draft": (
        "decision",
        "proposed",
        "Tailwind for new pages",
        "supersedes: dec-css-old",
        "New pages could use utility classes instead.",
    ),
    "dec-backups": ("decision", "accepted", "Nightly database backups to S3", "", "A cron job dumps the database."),
    "dec-fonts": ("decision", "accepted", "Self-host web fonts", "", "Fonts are served from our CDN."),
}
NEVER = {"dec-queue-redis", "dec-queue-sqs", "fact-timeout-30", "dec-css-old", "dec-css-draft"}


@pytest.fixture
def kb_repo(repo):
    for rid, (kind, status, title, link, body) in RECORDS.items():
        front = f"id: {rid}\nkind: {kind}\nstatus: '{status}'\ntitle: {title}\n" + (f"{link}\n" if link else "")
        repo.write(f"knowledge/{rid}.md", f"---\n{front}---\n{textwrap.dedent(body)}\n")
    repo.commit("kb")
    assert jgm_in("seed", cwd=repo.path).returncode == 0
    return repo


def test_chains_false_facts_and_successors_not_in_force(kb_repo):
    rc, ans = jgm_json_in("recall", "do background jobs run on Redis with RQ workers?", cwd=kb_repo.path)
    assert _ids(ans["results"]) == ["dec-queue-temporal"], ans["results"]
    why = ans["results"][0]["why"]
    assert why["via_path"] == ["dec-queue-redis", "dec-queue-sqs", "dec-queue-temporal"]
    assert why["rule"].endswith("(2)") and why["relevance"] < why["via_cos"]

    rc, ans = jgm_json_in("recall", "is the nginx timeout 30 seconds?", cwd=kb_repo.path)
    assert _ids(ans["results"]) == ["fact-timeout-edge"]
    assert ans["results"][0]["why"]["via"] == "fact-timeout-30, invalidated"

    rc, ans = jgm_json_in("recall", "do we style the site with Bootstrap?", cwd=kb_repo.path)
    assert ans["status"] == "no-matches" and ans["results"] == []  # the draft is not in force: nothing forwards

    # the answer's kinds hold for what is forwarded: no fact replaces the Redis decision
    rc, ans = jgm_json_in(
        "recall", "do background jobs run on Redis with RQ workers?", "--kind", "fact", cwd=kb_repo.path
    )
    assert ans["results"] == []
    for q in ("what does the job queue run on?", "is the nginx timeout 30 seconds?", "Bootstrap or Tailwind?"):
        rc, task = jgm_json_in("recall-task", "--goal", q, cwd=kb_repo.path)
        assert not NEVER & set(_ids(task["results"])), (q, task["results"])
