"""Judge comparison over CARGO runs of one suite: per-judge DI with CIs, agreement, paired ΔDI, parse rate, cost.

``compare_runs(run_dirs)`` reads only the run directories (and the suite
their run.json names) and returns one JSON-ready dict:

- ``judges``: per run (its ``--label``, else its judge spec; two runs of one
  spec need labels) and condition — DI (mean of seeds) with its 95% CI,
  judgments, parse rate (share with a pass / fail / cannot_decide verdict),
  cannot_decide (abstentions), unparsed, errors, accuracy against the truth
  (share of decided verdicts that fail exactly the items that should be
  penalised) with its confusion matrix, prompt and completion tokens, cost
  (only from a price table the user gives: per million prompt and completion
  tokens; none invented) and time (``time_s``): where ``run_stats.json``
  records each condition's requests (runs since issue 32), the seconds they
  were in flight, summed per request (``time_kind`` "requests"; they overlap
  under concurrency), else the run's asking wall time shared out by the
  condition's share of the judgments (``time_kind`` "share"); the run's whole
  wall time once per run;
- ``agreement``: per condition, Cohen's κ with its item-bootstrap 95% CI for
  every pair of judges and Krippendorff's α across all judges (each judge's
  lowest seed), and for every judge with several seeds κ between its seeds and
  α across them;
- ``disagreements``: per condition, the items on which the judges' verdicts
  (lowest seed) differ, with the item's family and each judge's verdict;
- ``delta_di``: paired bootstrap ΔDI between every pair of judges per
  condition, and between each condition and ``direct`` (else the first) per judge.
"""

from __future__ import annotations

import math
from itertools import combinations
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from judges.agreement import cohen_kappa, kappa_interval, krippendorff_alpha, paired_delta_di
from judges.backends.base import Usage
from judges.cargo_scores import load_cargo_judgments, score_run, suite_of_runs
from judges.judgments import Judgment
from judges.metrics import SHOULD_PENALIZE
from judges.run_record import RUN_STATS
from orgbench.core.errors import InputError
from orgbench.core.storage import read_json
from orgbench.core.tables import Table

LABELS = ("pass", "fail", "cannot_decide")
#: The disagreements the Markdown lists per condition (``compare.json`` has them all).
DISAGREEMENTS_SHOWN = 20


def _num(x: float) -> float | None:
    return None if x is None or math.isnan(x) else round(float(x), 4)


def load_prices(path: Path | None) -> dict[str, dict[str, float]]:
    """A TOML price table: ``["JUDGE"]`` with ``prompt_per_million`` and ``completion_per_million`` (any currency)."""
    if path is None:
        return {}
    from orgbench.core.storage import read_toml

    table = read_toml(Path(path))
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


def _accuracy(rows: Sequence[Judgment], condition: str, families: Mapping[str, str]) -> dict[str, Any]:
    """Decided verdicts against the truth (fail exactly where the family should be penalised), every seed."""
    matrix = {truth: {"fail": 0, "pass": 0, "cannot_decide": 0, "none": 0} for truth in ("should_fail", "should_pass")}
    for row in rows:
        if row.condition != condition or row.item_id not in families:
            continue
        truth = "should_fail" if SHOULD_PENALIZE[families[row.item_id]] else "should_pass"
        matrix[truth][_label(row) or "none"] += 1
    decided = sum(matrix[t][v] for t in matrix for v in ("fail", "pass"))
    right = matrix["should_fail"]["fail"] + matrix["should_pass"]["pass"]
    return {"accuracy": _num(right / decided) if decided else None, "decided": decided, "confusion": matrix}


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


def _condition_time(stats: Mapping[str, Any]) -> dict[str, float] | None:
    """Seconds each condition's requests were in flight, over the invocations that asked; None if not recorded."""
    calls = [c for c in stats.get("calls") or () if isinstance(c, dict) and c.get("requested")]
    if not calls or not all(isinstance(c.get("conditions"), dict) for c in calls):
        return None
    spent: dict[str, float] = {}
    for call in calls:
        for condition, row in call["conditions"].items():
            spent[condition] = spent.get(condition, 0.0) + float(row.get("request_s") or 0)
    return {c: round(t, 3) for c, t in spent.items()}


def _rater(labels: Mapping[str, str | None], items: Sequence[str]) -> list[str | None]:
    return [labels.get(item) for item in items]


def _first_labels(judges: Mapping[str, dict[tuple[str, int], dict]], condition: str) -> dict[str, dict]:
    """Each judge's labels for ``condition`` at its lowest seed."""
    return {j: labels[(condition, min(s for c, s in labels if c == condition))]
            for j, labels in judges.items() if any(c == condition for c, _ in labels)}


def _disagreements(judges: Mapping[str, dict[tuple[str, int], dict]], condition: str, items: Sequence[str],
                   families: Mapping[str, str]) -> list[dict[str, Any]]:
    """The items on which at least two judges gave different verdicts (lowest seeds)."""
    first = _first_labels(judges, condition)
    out = []
    for item in items:
        verdicts = {j: first[j].get(item) for j in sorted(first)}
        if len({v for v in verdicts.values() if v is not None}) > 1:
            out.append({"item": item, "family": families[item], "verdicts": verdicts})
    return out


def _agreement(judges: Mapping[str, dict[tuple[str, int], dict]], condition: str, items: Sequence[str],
               resamples: int) -> dict:
    first = _first_labels(judges, condition)
    pairs = []
    for a, b in combinations(sorted(first), 2):
        kappa, n = cohen_kappa(_rater(first[a], items), _rater(first[b], items))
        low, high = kappa_interval(_rater(first[a], items), _rater(first[b], items), resamples=resamples)
        pairs.append({"a": a, "b": b, "kappa": _num(kappa), "ci": [_num(low), _num(high)], "items": n})
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
                 resamples: int = 10_000, labels: Sequence[str] | None = None) -> dict[str, Any]:
    """The comparison of the runs (see the module docstring); every run must have judged the same suite.

    ``labels`` names each run (in order); without them a run is named by its judge spec.
    """
    if labels is not None and (len(labels) != len(run_dirs) or len(set(labels)) != len(labels)):
        raise InputError(f"--label: give one distinct label per run ({len(run_dirs)} runs, {len(labels)} labels)")
    truth = suite_of_runs(list(run_dirs), suite_dir)
    prices = prices or {}
    items = sorted(truth.families)
    should = np.array([SHOULD_PENALIZE[truth.families[i]] for i in items], dtype=bool)
    judges: dict[str, Any] = {}
    verdicts: dict[str, dict] = {}
    means: dict[str, dict[str, np.ndarray]] = {}
    for number, run in enumerate(map(Path, run_dirs)):
        scored = score_run(run, truth, resamples=resamples)
        name = labels[number] if labels is not None else scored.judge
        if name in judges:
            raise InputError(f"{run}: judge {scored.judge} is in two of the runs given; name each run with --label "
                             "(one per run, in order), e.g. --label t0 --label t1")
        rows = load_cargo_judgments(run)
        stats = read_json(run / RUN_STATS) if (run / RUN_STATS).is_file() else {}
        wall, timed = _asking_wall(stats), _condition_time(stats)
        rows_by = {}
        for condition, score in scored.scores.items():
            usage = _usage(rows, condition)
            share = usage["judgments"] / len(rows) if rows else 0.0
            rows_by[condition] = {"di": _num(score.mean.di), "ci": [_num(score.mean.ci_low), _num(score.mean.ci_high)],
                                  **usage, **_accuracy(rows, condition, truth.families),
                                  "cost": _cost(usage, prices.get(name, prices.get(scored.judge))),
                                  **_time(condition, timed, wall, share)}
        judges[name] = {"run": str(run), "judge": scored.judge, "wall_s": wall, "conditions": rows_by}
        verdicts[name] = _labels(rows)
        means[name] = dict(scored.item_means)
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
    return {"judges": judges, "agreement": {c: _agreement(verdicts, c, items, resamples) for c in conditions},
            "disagreements": {c: _disagreements(verdicts, c, items, truth.families) for c in conditions},
            "delta_di": delta, "resamples": resamples,
            "priced": sorted(j for j, e in judges.items() if j in prices or e["judge"] in prices)}


def _time(condition: str, timed: Mapping[str, float] | None, wall: float | None, share: float) -> dict[str, Any]:
    if timed is not None:
        return {"time_s": timed.get(condition, 0.0), "time_kind": "requests"}
    return {"time_s": None if wall is None else round(wall * share, 3), "time_kind": "share"}


def time_cell(row: Mapping[str, Any]) -> str:
    """A condition's time as shown: measured seconds, or ``≈`` and the apportioned share."""
    value = row.get("time_s", row.get("wall_s_share"))          # wall_s_share: a compare.json before issue 32's
    if not isinstance(value, (int, float)):
        return "–"
    return f"{value:.3f}" if row.get("time_kind") == "requests" else f"≈ {value:.3f}"


def comparison_markdown(result: Mapping[str, Any]) -> str:
    """The comparison as Markdown tables."""
    def fmt(x: Any) -> str:
        return "–" if x is None else f"{x:.3f}" if isinstance(x, float) else str(x)

    def table(columns: list[str], rows: list[list[Any]]) -> list[str]:
        return Table.from_lists(columns, rows).to_markdown().splitlines()

    lines = ["## Judges", ""] + table(
        ["judge", "condition", "DI", "95% CI", "judgments", "parse rate", "cannot_decide", "errors", "accuracy",
         "prompt tokens", "completion tokens", "time s", "cost"],
        [[judge, condition, fmt(row["di"]), f"[{fmt(row['ci'][0])}, {fmt(row['ci'][1])}]", row["judgments"],
          fmt(row["parse_rate"]), row["cannot_decide"], row["errors"], fmt(row["accuracy"]), row["prompt_tokens"],
          row["completion_tokens"], time_cell(row), fmt(row["cost"])]
         for judge, entry in result["judges"].items() for condition, row in entry["conditions"].items()])
    lines += ["", "Accuracy: decided verdicts (pass or fail) that fail exactly the items that should be penalised. "
              "time s: the seconds the condition's requests were in flight, measured per request (they overlap "
              "under concurrency); ≈ marks a run that recorded no per-condition time: its asking wall time shared "
              "out by the condition's share of its judgments. The whole run's wall time:"]
    lines += [f"{judge} {fmt(entry['wall_s'])} s ({entry['run']})" + ("" if judge == entry["judge"] else
              f", judge {entry['judge']}") for judge, entry in result["judges"].items()]
    lines += ["", "## Confusion against the truth (every seed)", ""] + table(
        ["judge", "condition", "truth", "fail", "pass", "cannot_decide", "none"],
        [[judge, condition, truth, counts["fail"], counts["pass"], counts["cannot_decide"], counts["none"]]
         for judge, entry in result["judges"].items() for condition, row in entry["conditions"].items()
         for truth, counts in row["confusion"].items()])
    agreeing: list[list[Any]] = []
    for condition, agreement in result["agreement"].items():
        agreeing += [[condition, pair["a"], pair["b"], fmt(pair["kappa"]), f"[{fmt(pair['ci'][0])}, {fmt(pair['ci'][1])}]",
                      pair["items"]] for pair in agreement["judges"]]
        alpha = agreement["alpha"]
        agreeing.append([condition, "all judges", "", f"α = {fmt(alpha['value'])}", "", alpha["items"]])
        agreeing += [[condition, judge, f"seeds {', '.join(map(str, seeds['seeds']))}", f"α = {fmt(seeds['alpha'])}",
                      "", seeds["items"]] for judge, seeds in agreement["seeds"].items()]
    lines += ["", "## Agreement (each judge's lowest seed)", ""] + table(
        ["condition", "a", "b", "Cohen's κ", "95% CI (items resampled)", "items"], agreeing)
    shown = DISAGREEMENTS_SHOWN
    lines += ["", f"## Items the judges disagree on (lowest seeds; the first {shown} per condition, all in "
              "compare.json)", ""]
    for condition, items in result.get("disagreements", {}).items():
        names = sorted(result["judges"])
        lines += [f"{condition}: {len(items)} item(s)", ""] + table(
            ["item", "family", *names], [[d["item"], d["family"], *(d["verdicts"].get(n) or "–" for n in names)]
                                         for d in items[:shown]])
        lines.append("")
    lines += ["", f"## Paired bootstrap ΔDI ({result['resamples']} resamples, same draws for both sides)", ""] + table(
        ["between", "condition / judge", "a", "b", "ΔDI = DI(a) − DI(b)", "95% CI"],
        [[d["kind"], d["condition"] if d["kind"] == "judges" else d["judge"], d["a"], d["b"], fmt(d["delta_di"]),
          f"[{fmt(d['ci'][0])}, {fmt(d['ci'][1])}]"] for d in result["delta_di"]])
    if not result["priced"]:
        lines += ["", "No price table given (`--prices FILE`): no cost is shown."]
    return "\n".join(lines) + "\n"
