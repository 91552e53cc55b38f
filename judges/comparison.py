"""Judge comparison over CARGO runs of one suite: per-judge DI with CIs, agreement, paired ΔDI, parse rate, cost.

``compare_runs(run_dirs)`` reads only the run directories (and the suite
their run.json names) and returns one JSON-ready dict:

- ``judges``: per judge and condition — DI (mean of seeds) with its 95% CI,
  judgments, parse rate (share with a pass / fail / cannot_decide verdict),
  cannot_decide (abstentions), unparsed, errors, prompt and completion
  tokens, wall time (``run_stats.json``) and cost (only from a price table
  the user gives: per million prompt and completion tokens; none invented);
- ``agreement``: per condition, Cohen's κ for every pair of judges and
  Krippendorff's α across all judges (each judge's lowest seed), and for every
  judge with several seeds κ between its seeds and α across them;
- ``delta_di``: paired bootstrap ΔDI between every pair of judges per
  condition, and between each condition and ``direct`` (else the first) per judge.
"""

from __future__ import annotations

import math
from itertools import combinations
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from judges.agreement import cohen_kappa, krippendorff_alpha, paired_delta_di
from judges.backends.base import Usage
from judges.cargo_scores import load_cargo_judgments, score_run, suite_of_runs
from judges.judgments import Judgment
from judges.metrics import SHOULD_PENALIZE
from judges.run_record import RUN_STATS
from orgbench.core.errors import InputError
from orgbench.core.storage import read_json

LABELS = ("pass", "fail", "cannot_decide")


def _num(x: float) -> float | None:
    return None if x is None or math.isnan(x) else round(float(x), 4)


def load_prices(path: Path | None) -> dict[str, dict[str, float]]:
    """A TOML price table: ``["JUDGE"]`` with ``prompt_per_million`` and ``completion_per_million`` (any currency)."""
    if path is None:
        return {}
    import tomllib

    try:
        table = tomllib.loads(Path(path).read_text("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InputError(f"{path}: not a readable TOML price table ({exc})") from None
    prices = {}
    for judge, entry in table.items():
        if not isinstance(entry, dict):
            raise InputError(f"{path}: [{judge!r}] must be a table with prompt_per_million and completion_per_million")
        for name in ("prompt_per_million", "completion_per_million"):
            value = entry.get(name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise InputError(f"{path}: [{judge!r}] field {name!r} missing or not a non-negative number")
        prices[judge] = {k: float(entry[k]) for k in ("prompt_per_million", "completion_per_million")}
    return prices


def _label(row: Judgment) -> str | None:
    """The judgment's verdict label, None when it is unparsed or an error."""
    label = row.verdict.verdict if row.verdict is not None and not row.error else None
    return label if label in LABELS else None


def _labels(rows: Sequence[Judgment]) -> dict[tuple[str, int], dict[str, str | None]]:
    """(condition, seed) -> item -> verdict label (None: unparsed or error)."""
    out: dict[tuple[str, int], dict[str, str | None]] = {}
    for row in rows:
        out.setdefault((row.condition, row.seed), {})[row.item_id] = _label(row)
    return out


def _usage(rows: Sequence[Judgment], condition: str) -> dict[str, Any]:
    mine = [r for r in rows if r.condition == condition]
    labelled = [r for r in mine if _label(r) is not None]
    spent = sum((r.usage for r in mine), Usage())
    return {"judgments": len(mine), "parse_rate": _num(len(labelled) / len(mine)) if mine else None,
            "cannot_decide": sum(1 for r in labelled if _label(r) == "cannot_decide"),
            "errors": sum(1 for r in mine if r.error), **spent.to_json()}


def _cost(usage: Mapping[str, int], price: Mapping[str, float] | None) -> float | None:
    if price is None:
        return None
    return round(usage["prompt_tokens"] / 1e6 * price["prompt_per_million"]
                 + usage["completion_tokens"] / 1e6 * price["completion_per_million"], 6)


def _asking_wall(stats: Mapping[str, Any]) -> float | None:
    """Wall seconds of the invocations that asked the model something (a resume with nothing left adds none)."""
    calls = stats.get("calls")
    if not isinstance(calls, list):
        return stats.get("wall_s")
    return round(sum(float(c.get("wall_s") or 0) for c in calls if c.get("requested")), 3)


def _rater(labels: Mapping[str, str | None], items: Sequence[str]) -> list[str | None]:
    return [labels.get(item) for item in items]


def _agreement(judges: Mapping[str, dict[tuple[str, int], dict]], condition: str, items: Sequence[str]) -> dict:
    first = {j: labels[(condition, min(s for c, s in labels if c == condition))]
             for j, labels in judges.items() if any(c == condition for c, _ in labels)}
    pairs = []
    for a, b in combinations(sorted(first), 2):
        kappa, n = cohen_kappa(_rater(first[a], items), _rater(first[b], items))
        pairs.append({"a": a, "b": b, "kappa": _num(kappa), "items": n})
    alpha, n = krippendorff_alpha([_rater(first[j], items) for j in sorted(first)])
    seeds = {}
    for judge, labels in sorted(judges.items()):
        mine = sorted(s for c, s in labels if c == condition)
        if len(mine) < 2:
            continue
        raters = [_rater(labels[(condition, s)], items) for s in mine]
        seed_alpha, seed_n = krippendorff_alpha(raters)
        seeds[judge] = {"seeds": mine, "alpha": _num(seed_alpha), "items": seed_n,
                        "kappa": [{"a": mine[i], "b": mine[j], "kappa": _num(cohen_kappa(raters[i], raters[j])[0])}
                                  for i, j in combinations(range(len(mine)), 2)]}
    return {"judges": pairs, "alpha": {"value": _num(alpha), "items": n}, "seeds": seeds}


def compare_runs(run_dirs: Sequence[Path], *, suite_dir: Path | None = None, prices: Mapping[str, Mapping] | None = None,
                 resamples: int = 10_000) -> dict[str, Any]:
    """The comparison of the runs (see the module docstring); every run must have judged the same suite."""
    truth = suite_of_runs(list(run_dirs), suite_dir)
    prices = prices or {}
    items = sorted(truth.families)
    should = np.array([SHOULD_PENALIZE[truth.families[i]] for i in items], dtype=bool)
    judges: dict[str, Any] = {}
    labels: dict[str, dict] = {}
    means: dict[str, dict[str, np.ndarray]] = {}
    for run in map(Path, run_dirs):
        scored = score_run(run, truth, resamples=resamples)
        if scored.judge in judges:
            raise InputError(f"{run}: judge {scored.judge} is in two of the runs given; compare one run per judge")
        rows = load_cargo_judgments(run)
        stats = read_json(run / RUN_STATS) if (run / RUN_STATS).is_file() else {}
        rows_by = {}
        for condition, score in scored.scores.items():
            usage = _usage(rows, condition)
            rows_by[condition] = {"di": _num(score.mean.di), "ci": [_num(score.mean.ci_low), _num(score.mean.ci_high)],
                                  **usage, "cost": _cost(usage, prices.get(scored.judge))}
        judges[scored.judge] = {"run": str(run), "wall_s": _asking_wall(stats), "conditions": rows_by}
        labels[scored.judge] = _labels(rows)
        means[scored.judge] = dict(scored.item_means)
    conditions = sorted({c for j in judges.values() for c in j["conditions"]})
    delta: list[dict[str, Any]] = []
    for condition in conditions:
        having = sorted(j for j in means if condition in means[j])
        for a, b in combinations(having, 2):
            d, low, high = paired_delta_di(means[a][condition], means[b][condition], should, resamples=resamples)
            delta.append({"kind": "judges", "condition": condition, "a": a, "b": b,
                          "delta_di": _num(d), "ci": [_num(low), _num(high)]})
    for judge in sorted(means):
        mine = sorted(means[judge])
        base = "direct" if "direct" in mine else mine[0]
        for condition in (c for c in mine if c != base):
            d, low, high = paired_delta_di(means[judge][condition], means[judge][base], should,
                                           resamples=resamples)
            delta.append({"kind": "conditions", "judge": judge, "a": condition, "b": base,
                          "delta_di": _num(d), "ci": [_num(low), _num(high)]})
    return {"judges": judges, "agreement": {c: _agreement(labels, c, items) for c in conditions},
            "delta_di": delta, "resamples": resamples, "priced": sorted(j for j in judges if j in prices)}


def comparison_markdown(result: Mapping[str, Any]) -> str:
    """The comparison as Markdown tables."""
    def fmt(x: Any) -> str:
        return "–" if x is None else f"{x:.3f}" if isinstance(x, float) else str(x)

    lines = ["## Judges", "", "| judge | condition | DI | 95% CI | judgments | parse rate | cannot_decide | errors "
             "| prompt tokens | completion tokens | wall s | cost |", "|" + "---|" * 12]
    for judge, entry in result["judges"].items():
        for condition, row in entry["conditions"].items():
            lines.append(f"| {judge} | {condition} | {fmt(row['di'])} | [{fmt(row['ci'][0])}, {fmt(row['ci'][1])}] | "
                         f"{row['judgments']} | {fmt(row['parse_rate'])} | {row['cannot_decide']} | {row['errors']} | "
                         f"{row['prompt_tokens']} | {row['completion_tokens']} | {fmt(entry['wall_s'])} | "
                         f"{fmt(row['cost'])} |")
    lines += ["", "## Agreement (each judge's lowest seed)", "", "| condition | a | b | Cohen's κ | items |",
              "|---|---|---|---|---|"]
    for condition, agreement in result["agreement"].items():
        for pair in agreement["judges"]:
            lines.append(f"| {condition} | {pair['a']} | {pair['b']} | {fmt(pair['kappa'])} | {pair['items']} |")
        alpha = agreement["alpha"]
        lines.append(f"| {condition} | all judges | | α = {fmt(alpha['value'])} | {alpha['items']} |")
        for judge, seeds in agreement["seeds"].items():
            lines.append(f"| {condition} | {judge} | seeds {', '.join(map(str, seeds['seeds']))} | "
                         f"α = {fmt(seeds['alpha'])} | {seeds['items']} |")
    lines += ["", f"## Paired bootstrap ΔDI ({result['resamples']} resamples, same draws for both sides)", "",
              "| between | condition / judge | a | b | ΔDI = DI(a) − DI(b) | 95% CI |", "|---|---|---|---|---|---|"]
    for d in result["delta_di"]:
        where = d["condition"] if d["kind"] == "judges" else d["judge"]
        lines.append(f"| {d['kind']} | {where} | {d['a']} | {d['b']} | {fmt(d['delta_di'])} | "
                     f"[{fmt(d['ci'][0])}, {fmt(d['ci'][1])}] |")
    if not result["priced"]:
        lines += ["", "No price table given (`--prices FILE`): no cost is shown."]
    return "\n".join(lines) + "\n"
