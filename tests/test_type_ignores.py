"""Every ``# type: ignore[code]`` in the four packages, pinned: a new one is added here on purpose, with its reason."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

IGNORES = {
    ("orgbench/prose/rewrite.py", "arg-type"),
    ("simulator/artifacts.py", "call-overload"),             # a draft slot emptied once its context is used
    ("simulator/org.py", "assignment"),                      # the org's cache typed for its other values
    ("simulator/org.py", "return-value"),
    ("benchmark_builders/cargo/records.py", "arg-type"),
    ("judges/run_log.py", "union-attr"),
    ("judges/groundeval/submissions.py", "arg-type"),
}


def test_every_type_ignore_is_listed():
    found = set()
    for package in ("orgbench", "simulator", "benchmark_builders", "judges"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for code in re.findall(r"# type: ignore\[([a-z-]+)\]", path.read_text("utf-8")):
                found.add((path.relative_to(ROOT).as_posix(), code))
            assert "# type: ignore\n" not in path.read_text("utf-8"), f"{path}: a bare type: ignore"
    assert found == IGNORES
