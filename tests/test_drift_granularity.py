"""Drift at the granularity that was cited (issue 37, item 1), on real commits in a temp repo: a one-line change
inside a cited function drifts it; a change elsewhere in the file leaves a symbol and a range fresh (the range
followed through the shift); a function moved to another file unchanged is not drifted and says where it went;
a whitespace- or import-only change leaves a whole-file citation fresh while a rewrite drifts it; a URL and a
report path are external; a path that never existed is no drift but a `jgm check` warning with its line.
`jgm drift --json`, recall's `evidence` and the web drift page agree on each record."""

from __future__ import annotations

import re

import pytest
from cli_helpers import jgm_in, jgm_json_in

PAYMENTS = '''\
import os


def total(items):
    """Sum the items in cents."""
    cents = 0
    for item in items:
        cents += item.price
    return cents


def refund(order):
    """Refund an order in full."""
    amount = order.paid
    order.paid = 0
    return amount


def audit(order):
    """The audit line of an order."""
    return f"{order.id}:{order.paid}"
'''
TAX = "import math\n\n\ndef rate(region):\n    if region == 'eu':\n        return 0.2\n    return 0.1\n"
SHIPPING = "".join(f"def zone_{i}(parcel):\n    return parcel.weight * {i}\n\n\n" for i in range(6))

RECORDS = {
    "dec-total": ("Totals are summed in cents", "src/shop/payments.py::total"),
    "dec-refund": ("Refunds return the whole paid amount", "src/shop/payments.py::refund"),
    "dec-refund-lines": ("Refund zeroes the paid amount", "src/shop/payments.py:13-17"),
    "dec-audit": ("The audit line joins id and paid amount", "src/shop/payments.py::audit"),
    "dec-tax": ("Tax rates are per region", "src/shop/tax.py"),
    "dec-shipping": ("Shipping cost grows with the zone", "src/shop/shipping.py"),
    "dec-load": ("Checkout holds 500 requests per second", "[https://ci.example.com/run/7, reports/load-7.html]"),
    "dec-ghost": ("Payments retry three times", "src/shop/retry.py"),
}
WANT = {
    "dec-total": "drifted",
    "dec-refund": "fresh",
    "dec-refund-lines": "fresh",
    "dec-audit": "fresh",
    "dec-tax": "fresh",
    "dec-shipping": "drifted",
    "dec-load": "external",
}


def scenario(repo) -> None:
    repo.write("src/shop/payments.py", PAYMENTS)
    repo.write("src/shop/tax.py", TAX)
    repo.write("src/shop/shipping.py", SHIPPING)
    for rid, (title, source) in RECORDS.items():
        repo.record(rid, title=title, source=source, body=f"{title}. The code says so.")
    repo.commit("start")
    # one line inside total() changes, and a helper lands above everything (every later line shifts by 4)
    changed = PAYMENTS.replace("cents += item.price\n", "cents += item.price * item.quantity\n")
    changed = changed.replace("import os\n", "import os\n\n\ndef _round(x):\n    return int(x)\n")
    repo.write("src/shop/payments.py", changed)
    repo.commit("totals count quantities")
    # audit() moves to its own module, unchanged
    head, _, moved = changed.partition("\n\ndef audit(order):")
    repo.write("src/shop/payments.py", head + "\n")
    repo.write("src/shop/audit.py", "def audit(order):" + moved)
    repo.commit("audit lives in its own module")
    # tax.py: re-indented, blank lines and an import only
    repo.write(
        "src/shop/tax.py",
        "import math\nimport os\n\ndef rate(region):\n  if region == 'eu':\n      return 0.2\n\n  return 0.1\n",
    )
    repo.commit("tidy tax")
    repo.write(
        "src/shop/shipping.py", "".join(f"def zone_{i}(parcel):\n    return parcel.volume + {i}\n\n" for i in range(6))
    )
    repo.commit("shipping by volume")


def _drift(repo) -> dict:
    code, rep = jgm_json_in("drift", "--repo", repo.path, "--json")
    assert code == 0, rep
    return {r["id"]: r for r in rep["records"]}


def test_drift_follows_what_each_record_cites_and_drift_recall_and_check_agree(repo):
    scenario(repo)
    code, _ = jgm_json_in("seed", "--repo", repo.path, "--json")
    assert code == 0
    got = _drift(repo)
    assert {rid: r["state"] for rid, r in got.items()} == WANT  # dec-ghost: no drift row at all
    cites = {rid: {v["ref"]: v for v in r["citations"]} for rid, r in got.items()}
    assert cites["dec-total"]["src/shop/payments.py::total"]["state"] == "drifted"
    assert cites["dec-refund"]["src/shop/payments.py::refund"]["state"] == "fresh"
    # the range is followed through the 4 lines inserted above it
    assert cites["dec-refund-lines"]["src/shop/payments.py:13-17"] == {
        "ref": "src/shop/payments.py:13-17",
        "kind": "range",
        "state": "fresh",
        "at": "src/shop/payments.py:17-21",
    }
    assert cites["dec-audit"]["src/shop/payments.py::audit"]["state"] == "moved"
    assert cites["dec-audit"]["src/shop/payments.py::audit"]["at"] == "src/shop/audit.py::audit"
    assert cites["dec-tax"]["src/shop/tax.py"]["lines"] == 0
    assert got["dec-load"]["external"] == ["https://ci.example.com/run/7", "reports/load-7.html"]
    assert not got["dec-load"].get("missing") and "reports/load-7.html" not in got["dec-load"]["cited"]
    text = jgm_in("drift", "--repo", repo.path).stdout  # people read the same
    assert "2 drifted, 0 missing, 4 fresh, 1 external" in text
    assert "src/shop/payments.py::audit moved → src/shop/audit.py::audit" in text
    assert "external: https://ci.example.com/run/7, reports/load-7.html" in text

    # recall says the same of every record, and nothing of the ghost's path
    for rid, (title, _source) in RECORDS.items():
        code, ans = jgm_json_in("recall", title, "--repo", repo.path, "--json", "-k", "3")
        hit = next((r for r in ans["results"] if r["id"] == rid), None)
        assert hit is not None, (rid, [r["id"] for r in ans["results"]])
        assert hit["evidence"]["state"] == WANT.get(rid, "uncited"), rid
        if rid in got:
            assert hit["evidence"]["citations"] == got[rid]["citations"]

    # the path that never existed is `jgm check`'s: a warning naming the record's file, line and fix
    code, chk = jgm_json_in("check", "--repo", repo.path, "--json")
    assert code == 0  # a warning, not an error
    ghost = [w for w in chk["warnings"] if w.get("code") == "check/unresolved-citation"]
    assert [(w["path"], w["line"], w["record_id"]) for w in ghost] == [
        ("knowledge/dec-ghost.md", 6, "dec-ghost")
    ]  # its `source:` line
    assert "src/shop/retry.py" in ghost[0]["message"] and "git ls-files" in ghost[0]["fix"]


def test_reviewing_the_record_or_deleting_the_cited_file_moves_the_states(repo):
    """Re-committing a drifted record makes it fresh (its baseline moves); deleting a file that existed at
    the baseline makes a whole-file citation missing; a symbol deleted everywhere is missing too."""
    scenario(repo)
    repo.record("dec-total", title=RECORDS["dec-total"][0], source=RECORDS["dec-total"][1], reviewed="today")
    repo.git("rm", "-q", "src/shop/shipping.py")
    text = (repo.path / "src/shop/payments.py").read_text()
    repo.write("src/shop/payments.py", text.split("\n\ndef refund(order):")[0] + "\n")
    repo.commit("review totals, drop shipping and refunds")
    jgm_json_in("seed", "--repo", repo.path, "--json")
    got = _drift(repo)
    assert got["dec-total"]["state"] == "fresh"
    assert got["dec-shipping"]["state"] == "missing" and got["dec-shipping"]["missing"] == ["src/shop/shipping.py"]
    assert got["dec-refund"]["state"] == "missing" and got["dec-refund"]["missing"] == ["src/shop/payments.py::refund"]


@pytest.mark.e2e
def test_the_web_drift_page_shows_the_same_states(repo):
    from fastapi.testclient import TestClient
    from web_helpers import http_login

    from jupiter_git_memory.git.workspace import find_workspace
    from jupiter_git_memory.surfaces.api.app import create_app

    scenario(repo)
    jgm_json_in("seed", "--repo", repo.path, "--json")
    want = _drift(repo)
    app = create_app([repo.path], warm=False)
    ws = find_workspace(repo.path).id
    with TestClient(app, base_url="http://127.0.0.1", follow_redirects=False) as c:
        http_login(c, app.state.jgm.tokens.store_root.joinpath("api-token").read_text().strip())
        html = c.get(f"/ui/w/{ws}/drift?state=all").text
    rows = dict(re.findall(r'<tr class="row" data-id="([^"]+)" data-state="([^"]+)"', html))
    assert rows == {rid: r["state"] for rid, r in want.items()}
    shown = set(re.findall(r'data-ref="([^"]+)" data-state="([^"]+)"', html))
    assert ("src/shop/payments.py::audit", "moved") in shown and ("reports/load-7.html", "external") in shown
    assert "→ src/shop/audit.py::audit" in html


def test_a_nygard_adr_folder_cites_nothing_of_itself(repo):
    """An ADR adapter keeps the file as the record's `source`: that is where the record is written, not
    evidence, so no ADR gets a drift row for its own file (before, each was listed `fresh`)."""
    for n, title in enumerate(["Use Postgres", "Use Redis for sessions", "Deploy on Fridays"], start=1):
        slug = title.lower().replace(" ", "-")
        repo.write(
            f"doc/adr/{n:04d}-{slug}.md",
            f"# {n}. {title}\n\nDate: 2026-01-0{n}\n\n## Status\n\nAccepted\n\n## Context\n\nWe need it.\n\n"
            f"## Decision\n\n{title}.\n\n## Consequences\n\nWe live with it.\n",
        )
    repo.commit("adrs")
    code, _ = jgm_json_in("seed", "--repo", repo.path, "--json")
    assert code == 0
    code, ans = jgm_json_in("recall", "use postgres", "--repo", repo.path, "--json")
    hit = next(r for r in ans["results"] if r["id"] == "ADR-0001")
    assert hit["citations"] == [] and hit["evidence"]["state"] == "uncited"
    assert _drift(repo) == {}
