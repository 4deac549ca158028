"""A record's relations as a small inline SVG graph, laid out on the server (no script, no library).

Pure: a relations answer in, SVG markup out. The record sits in the middle; records it points at
(`supersedes`, `amends`, any other outgoing list) on the left, records pointing at it (`superseded_by`,
`amended_by`, any `*_by` list) on the right. Every node is an SVG link, so Tab reaches it and Enter
follows it. Relation kinds are read from the answer, so a new relation appears without a change here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from markupsafe import Markup, escape

NODE_W, NODE_H, GAP, COL_X = 190, 44, 14, (6, 298, 590)
WIDTH = COL_X[2] + NODE_W + 10


def relation_lists(rel: dict[str, Any]) -> dict[str, list[dict]]:
    """Every key of the answer holding a list of linked records ({id, ...}), by relation name."""
    return {
        k: v for k, v in rel.items() if isinstance(v, list) and v and all(isinstance(e, dict) and "id" in e for e in v)
    }


def _label(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _node(x: int, y: int, e: dict, href: str | None, center: bool = False) -> str:
    status = e.get("status") or ("missing" if e.get("missing") else "")
    cls = f"gnode s-{escape(status)}" + (" center" if center else "") + (" missing" if e.get("missing") else "")
    title = e.get("title") or ("not in this workspace" if e.get("missing") else "")
    inner = (
        f'<rect x="{x}" y="{y}" width="{NODE_W}" height="{NODE_H}" rx="6" class="{cls}"/>'
        f'<text x="{x + 8}" y="{y + 17}" class="gid">{escape(_label(e["id"], 26))}</text>'
        f'<text x="{x + 8}" y="{y + 34}" class="gsub">{escape(_label(f"{status} · {title}", 29))}</text>'
        f"<title>{escape(e['id'])}: {escape(title)} ({escape(status)})</title>"
    )
    if href and not e.get("missing"):
        return f'<a href="{escape(href)}" class="glink">{inner}</a>'
    return f"<g>{inner}</g>"


def svg(rel: dict[str, Any], href: Callable[[str], str]) -> Markup:
    """The graph, or an empty Markup when the record has no relations."""
    lists = relation_lists(rel)
    # `current` and `read_instead` name the records at the end of the chain, not links of this record
    left = [
        (k, e) for k, v in lists.items() if not k.endswith("_by") and k not in ("current", "read_instead") for e in v
    ]
    right = [(k, e) for k, v in lists.items() if k.endswith("_by") for e in v]
    if not left and not right:
        return Markup("")
    rows = max(len(left), len(right), 1)
    height = rows * (NODE_H + GAP) + GAP
    cy = (height - NODE_H) // 2
    parts = [
        f'<svg class="graph" role="img" aria-label="relations of {escape(rel.get("id", ""))}" '
        f'viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}" xmlns="http://www.w3.org/2000/svg">',
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
        'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="garrow"/></marker></defs>',
    ]
    center = {"id": rel.get("id", ""), "title": rel.get("title"), "status": rel.get("status")}
    for side, items in (("left", left), ("right", right)):
        top = (height - len(items) * (NODE_H + GAP) + GAP) // 2
        for i, (kind, e) in enumerate(items):
            y = top + i * (NODE_H + GAP)
            x = COL_X[0] if side == "left" else COL_X[2]
            # arrows point from the newer record to the older one it supersedes/amends
            x1, x2 = (COL_X[1], x + NODE_W) if side == "left" else (x, COL_X[1] + NODE_W)
            y1, y2 = (cy + NODE_H // 2, y + NODE_H // 2) if side == "left" else (y + NODE_H // 2, cy + NODE_H // 2)
            dash = "" if e.get("retires", True) else ' stroke-dasharray="5 4"'
            parts.append(
                f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" class="gedge" marker-end="url(#arrow)"{dash}/>'
            )
            mx, my = (x1 + x2) // 2, (y1 + y2) // 2 - 4
            parts.append(
                f'<text x="{mx}" y="{my}" class="glabel" text-anchor="middle">{escape(kind.replace("_", " "))}</text>'
            )
            parts.append(_node(x, y, e, href(e["id"])))
    parts.append(_node(COL_X[1], cy, center, None, center=True))
    parts.append("</svg>")
    return Markup("".join(parts))
