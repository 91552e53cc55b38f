"""Compare later-context contrast runs of one cohort: per-judge G with CIs and paired ΔG between judges.

A contrast run is a directory with ``contrast.json`` (its judge and draws)
and ``flags.csv`` (one row per judged packet, ``orgbench assure contrast``
or ``reproduce`` wrote it). ``compare_contrast_runs(dirs)`` returns:

- ``judges``: per judge G original / restored / reduction, per trajectory,
  with 95% cluster-bootstrap CIs; packets, draws, abstentions (draws answered
  ``cannot_decide``) and unparsed draws (anything but pass / fail /
  cannot_decide);
- ``delta``: for every pair of judges (b − a) the paired difference of G per
  trajectory for each rendering and for the reduction, with a 95% CI from one
  bootstrap over clusters (shared user requests) — the same drawn clusters for
  both judges.

Runs that judged different packets (trajectory, target, extent, rendering)
are refused with one line.
"""

from __future__ import annotations

from itertools import combinations
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from judges.assurance.contrast import CELL_SIGN
from judges.bootstrap import cluster_interval, draws
from orgbench.core.errors import InputError
from orgbench.core.storage import read_json, read_text
from orgbench.core.tables import Table

FLAGS = "flags.csv"
VERDICTS = ("pass", "fail", "cannot_decide")
RENDERINGS = ("original", "restored")


def is_contrast_run(directory: Path) -> bool:
    """True when ``directory`` holds a contrast run (contrast.json and flags.csv)."""
    return (Path(directory) / "contrast.json").is_file() and (Path(directory) / FLAGS).is_file()


def _packets(run: Path) -> list[dict[str, str]]:
    path = run / FLAGS
    table = Table.from_csv(read_text(path, "contrast flags"), path)
    need = ("trajectory_id", "cluster", "target_kind", "extent", "rendering", "verdicts", "flag")
    missing = [c for c in need if c not in table.columns]
    if missing:
        raise InputError(f"{path}: column {missing[0]} missing (expected {', '.join(need)})")
    rows = [dict(zip(table.columns, row)) for row in table.rows]
    for number, row in enumerate(rows, start=2):
        if (row["target_kind"], row["extent"]) not in CELL_SIGN or row["rendering"] not in RENDERINGS:
            raise InputError(f"{path}:{number}: unknown cell {row['target_kind']}/{row['extent']}/{row['rendering']}")
    return rows


def _per_cluster(rows: Sequence[Mapping[str, str]], clusters: list[str], rendering: str) -> np.ndarray:
    """Per cluster: the summed (F_E − P_E) − (F_C − P_C) of ``rendering``'s flags."""
    contrib = dict.fromkeys(clusters, 0)
    for row in rows:
        if row["rendering"] == rendering and row["flag"] == "true":
            contrib[row["cluster"]] += CELL_SIGN[(row["target_kind"], row["extent"])]
    return np.array([contrib[c] for c in clusters], dtype=float)


def _stats(values: dict[str, np.ndarray], sizes: np.ndarray, drawn: np.ndarray) -> dict[str, Any]:
    out = {}
    n = float(sizes.sum())
    for name, v in values.items():
        out[name] = {"G": int(v.sum()), "per_trajectory": round(float(v.sum() / n), 4) if n else None,
                     "ci": cluster_interval(v, sizes, drawn)}
    return out


def _usage(rows: Sequence[Mapping[str, str]]) -> dict[str, Any]:
    draws = [v for row in rows for v in row["verdicts"].split("|") if row["verdicts"]]
    return {"packets": len(rows), "draws": len(draws),
            "parse_rate": round(sum(1 for v in draws if v in VERDICTS) / len(draws), 4) if draws else None,
            "cannot_decide": sum(1 for v in draws if v == "cannot_decide"),
            "unparsed": sum(1 for v in draws if v not in VERDICTS),
            "flags": sum(1 for row in rows if row["flag"] == "true")}


def compare_contrast_runs(run_dirs: Sequence[Path], *, resamples: int = 2000, seed: int = 0) -> dict[str, Any]:
    """The comparison of the contrast runs (see the module docstring)."""
    runs = [Path(r) for r in run_dirs]
    loaded = []
    for run in runs:
        if not is_contrast_run(run):
            raise InputError(f"{run}: not a contrast run (needs contrast.json and {FLAGS})")
        judge = read_json(run / "contrast.json").get("judge") or run.name
        loaded.append((run, judge, _packets(run)))
    cells = lambda rows: sorted((r["trajectory_id"], r["target_kind"], r["extent"], r["rendering"]) for r in rows)
    for run, judge, rows in loaded[1:]:
        if cells(rows) != cells(loaded[0][2]):
            raise InputError(f"{run / FLAGS}: judged other packets than {loaded[0][0] / FLAGS}; compare runs of one "
                             "cohort")
    judges = [judge for _, judge, _ in loaded]
    if len(set(judges)) != len(judges):
        raise InputError(f"compare: a judge appears in two of the contrast runs given ({', '.join(judges)})")
    members: dict[str, set[str]] = {}
    for row in loaded[0][2]:
        members.setdefault(row["cluster"], set()).add(row["trajectory_id"])
    clusters = sorted(members)
    sizes = np.array([len(members[c]) for c in clusters], dtype=float)
    drawn = draws(len(clusters), resamples, seed)
    values = {}
    out_judges = {}
    for run, judge, rows in loaded:
        original, restored = (_per_cluster(rows, clusters, r) for r in RENDERINGS)
        values[judge] = {"original": original, "restored": restored, "reduction": original - restored}
        out_judges[judge] = {"run": str(run), **_usage(rows), "G": _stats(values[judge], sizes, drawn)}
    delta = []
    for a, b in combinations(judges, 2):
        diff = {name: values[b][name] - values[a][name] for name in values[a]}
        stats = _stats(diff, sizes, drawn)
        delta.append({"a": a, "b": b, **{name: {"delta": s["per_trajectory"], "ci": s["ci"]}
                                          for name, s in stats.items()}})
    return {"kind": "assurance", "trajectories": int(sizes.sum()), "clusters": len(clusters),
            "resamples": resamples, "seed": seed, "judges": out_judges, "delta": delta}


def contrast_comparison_markdown(result: Mapping[str, Any]) -> str:
    """The comparison as Markdown tables."""
    def ci(pair: Sequence[float]) -> str:
        return f"[{pair[0]:+.3f}, {pair[1]:+.3f}]"

    lines = [f"{result['trajectories']} trajectories in {result['clusters']} clusters (shared user requests); "
             f"cluster bootstrap, {result['resamples']} resamples, seed {result['seed']}.", "",
             "## Judges", ""]
    lines += Table.from_lists(
        ["judge", "packets", "draws", "parse rate", "cannot_decide", "unparsed", "flags", "G original", "G restored",
         "reduction per trajectory", "95% CI"],
        [[judge, row["packets"], row["draws"], "–" if row["parse_rate"] is None else f"{row['parse_rate']:.3f}",
          row["cannot_decide"], row["unparsed"], row["flags"], row["G"]["original"]["G"], row["G"]["restored"]["G"],
          f"{row['G']['reduction']['per_trajectory']:.3f}", ci(row["G"]["reduction"]["ci"])]
         for judge, row in result["judges"].items()]).to_markdown().splitlines()
    lines += ["", "## Paired ΔG per trajectory, b − a (same drawn clusters for both judges)", ""]
    pairs = [[d["a"], d["b"], *(cell for name in ("original", "restored", "reduction")
                                for cell in (f"{d[name]['delta']:+.3f}", ci(d[name]["ci"])))] for d in result["delta"]]
    lines += Table.from_lists(["a", "b", "Δ original", "95% CI", "Δ restored", "95% CI", "Δ reduction", "95% CI"],
                              pairs or [["(one judge: no pair)", *[""] * 7]]).to_markdown().splitlines()
    return "\n".join(lines) + "\n"
