"""Per domain pack: the three suites' sizes and the built-in judges' and agents' headline figures. Prints JSON.

Everything is made with the CLI, as a user would, for each built-in pack (``hardware`` is the default):

- CARGO: ``build cargo --pack P`` (seeds 0-9 at CARGO's size, as ``reproduce`` builds the default suite); items per
  family and gating questions; ``judge --conditions cargo`` with ``builtin:grounded`` and ``builtin:literal``:
  the share penalised per family and the discrimination index (penalised share of P2+P4 minus that of P1+P3);
- trajectories: ``simulate --pack P`` (the default size), ``build trajectories``: trajectories, labelled steps and
  the steps labelled wrong (no built-in judge reads them; the labels are the figure);
- GroundEval: ``build groundeval`` on that world; ``run-agent`` (tool mode) and ``score groundeval`` for the
  built-in agents oracle, follow, bm25, proximity, lazy: S_adj over all questions, and the verdict accuracy.

Usage: ``python benchmarks/pack_figures.py [--packs hardware,fintech,clinical,utility] [--seeds 0-9] [--work DIR]``
(slow: a few minutes a pack).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

JUDGES = ("builtin:grounded", "builtin:literal")
AGENTS = ("oracle", "follow", "bm25", "proximity", "lazy")
VERDICT = {"perspective": "could_actor_have_known", "counterfactual": "outcome_changed", "silence": "exists"}


def orgbench(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "orgbench", *args], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def cargo_figures(pack: str, seeds: str, work: Path) -> dict:
    suite = work / "cargo"
    orgbench("build", "cargo", "--pack", pack, "--seeds", seeds, "--out", str(suite))
    truth = {t["item_id"]: t for t in rows(suite / "truth.jsonl")}
    sizes: dict[str, int] = {}
    for t in truth.values():
        sizes[t["family"]] = sizes.get(t["family"], 0) + 1
    out: dict = {"items": dict(sorted(sizes.items())), "gating": len(rows(suite / "gating.jsonl")),
                 "retrieval_top1_correct": sum(t["retrieval_top1_correct"] for t in truth.values())}
    for judge in JUDGES:
        run = work / judge.replace(":", "-")
        orgbench("judge", "--suite", str(suite), "--judge", judge, "--conditions", "cargo", "--out", str(run))
        flagged: dict[str, list[bool]] = {}
        for j in rows(run / "judgments.jsonl"):
            flagged.setdefault(truth[j["item_id"]]["family"], []).append(bool(j["penalized"]))
        rate = {f: round(sum(v) / len(v), 3) for f, v in sorted(flagged.items())}
        bad = [x for f in ("P2", "P4") for x in flagged.get(f, [])]
        good = [x for f in ("P1", "P3") for x in flagged.get(f, [])]
        out[judge] = {"penalised": rate, "di": round(sum(bad) / len(bad) - sum(good) / len(good), 3)}
    return out


def world_figures(pack: str, work: Path) -> dict:
    world = work / "world"
    orgbench("simulate", "--pack", pack, "--out", str(world))
    trajectories = work / "trajectories"
    orgbench("build", "trajectories", "--world", str(world), "--pack", pack, "--out", str(trajectories))
    labels = [label for row in rows(trajectories / "labels.jsonl") for label in row["labels"].values()]
    out: dict = {"trajectories": {"trajectories": len(rows(trajectories / "trajectories.jsonl")),
                                  "labelled_steps": len(labels), "erroneous_steps": labels.count(-1)}}
    suite = work / "groundeval"
    orgbench("build", "groundeval", "--world", str(world), "--out", str(suite))
    truth = rows(suite / "truth.jsonl")
    tracks: dict[str, int] = {}
    for t in truth:
        tracks[t["track"]] = tracks.get(t["track"], 0) + 1
    out["groundeval"] = {"questions": dict(sorted(tracks.items()))}
    for agent in AGENTS:
        run, scores = work / f"run-{agent}", work / f"scores-{agent}"
        orgbench("run-agent", "--suite", str(suite), "--agent", agent, "--out", str(run), "--no-latency")
        orgbench("score", "groundeval", "--suite", str(suite), "--answers", str(run), "--out", str(scores))
        summary = json.loads((scores / "summary.json").read_text(encoding="utf-8"))["agents"][agent]["tool"]["all"]
        answers = {a["question_id"]: a["answer"] for a in rows(run / "answers.jsonl")}
        right = sum(answers[t["question_id"]].get(VERDICT[t["track"]]) == t["gold"][VERDICT[t["track"]]]
                    for t in truth)
        out["groundeval"][agent] = {"s_adj": summary["s_adj"], "verdict_accuracy": round(right / len(truth), 3)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packs", default="hardware,fintech,clinical,utility")
    parser.add_argument("--seeds", default="0-9")
    parser.add_argument("--work", type=Path, default=None, help="keep the suites and runs here (default: a temp dir)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.work or Path(tmp)
        figures = {}
        for pack in args.packs.split(","):
            work = root / pack
            work.mkdir(parents=True, exist_ok=True)
            figures[pack] = {"cargo": cargo_figures(pack, args.seeds, work), **world_figures(pack, work)}
            print(json.dumps({pack: figures[pack]}), file=sys.stderr, flush=True)
        print(json.dumps(figures, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
