"""Build an eval corpus from a checkout of github.com/rust-lang/rfcs.

    python bench/corpora/build_rfcs.py CHECKOUT OUT_REPO

Takes RFCs 2000-2999 from text/ as `decision` records. The repository holds merged RFCs only and has
no status field, so every record is `accepted`; a "Superseded by" line in the header list, where an RFC
has one, becomes a `superseded_by` link (and makes the record superseded through the lifecycle).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import cut, run, write_corpus

RANGE = range(2000, 3000)


def split(text: str) -> tuple[str, str, str]:
    """(title, header list, body): the header is the leading `- Key: value` list."""
    lines = text.splitlines()
    head, i = [], 0
    while i < len(lines) and (lines[i].startswith("- ") or not lines[i].strip() or lines[i].startswith("  ")):
        head.append(lines[i])
        i += 1
    body = "\n".join(lines[i:])
    m = re.search(r"Feature Name:\s*`?([^`\n]*)`?", "\n".join(head))
    return (m.group(1).strip() if m else ""), "\n".join(head), body


def main(checkout: str, out_repo: str) -> None:
    files = {}
    for f in sorted(Path(checkout, "text").glob("*.md")):
        m = re.match(r"(\d+)-(.*)\.md$", f.name)
        if m and int(m.group(1)) in RANGE:
            files[int(m.group(1))] = (f, m.group(2))
    records = []
    for n, (f, slug) in sorted(files.items()):
        feature, head, body = split(f.read_text("utf-8", errors="replace"))
        title = slug.replace("-", " ").replace("_", " ")
        sup = [f"rfc-{int(x)}" for x in re.findall(r"[Ss]uperseded[- ][Bb]y:?.*?#?(\d{3,4})", head) if int(x) in files]
        meta = {
            "id": f"rfc-{n}",
            "kind": "decision",
            "status": "accepted",
            "title": f"RFC {n}: {title}",
            "superseded_by": sup,
            "tags": [feature] if feature and feature.lower() not in ("n/a", "none") else [],
            "source": f"https://rust-lang.github.io/rfcs/{f.stem}.html",
        }
        records.append((f"knowledge/rfcs/rfc-{n}.md", meta, cut(body)))
    write_corpus(out_repo, records, "Rust RFCs")


if __name__ == "__main__":
    run(main, __doc__)
