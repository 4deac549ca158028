"""`jgm calibrate`: measure the no-match floor on questions the knowledge base cannot answer.

The floor is the highest cosine any probe reaches against records recallable by default, rounded up to
two decimals, stored with the vector identity it was measured for.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import yaml

from .floors import round_up, save_floor
from .ranking import DEFAULT_STATUSES
from .service import Recaller


def load_probes(path: Path) -> tuple[list[str], str]:
    raw = Path(path).read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    text = raw.decode("utf-8")
    if Path(path).suffix in (".yaml", ".yml"):
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as e:
            raise ValueError(f"{path}: invalid YAML: {e}") from e
        probes = data.get("probes") if isinstance(data, dict) else data
        if not isinstance(probes, list) or not all(isinstance(p, str) for p in probes):
            raise ValueError(f"{path}: expected `probes: [question, ...]`")
    else:
        probes = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]
    if len(probes) < 5:
        raise ValueError(f"{path}: {len(probes)} probes; give at least 5 questions the knowledge base cannot answer")
    return probes, digest


def measure(recaller: Recaller, probes: list[str]) -> list[tuple[str, float, str | None]]:
    """[(probe, best cosine, record id)] against the default-recallable records."""
    index = recaller.index()
    out = []
    for p in probes:
        hits = recaller.hits(index, p, list(DEFAULT_STATUSES), None, 50, use_lexical=False)
        best = max(hits, key=lambda h: h.cos, default=None)
        out.append((p, best.cos if best else 0.0, best.record_id if best else None))
    return out


def calibrate(recaller: Recaller, path: Path, save: bool = True) -> dict:
    probes, digest = load_probes(path)
    if not recaller.index().catalog.chunk_ids():
        raise ValueError("the index is empty: run `jgm seed` before calibrating")
    rows = measure(recaller, probes)
    top = max(rows, key=lambda r: r[1])
    floor = round_up(max(top[1], 0.0) + 1e-9)
    details = {"probes_file": str(path), "probes_sha256": digest, "probe_count": len(probes), "max_cos": round(top[1], 4),
               "max_probe": top[0], "max_record": top[2], "workspace": recaller.workspace.id}
    if save:
        save_floor(recaller.identity, floor, details, recaller.root)
    return {"floor": floor, "saved": save, **details,
            "probes": [{"probe": p, "max_cos": round(c, 4), "record": r} for p, c, r in rows]}
