"""Shared helpers for the eval-corpus builders: write native records into a fresh git repo.

The builders convert a public checkout (given by path) into our record format at build time; none of
the third-party text is committed here. Bodies are cut at a paragraph boundary (`MAX_BODY` chars) so
each corpus stays at a few hundred records and a few minutes of embedding on a small machine.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

MAX_BODY = 2500
_RST_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+])\1{2,}\s*$")


def rst_to_markdown(text: str) -> str:
    """Turn RST section titles (a line underlined with =, -, ~ ...) into Markdown headings; the rest
    stays as it is (the chunker only needs headings and blank-line paragraphs)."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if _RST_UNDERLINE.match(line) and i + 2 < len(lines) and _RST_UNDERLINE.match(lines[i + 2]):
            i += 1  # overline: the title follows, then its underline
            continue
        if line.strip() and _RST_UNDERLINE.match(nxt) and len(nxt.strip()) >= len(line.strip()) - 1:
            out.append(f"## {line.strip()}")
            i += 2
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


def cut(body: str, limit: int = MAX_BODY) -> str:
    """The body up to `limit` characters, ending at a paragraph boundary."""
    body = body.strip()
    if len(body) <= limit:
        return body
    head = body[:limit]
    end = head.rfind("\n\n")
    return head[: end if end > limit // 2 else limit].rstrip()


def write_record(root: Path, rel: str, meta: dict, body: str) -> None:
    """One record file: YAML frontmatter (empty fields dropped) and the body."""
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    front = yaml.safe_dump(
        {k: v for k, v in meta.items() if v not in (None, [], "")}, sort_keys=False, allow_unicode=True, width=1000
    )
    p.write_text(f"---\n{front}---\n{body}\n", "utf-8")


def init_repo(out: Path) -> Path:
    if out.exists() and any(out.iterdir()):
        raise SystemExit(f"{out}: exists and is not empty; give a new directory")
    out.mkdir(parents=True, exist_ok=True)
    (out / "jgm.toml").write_text('roots = ["knowledge"]\n', "utf-8")
    return out


def commit(out: Path, message: str) -> None:
    env = {
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@example.invalid",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@example.invalid",
        "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
        "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
        "PATH": "/usr/bin:/bin:/usr/local/bin",
    }
    for cmd in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"], ["git", "commit", "-q", "-m", message]):
        subprocess.run(cmd, cwd=out, check=True, env=env, timeout=120)


def write_corpus(out_repo: str, records: list[tuple[str, dict, str]], name: str) -> None:
    """Write (path, frontmatter, body) records into a new git repo at `out_repo` and commit them."""
    out = init_repo(Path(out_repo))
    for rel, meta, body in records:
        write_record(out, rel, meta, body)
    commit(out, f"{name} corpus: {len(records)} records")
    print(f"{len(records)} records in {out}")


def run(main, doc: str) -> None:
    """The builders' command line: CHECKOUT OUT_REPO."""
    if len(sys.argv) != 3:
        raise SystemExit(doc)
    main(sys.argv[1], sys.argv[2])
