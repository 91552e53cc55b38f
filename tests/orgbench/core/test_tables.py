"""The one table type: one LaTeX escape rule, and the same table as Markdown, CSV and LaTeX."""

from __future__ import annotations

import pytest

from orgbench.core.errors import FormatError
from orgbench.core.tables import Table, latex_escape, write_table


@pytest.mark.parametrize("text, latex", [
    ("\\", "\\textbackslash{}"), ("#", "\\#"), ("$", "\\$"), ("%", "\\%"), ("&", "\\&"), ("_", "\\_"),
    ("{", "\\{"), ("}", "\\}"), ("~", "\\textasciitilde{}"), ("^", "\\textasciicircum{}"),
    ("–", "--"), ("—", "---"), ("≥", "$\\geq$"), ("τ", "$\\tau$"), ("Δ", "$\\Delta$"),
    ("café naïve Zürich 東京", "café naïve Zürich 東京"),     # other non-ASCII is written as it is (UTF-8 LaTeX)
])
def test_each_special_character_has_one_escape(text, latex):
    assert latex_escape(text) == latex


def test_escapes_are_applied_once_so_an_escape_is_never_escaped_again():
    assert latex_escape("\\{50% & $5_x}") == "\\textbackslash{}\\{50\\% \\& \\$5\\_x\\}"
    assert latex_escape("a ~ b ^ c τ") == "a \\textasciitilde{} b \\textasciicircum{} c $\\tau$"
    assert latex_escape(0.5) == "0.5"


def _table() -> Table:
    return Table.from_lists(["judge", "cond_ition", "rate"], [["paper: gpt", "a&b", 0.25], ["ours #1", "x", 1.0]],
                            title="Rates – 100% of items", notes=("τ is the threshold",))


def test_markdown_csv_and_latex_of_one_table():
    table = _table()
    assert table.to_markdown() == ("### Rates – 100% of items\n\n| judge | cond_ition | rate |\n|---|---|---|\n"
                                   "| paper: gpt | a&b | 0.250 |\n| ours #1 | x | 1.000 |\n\nτ is the threshold\n")
    assert table.to_csv() == "judge,cond_ition,rate\npaper: gpt,a&b,0.250\nours #1,x,1.000\n"
    assert table.to_latex() == (
        "\\begin{table}[t]\n\\centering\n\\small\n\\begin{tabular}{llr}\n\\toprule\n"
        "judge & cond\\_ition & rate \\\\\n\\midrule\npaper: gpt & a\\&b & 0.250 \\\\\nours \\#1 & x & 1.000 \\\\\n"
        "\\bottomrule\n\\end{tabular}\n\\caption{Rates -- 100\\% of items. $\\tau$ is the threshold}\n\\end{table}\n")
    top = table.to_latex(caption_first=True, small=False)
    assert top.splitlines()[:3] == ["\\begin{table}[t]", "\\centering",
                                    "\\caption{Rates -- 100\\% of items. $\\tau$ is the threshold}"]


def test_csv_reads_back_to_the_same_table_and_write_table_writes_three_files(tmp_path):
    table = _table()
    assert Table.from_csv(table.to_csv(), "t.csv").rows == table.rows
    written = write_table(tmp_path, "rates", table, heading="", latex={"caption_first": True})
    assert [p.name for p in written] == ["rates.md", "rates.csv", "rates.tex"]
    assert (tmp_path / "rates.md").read_text(encoding="utf-8").startswith("Rates – 100% of items\n\n| judge |")


def test_a_csv_written_elsewhere_is_read_with_quotes_and_crlf():
    text = 'source,"note, with comma",n\r\n"paper (J0)","said ""no""",30\r\nours,,1\r\n'
    table = Table.from_csv(text, "other.csv")
    assert table.columns == ("source", "note, with comma", "n")
    assert table.rows == (("paper (J0)", 'said "no"', "30"), ("ours", "", "1"))


def test_a_ragged_csv_is_a_format_error_naming_the_line():
    with pytest.raises(FormatError, match=r"^t\.csv:3: has 2 cells, the header 3$"):
        Table.from_csv("a,b,c\n1,2,3\n1,2\n", "t.csv")
    with pytest.raises(ValueError, match="row 1 has 2 cells for 3 columns"):
        Table(("a", "b", "c"), (("1", "2"),))


def test_a_pipe_or_line_break_in_a_cell_cannot_break_the_markdown_table():
    table = Table(("model | size", "note"), (("a|b", "line one\nline two"),))
    assert table.to_markdown() == "| model \\| size | note |\n|---|---|\n| a\\|b | line one<br>line two |\n"
    assert Table.from_csv(table.to_csv(), "t.csv") == table          # CSV keeps them, quoted
    assert "a\\textbar{}b" in table.to_latex()                         # the text-mode bar, not the math one
