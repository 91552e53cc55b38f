"""What ``suite.json`` reports about a built suite: counts and every breakdown (styles, value kinds, P4 kinds,
case states, derived values, gating), the surface baseline and the shortcut readers."""

from __future__ import annotations

import statistics
from dataclasses import asdict
from typing import Any, Iterable, Sequence

from benchmark_builders.cargo.perturb import value_kind
from benchmark_builders.cargo.readers import pair_scores, reader_scores, surface_baselines
from benchmark_builders.cargo.records import families_in

FORMAT_VERSION = 1
#: The states a live case can be in, in report order.
CASE_STATES: tuple[str, ...] = ("closed", "open_at_end", "mid_case")


def variety_of(family: str, perturbation: dict | None) -> str | None:
    """The P2 value kind of the first changed value (identifier, date, or the kind of a derived value: count,
    days) or the P4 kind; None for P1 and P3."""
    if perturbation is None:
        return None
    if family == "P2":
        change = perturbation["changes"][0]
        return change.get("derived") or value_kind(change["field"], change["original"])
    return perturbation["kind"] if family == "P4" else None


def _tally(values: Iterable[str | None]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for value in values:
        if value is not None:
            counts[value] = counts.get(value, 0) + 1
    return dict(sorted(counts.items()))


def gating_summary(gating_truth: Sequence[dict], retrieval: Sequence[dict]) -> dict[str, int]:
    """How many gating questions retrieval scores at margin 0 (no runbook nearer than another: abstaining is
    trivial at any threshold), overall and among the deliberate near-vocabulary ones."""
    margin = {r["item_id"]: r["margin"] for r in retrieval if r["set"] == "gating"}
    near = [t for t in gating_truth if t.get("near_vocabulary")]
    return {"questions": len(gating_truth), "margin_zero": sum(margin[t["item_id"]] == 0 for t in gating_truth),
            "near_vocabulary": len(near), "near_vocabulary_margin_zero": sum(margin[t["item_id"]] == 0 for t in near)}


def suite_meta(config, worlds, world_meta, items, truth, gating, golden) -> dict[str, Any]:
    """The suite.json object of a built suite (without ``dropped_items`` and ``gating``, added by the builder)."""
    by_id = {i["item_id"]: i for i in items}
    families = families_in(t["family"] for t in truth)
    counts = {f: sum(1 for t in truth if t["family"] == f) for f in families}
    styles = {f: {s: sum(1 for t in truth if t["family"] == f and t["style"] == s) for s in ("plain", "extra")}
              for f in families}
    length = {f: round(statistics.fmean(len(by_id[t["item_id"]]["candidate"]) for t in truth if t["family"] == f), 1)
              for f in families if counts[f]}
    states = {f: {s: sum(1 for t in truth if t["family"] == f and t.get("case_state", "closed") == s)
                  for s in CASE_STATES} for f in families}
    derived = _tally(kind for t in truth for kind in (t.get("derived") or {}).values())
    return {"format_version": FORMAT_VERSION, "kind": "cargo-bench", "config": asdict(config),
            "surface_baseline": surface_baselines(items, truth),
            "world_seeds": [seed for seed, _ in worlds], "worlds": list(world_meta),
            "counts": counts, "items": len(items), "gating_items": len(gating), "golden": len(golden),
            "shortcut_readers": reader_scores(items, truth),
            "shortcut_readers_by_pair": pair_scores(items, truth),
            "styles": styles, "mean_candidate_chars": length,
            "p4_kinds": _tally(t["variety"] for t in truth if t["family"] == "P4"),
            "p2_kinds": _tally(t["variety"] for t in truth if t["family"] == "P2"),
            "case_states": states, "derived_values_stated": derived}
