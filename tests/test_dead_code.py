"""No definition nothing names: each top-level function and class of the four packages is named somewhere else.

"Somewhere else" is any word of the tracked source, tests, benchmarks, docs and data files (an entry point's
``module:attr`` counts), other than the definition itself; results/ is left out (it is output).
"""

from __future__ import annotations

import ast
import re
import subprocess
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("orgbench", "simulator", "benchmark_builders", "judges")
TEXT = (".py", ".toml", ".md", ".j2", ".json", ".yaml", ".cfg", ".txt", ".pyi")


def test_every_top_level_definition_is_named_somewhere_else():
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.splitlines()
    words: Counter[str] = Counter()
    for name in listed:
        path = ROOT / name
        if path.suffix in TEXT and not name.startswith(("results/", "results-local/")) and path.is_file():
            words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", path.read_text("utf-8", errors="replace")))
    unnamed = []
    for name in listed:
        if name.endswith(".py") and name.startswith(PACKAGES) and (ROOT / name).is_file():
            for node in ast.parse((ROOT / name).read_bytes()).body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and words[node.name] <= 1:
                    unnamed.append(f"{name}:{node.lineno} {node.name}")
    assert unnamed == []
