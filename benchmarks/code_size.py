"""Size of the code outside tests/: files over 400 lines, functions over 80 lines, repeated places.

Prints one JSON object. ``--root DIR`` measures another checkout (e.g. an
exported commit: ``git archive edb3aae | tar -x -C /tmp/main``); repeated
places are the ``duplicates`` command's pairs (six or more identical or
same-shape lines) with neither side under tests/.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import shutil
import subprocess
from pathlib import Path

FILE_LIMIT = 400
FUNCTION_LIMIT = 80
SKIP = {"tests", ".venv", ".git", "build", "results", "results-local"}


def source_files(root: Path) -> list[Path]:
    """Every .py file of the checkout outside tests/ (and outside virtualenvs, build and results folders)."""
    return sorted(p for p in root.rglob("*.py")
                  if not SKIP & set(p.relative_to(root).parts) and "egg-info" not in str(p))


def long_functions(path: Path, root: Path) -> list[dict[str, object]]:
    """Functions and methods of ``path`` longer than FUNCTION_LIMIT lines (decorators not counted)."""
    tree = ast.parse(path.read_bytes(), filename=str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > FUNCTION_LIMIT:
                out.append({"where": f"{path.relative_to(root).as_posix()}:{node.lineno}", "name": node.name,
                            "lines": length})
    return out


def duplicate_pairs(root: Path) -> list[str]:
    """The ``duplicates`` rows whose two places are both outside tests/ (empty if the command is missing)."""
    if shutil.which("duplicates") is None:
        return []
    text = subprocess.run(["duplicates", "--repo", str(root), "--most", "200", "--seconds", "120"],
                          capture_output=True, text=True, check=False).stdout
    rows = []
    for line in text.splitlines():
        match = re.match(r"^D\d+ (\S+):\S+ ~ (\S+):\S+", line)
        if match and not any(side.startswith("tests/") for side in match.groups()):
            rows.append(line)
    return rows


def measure(root: Path) -> dict[str, object]:
    """The three counts and what makes them up."""
    files = source_files(root)
    big = [{"file": p.relative_to(root).as_posix(), "lines": len(p.read_bytes().splitlines())} for p in files]
    big = [entry for entry in big if entry["lines"] > FILE_LIMIT]
    functions = [f for p in files for f in long_functions(p, root)]
    pairs = duplicate_pairs(root)
    return {"root": str(root), "source_files": len(files),
            "files_over_400_lines": len(big), "functions_over_80_lines": len(functions),
            "functions_over_100_lines": sum(f["lines"] > 100 for f in functions),
            "duplicate_pairs_outside_tests": len(pairs),
            "files": big, "functions": sorted(functions, key=lambda f: -f["lines"]), "pairs": pairs}


def main() -> None:
    """Print the measurement of ``--root`` (default: this checkout) as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    print(json.dumps(measure(parser.parse_args().root.resolve()), indent=2))


if __name__ == "__main__":
    main()
