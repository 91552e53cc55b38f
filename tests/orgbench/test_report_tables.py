"""The report's tables are read through the one table type; the fault matrix shows each cell's own stop."""

from __future__ import annotations

import pytest

from orgbench.core.errors import FormatError

FAULTS = ("case,injection_point,control,reached_judge,stopped_at,stopped_by,paper_first_stop\n"
          "c1,build,P0,true,,,P1: build\n"
          "c1,build,P1,false,build,calls-rendered,P1: build\n"
          "c2,stage,P0,false,stage,staged-files-exact,P2: before dispatch\n"
          "c2,stage,P1,false,dispatch,read-time-bytes,P2: before dispatch\n")


def test_the_fault_matrix_names_the_check_that_stopped_each_cell(tmp_path):
    from orgbench.report import _fault_matrix

    path = tmp_path / "faults.csv"
    path.write_text(FAULTS, encoding="utf-8")
    matrix = _fault_matrix(path)
    assert matrix["header"] == ["case", "P0", "P1", "paper: first stop"]
    assert [[c["text"] for c in row["cells"]] for row in matrix["rows"]] == [
        ["c1", "reached judge", "stopped: build (calls-rendered)", "P1: build"],
        ["c2", "stopped: stage (staged-files-exact)", "stopped: dispatch (read-time-bytes)", "P2: before dispatch"],
    ]


def test_a_ragged_results_csv_is_one_line_naming_file_and_line(tmp_path):
    from orgbench.report import _fault_matrix

    path = tmp_path / "faults.csv"
    path.write_text(FAULTS + "c3,build,P0\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"faults\.csv:6: has 3 cells, the header 7"):
        _fault_matrix(path)
