"""The one table type: a titled grid of text cells, written as Markdown, CSV and LaTeX, read back for the report.

Every study builds its tables as :class:`Table` and writes them with
``to_markdown`` / ``to_csv`` / ``to_latex`` (or ``write_table`` for all three);
the HTML report reads the CSV back with ``Table.from_csv``. Each format
escapes its own special characters: a Markdown cell (``markdown_cell``) its
pipes and line breaks, CSV by quoting, and LaTeX by one rule,
``latex_escape``: the ten special characters are escaped and the few non-ASCII
signs the tables use become their LaTeX spelling; any other character
(accented letters, say) is written as it is, for a UTF-8 document.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping, Sequence

from orgbench.core.errors import FormatError
from orgbench.core.storage import write_text_atomic

__all__ = ["LATEX_ESCAPES", "Table", "format_cell", "latex_escape", "markdown_cell", "write_table"]

#: Each character LaTeX treats specially, and each non-ASCII sign the tables use, with what is written instead.
LATEX_ESCAPES: Mapping[str, str] = {
    "\\": "\\textbackslash{}", "#": "\\#", "$": "\\$", "%": "\\%", "&": "\\&", "_": "\\_",
    "{": "\\{", "}": "\\}", "~": "\\textasciitilde{}", "^": "\\textasciicircum{}", "|": "\\textbar{}",
    "–": "--", "—": "---", "≥": "$\\geq$", "≤": "$\\leq$", "τ": "$\\tau$", "×": "$\\times$", "±": "$\\pm$",
    "→": "$\\rightarrow$", "−": "$-$", "Δ": "$\\Delta$",
}
_LATEX_TABLE = str.maketrans(dict(LATEX_ESCAPES))


def latex_escape(text: Any) -> str:
    """``text`` (made a string) safe in LaTeX running text: every character of ``LATEX_ESCAPES`` replaced, once."""
    return str(text).translate(_LATEX_TABLE)


def markdown_cell(text: str) -> str:
    """``text`` safe in a Markdown table cell: a pipe escaped (``\\|``), a line break written ``<br>``."""
    return text.replace("|", "\\|").replace("\r\n", "<br>").replace("\n", "<br>")


def format_cell(value: Any, float_format: str = ".3f") -> str:
    """A cell's text: floats with ``float_format``, anything else as ``str``."""
    return format(value, float_format) if isinstance(value, float) else str(value)


@dataclass(frozen=True)
class Table:
    """A table: column names, rows of text cells, a title, and notes (Markdown lines after it, LaTeX caption text).

    ``align`` is the LaTeX column spec (default: ``l`` for ``text_columns`` leading columns, ``r`` after);
    ``latex_header`` holds column names already written in LaTeX (``{"tau": "$\\tau$"}``).
    """

    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    title: str = ""
    notes: tuple[str, ...] = ()
    text_columns: int = 2
    align: str | None = None
    latex_header: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "columns", tuple(self.columns))
        object.__setattr__(self, "rows", tuple(tuple(row) for row in self.rows))
        for number, row in enumerate(self.rows, start=1):
            if len(row) != len(self.columns):
                raise ValueError(f"row {number} has {len(row)} cells for {len(self.columns)} columns")

    @staticmethod
    def from_records(columns: Sequence[str], records: Sequence[Mapping[str, Any]], **options: Any) -> "Table":
        """A table of ``records`` (mappings keyed by column name), each cell formatted by ``format_cell``."""
        return Table(tuple(columns), tuple(tuple(format_cell(r[c]) for c in columns) for r in records), **options)

    @staticmethod
    def from_lists(columns: Sequence[str], rows: Sequence[Sequence[Any]], **options: Any) -> "Table":
        """A table of ``rows`` (sequences in column order), each cell formatted by ``format_cell``."""
        return Table(tuple(columns), tuple(tuple(format_cell(v) for v in row) for row in rows), **options)

    @staticmethod
    def from_csv(text: str, source: str | Path, title: str = "") -> "Table":
        """Read a CSV table back (header first); FormatError naming ``source`` if it is not a rectangular CSV."""
        try:
            grid = list(csv.reader(io.StringIO(text, newline="")))
        except csv.Error as exc:
            raise FormatError(source, f"not a CSV table ({exc})") from None
        if not grid:
            return Table((), (), title)
        width = len(grid[0])
        ragged = next((n for n, row in enumerate(grid[1:], start=2) if len(row) != width), None)
        if ragged is not None:
            raise FormatError(source, f"has {len(grid[ragged - 1])} cells, the header {width}", line=ragged)
        return Table(tuple(grid[0]), tuple(tuple(row) for row in grid[1:]), title)

    def with_rows(self, rows: Sequence[Sequence[str]]) -> "Table":
        """The same table (columns, title, notes, layout) with other rows."""
        return replace(self, rows=tuple(tuple(row) for row in rows))

    def records(self) -> list[dict[str, str]]:
        """The rows as mappings keyed by column name."""
        return [dict(zip(self.columns, row)) for row in self.rows]

    def to_markdown(self, *, heading: str = "### ") -> str:
        """A Markdown table: the title (after ``heading``; none without a title) and a blank line, then notes."""
        lines = [f"{heading}{self.title}", ""] if self.title else []
        lines += ["| " + " | ".join(map(markdown_cell, self.columns)) + " |", "|" + "---|" * len(self.columns)]
        lines += ["| " + " | ".join(map(markdown_cell, row)) + " |" for row in self.rows]
        if self.notes:
            lines += ["", *self.notes]
        return "\n".join(lines) + "\n"

    def to_csv(self) -> str:
        """The table as CSV: header first, LF line ends, quoting only where needed."""
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(self.columns)
        writer.writerows(self.rows)
        return buffer.getvalue()

    def to_latex(self, *, caption: str | None = None, caption_first: bool = False, small: bool = True) -> str:
        """A booktabs LaTeX table; the caption is the title and notes (or ``caption``), escaped by ``latex_escape``.

        ``caption`` may be given already in LaTeX (it is then written as it is).
        """
        spec = self.align or "l" * self.text_columns + "r" * (len(self.columns) - self.text_columns)
        if caption is None:
            caption = ". ".join(latex_escape(part) for part in (self.title, *self.notes) if part)
        head = ["\\begin{table}[t]", "\\centering"]
        head += [f"\\caption{{{caption}}}"] if caption_first else []
        head += ["\\small"] if small else []
        lines = [*head, f"\\begin{{tabular}}{{{spec}}}", "\\toprule",
                 " & ".join(self.latex_header.get(c) or latex_escape(c) for c in self.columns) + " \\\\", "\\midrule"]
        lines += [" & ".join(latex_escape(c) for c in row) + " \\\\" for row in self.rows]
        lines += ["\\bottomrule", "\\end{tabular}"]
        lines += [] if caption_first else [f"\\caption{{{caption}}}"]
        return "\n".join([*lines, "\\end{table}"]) + "\n"


def write_table(directory: Path, stem: str, table: Table, *, heading: str = "### ",
                latex: Mapping[str, Any] | None = None) -> list[Path]:
    """Write ``stem``.md, .csv and .tex of ``table`` atomically into ``directory``; returns the three paths.

    ``latex`` holds ``to_latex``'s options.
    """
    texts = ((".md", table.to_markdown(heading=heading)), (".csv", table.to_csv()),
             (".tex", table.to_latex(**dict(latex or {}))))
    written = []
    for suffix, text in texts:
        write_text_atomic(Path(directory) / f"{stem}{suffix}", text)
        written.append(Path(directory) / f"{stem}{suffix}")
    return written
