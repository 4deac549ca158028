"""Build an eval corpus from a checkout of github.com/kubernetes/enhancements.

    python bench/corpora/build_keps.py CHECKOUT OUT_REPO

Takes the KEPs of sig-node and sig-storage plus every KEP on a replaces/superseded-by link (either end),
as `adr` records from kep.yaml (title, status, links) and README.md (the body, from its Summary on).
Status mapping: implemented/implementable -> accepted, provisional -> proposed, rejected/withdrawn ->
rejected, deferred -> deprecated, replaced/superseded -> superseded.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).parent))
from common import cut, run, write_corpus

STATUS = {
    "implemented": "accepted",
    "implementable": "accepted",
    "provisional": "proposed",
    "rejected": "rejected",
    "withdrawn": "rejected",
    "deferred": "deprecated",
    "replaced": "superseded",
    "superseded": "superseded",
}
SIGS = ("sig-node", "sig-storage")


def kep_numbers(value) -> list[int]:
    """KEP numbers named by a replaces/superseded-by entry (paths like keps/sig-x/1234-name)."""
    items = value if isinstance(value, list) else [value] if value else []
    out = []
    for item in items:
        m = re.search(r"/(\d+)-[^/]*/?$", str(item).rstrip("/")) or re.fullmatch(r"\s*(\d+)\s*", str(item))
        if m:
            out.append(int(m.group(1)))
    return out


def body_of(readme: Path) -> str:
    text = readme.read_text("utf-8", errors="replace")
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    m = re.search(r"^##\s+Summary\s*$", text, re.M)
    return text[m.start() :] if m else text


def main(checkout: str, out_repo: str) -> None:
    keps = {}
    for y in sorted(Path(checkout, "keps").glob("sig-*/*/kep.yaml")):
        try:
            data = yaml.safe_load(y.read_text("utf-8")) or {}
            n = int(data.get("kep-number"))
        except (yaml.YAMLError, TypeError, ValueError):
            continue
        status = str(data.get("status", "")).split("#")[0].strip().lower()
        if status in STATUS and (y.parent / "README.md").is_file():
            keps[n] = (y.parent, data, STATUS[status])
    linked = set()
    for n, (_, data, _) in keps.items():
        for key in ("replaces", "superseded-by"):
            nums = [x for x in kep_numbers(data.get(key)) if x in keps]
            if nums:
                linked.update([n, *nums])
    chosen = sorted(n for n, (d, _, _) in keps.items() if d.parent.name in SIGS or n in linked)
    records = []
    for n in chosen:
        folder, data, status = keps[n]
        meta = {
            "id": f"kep-{n}",
            "kind": "adr",
            "status": status,
            "title": f"KEP-{n}: {data.get('title', '')}",
            "supersedes": [f"kep-{x}" for x in kep_numbers(data.get("replaces")) if x in keps],
            "superseded_by": [f"kep-{x}" for x in kep_numbers(data.get("superseded-by")) if x in keps],
            "tags": [folder.parent.name],
            "source": f"keps/{folder.parent.name}/{folder.name}",
        }
        records.append((f"knowledge/{folder.parent.name}/kep-{n}.md", meta, cut(body_of(folder / "README.md"))))
    write_corpus(out_repo, records, "KEPs")


if __name__ == "__main__":
    run(main, __doc__)
