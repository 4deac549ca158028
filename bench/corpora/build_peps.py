"""Build an eval corpus from a checkout of github.com/python/peps.

    python bench/corpora/build_peps.py CHECKOUT OUT_REPO

Takes PEPs 500-699 plus every PEP on a Superseded-By/Replaces link (either end), as `adr` records.
Status mapping: Accepted/Final/Active -> accepted, Draft/Provisional -> proposed, Rejected -> rejected,
Withdrawn/Deferred -> deprecated, Superseded -> superseded (with `superseded_by` from the header).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import cut, rst_to_markdown, run, write_corpus

STATUS = {
    "accepted": "accepted",
    "final": "accepted",
    "active": "accepted",
    "draft": "proposed",
    "provisional": "proposed",
    "rejected": "rejected",
    "withdrawn": "deprecated",
    "deferred": "deprecated",
    "superseded": "superseded",
}
RANGE = range(500, 700)


def parse(path: Path) -> tuple[dict, str]:
    text = path.read_text("utf-8")
    head, _, body = text.partition("\n\n")
    fields: dict[str, str] = {}
    key = None
    for line in head.splitlines():
        m = re.match(r"^([A-Za-z-]+):\s*(.*)$", line)
        if m:
            key = m.group(1).lower()
            fields[key] = m.group(2).strip()
        elif key and line.startswith((" ", "\t")):
            fields[key] += " " + line.strip()
    return fields, body


def pep_id(n: int) -> str:
    return f"pep-{n:04d}"


def main(checkout: str, out_repo: str) -> None:
    peps = {}
    for f in sorted(Path(checkout, "peps").glob("pep-*.rst")):
        fields, body = parse(f)
        if "pep" in fields and fields.get("status", "").lower() in STATUS:
            peps[int(fields["pep"])] = (fields, body)
    linked = set()
    for n, (fields, _) in peps.items():
        for key in ("superseded-by", "replaces"):
            nums = [int(x) for x in re.findall(r"\d+", fields.get(key, ""))]
            if nums:
                linked.update([n, *nums])
    chosen = sorted(n for n in peps if n in RANGE or n in linked)
    records = []
    for n in chosen:
        fields, body = peps[n]
        sup = [pep_id(int(x)) for x in re.findall(r"\d+", fields.get("superseded-by", "")) if int(x) in peps]
        rep = [pep_id(int(x)) for x in re.findall(r"\d+", fields.get("replaces", "")) if int(x) in peps]
        meta = {
            "id": pep_id(n),
            "kind": "adr",
            "status": STATUS[fields["status"].lower()],
            "title": f"PEP {n}: {fields.get('title', '')}",
            "superseded_by": sup,
            "supersedes": rep,
            "tags": [fields.get("type", "").lower()] if fields.get("type") else [],
            "source": f"https://peps.python.org/pep-{n:04d}/",
        }
        records.append((f"knowledge/peps/{pep_id(n)}.md", meta, cut(rst_to_markdown(body))))
    write_corpus(out_repo, records, "PEPs")


if __name__ == "__main__":
    run(main, __doc__)
