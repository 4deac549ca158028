"""Measure a workspace's no-match floor on questions its knowledge base cannot answer.

The floor is median + 2·MAD of the probes' best cosines against the records recallable by default, rounded
up to two decimals. Why not the maximum: one near-domain probe sets the max, and on a corpus we did not
write that cost three good answers for one bad one (issue 13); the robust statistic moves with the bulk of
the probes, and the corroboration band above the floor (ranking.decide) handles the near-domain tail.

`jgm seed` calibrates automatically with the shipped probes (`probes/default.yaml`) when a workspace has
no floor for its model identity yet or its corpus changed materially since; `jgm calibrate PROBES` stays
for teams with their own probes. Tiny knowledge bases keep the shipped default: a floor measured against a
handful of records is noise.
"""

from __future__ import annotations

import contextlib
import hashlib
import statistics
from collections import Counter
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import yaml

from ..config import Settings
from ..git.workspace import Workspace
from ..index.failures import index_failures
from ..index.handle import Index
from ..records.language import languages
from ..seed.seeder import Seeder
from . import cross_language, translation
from .floors import (
    MATERIAL_CHANGE,
    MIN_RECORDS,
    FloorInfo,
    corpus_change,
    corpus_sketch,
    floor_for,
    floor_identity,
    get_floor,
    in_force,
    round_up,
    save_floor,
)
from .freshness import ViewMap, Views
from .lexical_gate import GATED_LANGUAGES, probe_gate
from .ranking import DEFAULT_STATUSES

PROBES_DIR = Path(__file__).parent / "probes"
SHIPPED_PROBES = PROBES_DIR / "default.yaml"
# The shipped probes per question language (records/language.py): a floor is measured for each, so a
# Chinese question is held to a floor Chinese questions set (dec-floor-per-language).
PROBES_BY_LANGUAGE = {"en": ("default.yaml",), "zh": ("zh-Hant.yaml", "zh-Hans.yaml")}
MAD_K = 2.0


class Reader(Protocol):
    """What a calibration reads through: one workspace's view, its model and its floor. A `Recaller` is one
    (`jgm calibrate`); after a seed, a `Views` on the seeder's model is (no second model, no Recaller in a read)."""

    workspace: Workspace
    store_root: Path | None
    embedder: Any

    @property
    def floor_identity(self) -> dict[str, Any]: ...

    def index(self) -> Index: ...

    def view_map(self, index: Index) -> ViewMap: ...

    def floor_info(self, query: str | None = None, records: int | None = None) -> FloorInfo: ...


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


COS_DECIMALS = 4  # cosines are compared at this precision: float noise below it must not move the floor
_BATCH = 2000


def measure(
    recaller: Reader, probes: list[str], per_record: list[dict[str, float]] | None = None
) -> list[tuple[str, float, str | None]]:
    """[(probe, best cosine, record id)] against every chunk of the default-recallable records, computed
    exactly (not through the approximate vector index, whose graph differs between two identical rebuilds
    and once moved the floor from 0.38 to 0.39), each cosine rounded to COS_DECIMALS; ties go to the
    smallest chunk id. So the same corpus always gives the same floor. With `per_record`, each probe's best
    cosine per record is appended to it (the lexical gate's evidence, recall/lexical_gate.py)."""
    index = recaller.index()
    allowed = recaller.view_map(index)
    ids = sorted(cid for cid, (_rid, _kind, eff) in allowed.items() if eff in DEFAULT_STATUSES)
    vecs: dict[str, np.ndarray] = {}
    for i in range(0, len(ids), _BATCH):
        vecs.update(index.vectors.vectors(ids[i : i + _BATCH]))
    ids = [c for c in ids if c in vecs]
    matrix = np.stack([vecs[c] for c in ids]) if ids else np.zeros((0, 1), dtype=np.float32)
    out = []
    for p in probes:
        if not ids:
            out.append((p, 0.0, None))
            continue
        raw = matrix @ recaller.embedder.embed_query(p).astype(np.float32)
        # on the common scale recall decides on: the spec's own formula, applied to the whole row at once
        cos = np.round(recaller.embedder.spec.similarity(raw), COS_DECIMALS)
        best = int(np.argmax(cos))  # the first of equal maxima: ids are sorted
        out.append((p, float(cos[best]), allowed[ids[best]][0]))
        if per_record is not None:
            records: dict[str, float] = {}
            for cid, c in zip(ids, cos.tolist(), strict=True):
                rid = allowed[cid][0]
                records[rid] = max(c, records.get(rid, c))
            per_record.append(records)
    return out


def robust_floor(cosines: list[float], k: float = MAD_K) -> tuple[float, float, float]:
    """(floor, median, MAD): median + k·MAD, rounded up to two decimals. The statistic is taken at
    COS_DECIMALS + 2 decimals first, so float noise in its sums cannot cross a rounding boundary."""
    med = statistics.median(cosines)
    mad = statistics.median([abs(c - med) for c in cosines])
    return round_up(round(max(med + k * mad, 0.0), COS_DECIMALS + 2) + 1e-9), med, mad


def shipped_probes() -> dict[str, tuple[list[str], str, str]]:
    """language -> (probes, sha256 of their files, file names) for every shipped probe language."""
    out = {}
    for lang, names in PROBES_BY_LANGUAGE.items():
        paths = [PROBES_DIR / n for n in names if (PROBES_DIR / n).is_file()]
        if not paths:
            continue
        loaded = [load_probes(p) for p in paths]
        digest = hashlib.sha256("".join(d for _, d in loaded).encode()).hexdigest()
        out[lang] = ([q for qs, _ in loaded for q in qs], digest, "+".join(str(p) for p in paths))
    return out


def _language_floor(
    lang: str,
    rows: list[tuple[str, float, str | None]],
    digest: str,
    files: str,
    catalog: Any,
    per_record: list,
    written: dict[str, str],
) -> dict:
    floor, med, mad = robust_floor([c for _, c, _ in rows])
    top = max(rows, key=lambda r: r[1])
    probes = [p for p, _, _ in rows]
    gate = probe_gate(catalog, probes, per_record, med) if lang in GATED_LANGUAGES else None
    target = cross_language.PAIRS.get(lang)
    langs = Counter(written.values())
    across = target is not None and cross_language.bilingual(langs)
    dictionary = across and translation.available()
    return {
        "floor": floor,
        **({"lexical_gate": gate} if gate else {}),
        # stored as null where it does not apply: measured, so an upgrade does not measure it again
        "cross_gate": cross_language.probe_gate(catalog, probes, lang, langs[target]) if dictionary else None,
        "cross_floor": _pair_floor(per_record, written, target) if across and target else None,
        "median_cos": round(med, 4),
        "mad_cos": round(mad, 4),
        "max_cos": round(top[1], 4),
        "probe_count": len(rows),
        "probes_sha256": digest,
        "probes_file": files,
    }


def _pair_floor(per_record: list[dict[str, float]], written: dict[str, str], target: str) -> dict | None:
    """The floor over the records written in `target` alone, by the same statistic over the same probes'
    best cosines among them (dec-floor-per-language-pair): a question's cosines against records in the
    other language sit lower, answer or not, so its own floor would cut every answer across."""
    bests = [max(got) for seen in per_record if (got := [c for r, c in seen.items() if written.get(r) == target])]
    if not bests:
        return None
    floor, med, mad = robust_floor(bests)
    records = sum(1 for v in written.values() if v == target)
    return {"floor": floor, "median_cos": round(med, 4), "mad_cos": round(mad, 4), "records": records}


def probes_language(probes: list[str]) -> str:
    """The language most of a probe file's questions are written in."""
    counts = languages(probes)
    return next(iter(counts), "en")


def calibrate(
    recaller: Reader, path: Path | None, save: bool = True, source: str = "probes", per_language: bool = False
) -> dict:
    """Measure the floor with the probes at `path` (their language's floor; the other languages' floors are
    kept), or with `per_language` every shipped probe language's (the seed's automatic calibration)."""
    index = recaller.index()
    chunk_ids = index.catalog.chunk_ids()
    if not chunk_ids:
        raise ValueError("the index is empty: run `jgm seed` before calibrating")
    if per_language:
        sets = shipped_probes()
    else:
        assert path is not None
        probes, digest = load_probes(path)
        sets = {probes_language(probes): (probes, digest, str(path))}
    old = get_floor(recaller.workspace.id, recaller.floor_identity, recaller.store_root) or {}
    by_language = dict(old.get("languages") or {}) if not per_language else {}
    measured = {}
    written = cross_language.record_languages(index.catalog)  # for the cross gate and the pair floors
    for lang, (qs, digest, files) in sets.items():
        per_record: list[dict[str, float]] = []
        measured[lang] = measure(recaller, qs, per_record)
        by_language[lang] = _language_floor(lang, measured[lang], digest, files, index.catalog, per_record, written)
    main = "en" if "en" in measured else next(iter(measured))
    rows = measured[main]
    probes, digest = [p for p, _, _ in rows], by_language[main]["probes_sha256"]
    top = max(rows, key=lambda r: r[1])
    floor, med, mad = robust_floor([c for _, c, _ in rows])
    details = {
        "source": source,
        "statistic": f"median + {MAD_K:g}·MAD of the probes' best cosines",
        "probes_file": by_language[main]["probes_file"],
        "probes_sha256": digest,
        "languages": by_language,
        "probe_count": len(probes),
        "median_cos": round(med, 4),
        "mad_cos": round(mad, 4),
        "max_cos": round(top[1], 4),
        "max_probe": top[0],
        "max_record": top[2],
        "corpus": {
            "records": len(index.catalog.records()),
            **corpus_sketch(chunk_ids),
            "commit": index.catalog.get_meta("last_seeded_commit") or None,
        },
    }
    if save:
        save_floor(recaller.workspace.id, recaller.floor_identity, floor, details, recaller.store_root)
    details["corpus"] = {k: v for k, v in details["corpus"].items() if k != "sketch"}
    return {
        "floor": floor,
        "saved": save,
        "workspace": recaller.workspace.id,
        **details,
        "probes": [{"probe": p, "max_cos": round(c, 4), "record": r} for rs in measured.values() for p, c, r in rs],
    }


def auto_calibrate(recaller: Reader) -> dict:
    """After a seed: calibrate with the shipped probes when this workspace has no floor for its identity
    or its corpus changed materially since. Returns what was done and why (never raises for a skip)."""
    index = recaller.index()
    chunk_ids = index.catalog.chunk_ids()
    n_records = index.catalog.count_in(DEFAULT_STATUSES)
    entry = get_floor(recaller.workspace.id, recaller.floor_identity, recaller.store_root)
    if entry and entry.get("source") not in (None, "auto"):
        return {
            "action": "kept",
            "reason": f"floor set by `jgm calibrate` ({entry.get('probes_file')})",
            "records": n_records,
        }
    if n_records < MIN_RECORDS:
        shipped = recaller.floor_info()  # the model's shipped calibration, stated as such
        return {
            "action": "shipped",
            "records": n_records,
            "floor": shipped.value,
            "reason": (
                f"{n_records} recallable records (< {MIN_RECORDS}, too few to measure a floor on): "
                f"{recaller.embedder.spec.name}'s shipped calibration; run `jgm calibrate PROBES` to measure one"
            ),
        }
    change = corpus_change((entry or {}).get("corpus"), chunk_ids)
    ungated = entry is not None and any(
        (lang in GATED_LANGUAGES and "lexical_gate" not in v)
        or (lang in cross_language.PAIRS and ("cross_gate" not in v or "cross_floor" not in v))
        for lang, v in (entry.get("languages") or {}).items()
    )  # measured before a gate existed: measured again once, so an upgrade gets it without a corpus change
    if entry and change < MATERIAL_CHANGE and not ungated:
        return {
            "action": "kept",
            "reason": f"corpus changed {change:.0%} since calibration (< {MATERIAL_CHANGE:.0%})",
            "floor": entry["floor"],
            "records": n_records,
        }
    res = calibrate(recaller, None, save=True, source="auto", per_language=True)
    return {
        "action": "calibrated",
        "floor": res["floor"],
        "records": n_records,
        "reason": (
            "first measurement for this knowledge base"
            if not entry
            else "measured before the lexical gate, the cross-language gate or the floors per language pair"
            if ungated and change < MATERIAL_CHANGE
            else f"corpus changed {change:.0%} since"
        )
        + " with the shipped probes ("
        + ", ".join(f"{lang} {v['floor']}" for lang, v in res["languages"].items())
        + ")",
        "languages": {lang: v["floor"] for lang, v in res["languages"].items()},
        "median_cos": res["median_cos"],
        "mad_cos": res["mad_cos"],
    }


def after_seed(seeder: Seeder) -> dict:
    """The seeder's post-seed step (`calibrating_seeder`): measure this workspace's floor with the shipped
    probes when the corpus changed materially. It reads through the seeder's model and identity, so it loads
    nothing twice. A failure here never fails the seed: recall falls back and says so. The answer's `line`
    says which floor is in force after the seed and where it came from (floors.in_force)."""
    s = seeder.settings
    if s.floor is not None or not s.auto_calibrate:  # nothing to measure: the line still says which floor holds
        action, reason = ("config", "`floor` set in the project settings") if s.floor is not None else ("off", "")
        info = floor_for(
            seeder.workspace.id,
            floor_identity(seeder.identity, seeder.embedder.spec),
            seeder.embedder.spec,
            s.floor,
            seeder.store_root,
            auto_calibrate=s.auto_calibrate,
        )
        reason = reason or "`auto_calibrate = false` in the project settings"
        return {"action": action, "floor": info.value, "reason": reason, "line": info.provenance["in_force"]}
    views = Views(
        seeder.workspace,
        seeder.settings,
        seeder.store_root,
        seeder.identity,
        seeder.embedder,
        seeder.wsdir,
        calibrating_seeder,
    )
    try:
        try:
            done = auto_calibrate(views)
        except Exception as e:
            done = {"action": "failed", "reason": f"{type(e).__name__}: {e}"}
        records = done.get("records")
        if records is None:  # the calibration failed before it counted: why the shipped default holds
            with contextlib.suppress(*index_failures()):
                records = views.index().catalog.count_in(DEFAULT_STATUSES)
        line = in_force(views.floor_info(records=records))
        done["line"] = f"floor calibration failed ({done['reason']}); {line}" if done["action"] == "failed" else line
        return done
    finally:
        views.close()


def calibrating_seeder(
    repo: Path | str | None = None,
    settings: Settings | None = None,
    store_root: Path | None = None,
    embedder: Any = None,
) -> Seeder:
    """A Seeder that calibrates the floor after each seed, as every seed outside a test does (`jgm seed`,
    the watcher, the hooks, the server, doctor --repair, a read refreshing its view). The seed layer cannot
    import recall, so this is the one place the two are joined."""
    return Seeder(repo, settings, store_root, embedder=embedder, calibrate=after_seed)
