"""inspect_ai eval logs of ``orgbench/cargo_bench`` read back as CARGO judge runs, for ``tables cargo`` and ``compare``.

A log (``.eval`` or ``.json`` from inspect's log folder) records, in its task
metadata, the suite's digest and path and the run's parameters, and in each
sample's score what a ``judgments.jsonl`` line holds (item, condition, seed,
request hash, response, model, usage). ``inspect_runs`` writes one run
directory per model (the logs of one model's conditions together) into a
temporary folder: ``run.json`` (judge ``inspect:MODEL``) and
``judgments.jsonl`` sorted by key, so the same logs give the same tables
whatever order they are given in.
"""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path
from typing import Any, Iterator, Sequence

from orgbench.core.errors import InputError

LOG_SUFFIXES = (".eval", ".json")


def is_inspect_log(path: Path) -> bool:
    """Whether ``path`` is a file inspect could have written as an eval log."""
    return Path(path).is_file() and Path(path).suffix in LOG_SUFFIXES


def _read(path: Path) -> tuple[str, dict[str, Any], list[Any]]:
    """(judge, the bound suite record, judgments) of one log; InputError naming the log otherwise."""
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise InputError(f"{path}: reading inspect logs needs inspect_ai (pip install 'orgbench[inspect]')") from None
    from orgbench.harness.inspect_cargo import SUITE_KEY, judgment_of

    try:
        log = read_eval_log(str(path))
    except Exception as exc:       # inspect raises many kinds for a file that is not a log
        said = " ".join(str(exc).split())[:120]
        raise InputError(f"{path}: not an inspect eval log ({type(exc).__name__}: {said})") from None
    bound = (log.eval.metadata or {}).get(SUITE_KEY)
    if not isinstance(bound, dict):
        raise InputError(f"{path}: an inspect log of task {log.eval.task!r}, not of orgbench/cargo_bench "
                         f"(its metadata has no {SUITE_KEY!r})")
    judgments = []
    for sample in log.samples or []:
        score = next((s for s in (sample.scores or {}).values() if s.metadata and "item_id" in s.metadata), None)
        if score is not None and score.metadata is not None:
            judgments.append(judgment_of(score.metadata))
    return f"inspect:{log.eval.model}", bound, judgments


@contextlib.contextmanager
def inspect_runs(paths: Sequence[Path]) -> Iterator[dict[Path, Path]]:
    """Each path as a run directory: inspect logs converted (one run per model, in a temporary folder), others
    unchanged. Yields {given path: run directory}; the folder is removed afterwards."""
    logs = [Path(p) for p in paths if is_inspect_log(Path(p))]
    if not logs:
        yield {Path(p): Path(p) for p in paths}
        return
    from judges.cargo_scores import cargo_line
    from judges.run_record import FORMAT_VERSION, RUN_JSON
    from orgbench.core.storage import dumps, write_json, write_text_atomic

    grouped: dict[str, tuple[dict[str, Any], dict[tuple, Any], list[Path]]] = {}
    for path in sorted(logs):
        judge, bound, judgments = _read(path)
        parameters, locations = dict(bound.get("parameters") or {}), dict(bound.get("locations") or {})
        record, rows, sources = grouped.setdefault(judge, ({"parameters": parameters, "locations": locations},
                                                           {}, []))
        sources.append(path)
        if parameters.get("suite_digest") != record["parameters"].get("suite_digest"):
            raise InputError(f"{path}: judged another suite than {sources[0]} (suite digests differ)")
        record["parameters"]["conditions"] = sorted(set(record["parameters"].get("conditions", []))
                                                    | set(parameters.get("conditions", [])))
        for judgment in judgments:
            if judgment.key in rows:
                raise InputError(f"{path}: item {judgment.item_id} condition {judgment.condition} seed "
                                 f"{judgment.seed} is also in {sources[0]}; give each log once")
            rows[judgment.key] = judgment
    with tempfile.TemporaryDirectory(prefix="orgbench-inspect-") as tmp:
        runs: dict[Path, Path] = {}
        for number, (judge, (record, rows, sources)) in enumerate(sorted(grouped.items())):
            run_dir = Path(tmp) / f"run-{number}"
            run_dir.mkdir()
            write_json(run_dir / RUN_JSON, {"format_version": FORMAT_VERSION, "judge": judge,
                                            "backend": {"kind": "inspect", "model": judge.removeprefix("inspect:")},
                                            **record, "inspect_logs": [str(s) for s in sources]})
            write_text_atomic(run_dir / "judgments.jsonl",
                              "".join(dumps(cargo_line(rows[key])) + "\n" for key in sorted(rows)))
            runs.update({source: run_dir for source in sources})
        yield {Path(p): runs.get(Path(p), Path(p)) for p in paths}


def run_dirs(paths: Sequence[Path], run_of: dict[Path, Path]) -> list[Path]:
    """The run directories of ``paths`` in order: each run as given, the logs of one model once (at its first log)."""
    out: list[Path] = []
    for path in map(Path, paths):
        run = run_of[path]
        if not (is_inspect_log(path) and run in out):
            out.append(run)
    return out
