"""The hand-assembled reports write their Markdown tables through the one Table type, so a cell's ``|`` is escaped.

Each report is rendered from a record whose names hold a pipe; the table keeps its column count (every row has as
many unescaped pipes as the header) and shows the name with the pipe escaped.
"""

from __future__ import annotations

import re
import types

import pyarrow as pa

from benchmark_builders.export.hf_card import render_card
from benchmark_builders.export.hf_configs import INPUT
from judges.groundeval.comparison import agent_comparison_markdown
from orgbench.sweep.combine import _summary


def _table_rows(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("|")]


def _cells(line: str) -> int:
    return len(re.findall(r"(?<!\\)\|", line)) - 1


def _rectangular(text: str) -> bool:
    rows = _table_rows(text)
    return bool(rows) and len({_cells(row) for row in rows}) == 1


def test_the_sweep_summary_escapes_a_pipe_in_an_agent_name():
    lines = _summary([("groundeval", "w", (0,), "a|b", "tool", "all", "s_adj", 0.5)])
    text = "\n".join(lines)
    assert _rectangular(text) and "a\\|b" in text
    assert lines[2] == "| groundeval | a\\|b | tool | s_adj | 0.500 | 1 |"


def test_the_agent_comparison_escapes_a_pipe_in_a_question_id():
    result = {"runs": [{"agent": "a", "mode": "tool", "run": "r1"}, {"agent": "b", "mode": "tool", "run": "r2"}],
              "scoring": "orgbench-2", "resamples": 10, "seed": 0,
              "summary": {"perspective": {"n": 1, "s_adj_a": 0.5, "s_adj_b": 1.0, "delta": 0.5, "ci": [0.0, 1.0]}},
              "questions": [{"question_id": "q|1", "track": "perspective", "s_adj_a": 0.5, "s_adj_b": 1.0, "delta": 0.5,
                             "answer": "fixed", "new_gates": [], "calls": None}],
              "fixed": ["q|1"], "regressed": [], "new_gates": []}
    text = agent_comparison_markdown(result)
    assert "| q\\|1 | perspective | 0.5000 | 1.0000 | +0.5000 | fixed | – | – |" in text
    assert "| perspective | 1 | 0.5000 | 1.0000 | +0.5000 | [+0.0000, +1.0000] |" in text


def test_the_dataset_card_escapes_a_pipe_in_a_config_description():
    column = types.SimpleNamespace(name="item_id", about="the id")


    config = types.SimpleNamespace(
        spec=types.SimpleNamespace(name="items", role=INPUT, about="the items | shown", file="items.parquet"),
        rows=1234, columns=[(column, pa.string())], schema=pa.schema([("item_id", pa.string())]),
        path="data/items.parquet", file="items.parquet", nbytes=100)
    card = render_card("cargo", [config], {"source_manifest_sha256": "ab" * 32})
    assert "| `items` | 1,234 | input (shown to the model under test) | the items \\| shown |" in card
