"""Every sentence of README.md, docs/*.md and docs/spec/*.md that states a figure, and what holds it true.

A *unit* is a sentence of prose, a list item, a table row or a command's comment in a code block (the rest of a code
block is dropped). Its *figures* are the numerals
left once the spans that name rather than state are taken out (``NAMING``: inline code, link targets, family and
metric names, issue and session numbers, numbered headings …, each with its reason). Every unit with a figure must
be keyed in ``REGISTRY`` by a short quote of it, as one of:

- ``result``: a figure of results/, recomputed by the named test;
- ``measured``: a measured time or size, compared by the named test with a benchmark's record in
  benchmarks/measured/ (written by its ``--record``);
- ``design``: a constant of the design (a default, a seed, a schema version), compared by the named test with the
  code constant it names;
- ``tested``: a property of the code's behaviour (a score it gives, a bound it enforces, a code it answers with),
  asserted by the named test (``path::name``);
- ``paper``: a figure quoted from one of the three papers (docs/spec/ and the report print them beside ours; the
  papers are in /work/shared/papers, outside the repository, so no test reads them);
- ``history``: a figure of an earlier state, told as history (not in results/, so nothing can recompute it);
- ``example``: not a claim (an example value, a format, a unit), with its reason;
- ``unchecked``: a stated figure no test ties to a source yet, listed so that it is counted; their number may only
  fall (``UNCHECKED_AT_MOST`` in test_doc_claims.py).

``test_doc_claims.py::test_every_sentence_stating_a_figure_is_registered`` fails on a unit with a figure that no
key matches, on a key that matches no unit, and on a check that names no test.

List them: ``python -m tests.orgbench.doc_figures [--class CLASS] [--counts]``; ``--suggest`` prints a registry line for each
unit no key quotes yet (a quote that is unique in its file), to paste and then classify.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Spans that name a thing rather than state a figure of it, each taken out before numerals are looked for.
NAMING: tuple[tuple[str, str], ...] = (
    (r"```.*?```", "a code block: commands and outputs shown, not stated"),
    (r"`[^`\n]*`", "inline code: a command, flag, path, key or value as typed"),
    (r"\]\([^)]*\)", "a link's target"),
    (r"https?://\S+", "a URL"),
    (r"arXiv:\d+\.\d+", "a paper's arXiv id"),
    (r"^#+ \d+\.", "a numbered heading"),
    (r"^\s*\d+\.\s", "a numbered list's marker"),
    (r"\b[Pp][0-4]\b", "CARGO's families and the assurance controls P0-P3, by name"),
    (r"P[0-4]\s*(?:\.\.|[-–])\s*P?[0-4]", "a range of families or controls by name"),
    (r"\b(?:[Ii]ssues?|[Ss]ession|[Oo]bligations?|[Rr]evision|[Tt]ables?|[Ff]igure|[Ss]tep|§)[- ]?\d+(?:\s*(?:[-–,]|and)\s*\d+)*",
     "an issue, session, obligation, revision, table, figure, step or section by its number"),
    (r"\b(?:Python|CPython|LangGraph|datasets|Unicode)\s?[\d.]+x?\b|\bv\d+(?:\.\d+)*\b", "a software version pinned"),
    (r"\b[A-Za-z][A-Za-z_]*\d\w*(?:-[\w.]+)*", "a name with a digit in it (jinja2, tau2, gemma3-270m, P5, x86_64)"),
    (r"\bU\+[0-9A-F]{4,5}\b", "a Unicode code point by name"),
    (r"\b(?:SHA-256|ed25519|PKCS#8|UTF-(?:8|16)|RFC \d+|ext4|SEV[1-3]|top-[12]|L[12]|F1|F_[EC]|J0|G\d?|ISO 8601)\b",
     "a standard, algorithm, severity or measure by name"),
    (r"\b(?:gpt-oss-120b|SmolLM2-135M|smollm2|Gemma 3 270M|Qwen[\w.-]*|Llama[\w.-]*)\b", "a model's name"),
    (r"\bApache-2\.0\b", "a licence by its SPDX name"),
    (r"\b[Ll]evel[- ][12]\b", "a support tier by name (level 1, level 2: the L1 and L2 teams)"),
    (r"\b[1-5]xx\b", "an HTTP status class by name"),
    (r"\b(?:CASE|ACC|AST|CON|HR|P|ESC|INC|CHG|CH|ACT|T)-\d+\b", "an example record id"),
    (r"\bS_(?:adj|answer|traj|decision|verify)\b|\bw_[at]\b", "a score's name"),
    (r"(?i)\bexit(?:s| code(?: is)?)? (?:0|1|2|3|4|130)\b(?:[ ,;]+(?:0|1|2|3|4|130)\b)*",
     "an exit code: the CLI's contract, asserted by tests/orgbench/test_cli_errors.py and each command's tests"),
    (r"(?<=, )20\d\d(?=[.,])", "a paper's year in its citation"),
    (r"\b(?:19|20)\d\d-\d\d-\d\d(?:T[\d:]+Z?)?", "a date or time given as an example or as when a figure was measured"),
)


@dataclass(frozen=True)
class Unit:
    """One sentence, list item or table row of a doc."""

    path: str
    line: int
    text: str

    def figures(self) -> list[str]:
        """The numerals the unit states once naming spans are taken out."""
        return re.findall(r"\d[\d,.]*", stated(self.text))


def stated(text: str) -> str:
    """``text`` without the spans in ``NAMING``."""
    for pattern, _ in NAMING[1:]:
        text = re.sub(pattern, " ", text, flags=re.M)
    return text


def docs() -> list[Path]:
    """README.md, docs/*.md and docs/spec/*.md."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs" / "spec").glob("*.md"))]


def units(path: Path) -> list[Unit]:
    """``path``'s sentences, list items and table rows, code blocks dropped, each with its first line."""
    name = path.relative_to(ROOT).as_posix()
    lines = path.read_text(encoding="utf-8").splitlines()
    out: list[Unit] = []
    block: list[tuple[int, str]] = []
    fenced = False

    def flush() -> None:
        if not block:
            return
        first, text = block[0][0], " ".join(" ".join(line.split()) for _, line in block)
        marker = ""
        for sentence in re.split(r"(?<=[.!?:;])\s+(?=[A-Z(*\"“])", text):
            if re.fullmatch(r"\d+\.", sentence):          # a numbered item's marker opens the next sentence
                marker = sentence + " "
                continue
            out.append(Unit(name, first, marker + sentence))
            marker = ""
        block.clear()

    for number, line in enumerate(lines, 1):
        if line.lstrip().startswith("```"):
            flush()
            fenced = not fenced
            continue
        if fenced:                                   # a command's comment states what it does
            comment = re.search(r"\s#\s+(.+)$", line)
            if comment:
                out.append(Unit(name, number, "# " + comment.group(1).strip()))
            continue
        if not line.strip() or line.lstrip().startswith(("|", "#", "- ", "* ", ">")) or re.match(r"\s*\d+\.\s", line):
            flush()
        if line.lstrip().startswith("|"):
            if not re.fullmatch(r"\s*\|[-:| ]+\|\s*", line):
                out.append(Unit(name, number, " ".join(line.split())))
            continue
        if line.lstrip().startswith("#"):
            out.append(Unit(name, number, line.strip()))
            continue
        if line.strip():
            block.append((number, line))
    flush()
    return out


def stating() -> list[Unit]:
    """Every unit of every doc that states a figure."""
    return [unit for path in docs() for unit in units(path) if unit.figures()]


def classify(unit: Unit, registry: dict[str, dict[str, tuple[str, str]]]) -> list[str]:
    """The keys of ``unit``'s file in ``registry`` that quote ``unit``."""
    flat = " ".join(unit.text.split())
    return [quote for quote in registry.get(unit.path, {}) if quote in flat]


def quote(unit: Unit) -> str:
    """A short quote of ``unit`` that no other unit of its file contains: words around its first figure."""
    texts = [" ".join(u.text.split()) for u in units(ROOT / unit.path)]
    words = " ".join(unit.text.split()).split(" ")
    first = next((k for k, word in enumerate(words) if re.search(r"\d", stated(word))), 0)
    start, end = max(0, first - 3), min(len(words), first + 2)
    while sum(" ".join(words[start:end]) in text for text in texts) > 1 and (start, end) != (0, len(words)):
        start, end = (start, end + 1) if end < len(words) else (start - 1, end)
    return " ".join(words[start:end])


def main() -> None:
    """List the units that state a figure, with their class, or count them per file and class."""
    from tests.orgbench.doc_registry import REGISTRY

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--class", dest="kind", default=None, help="only units of this class (or 'none')")
    parser.add_argument("--counts", action="store_true", help="counts per file and class only")
    parser.add_argument("--suggest", action="store_true",
                        help="registry lines for the units no key quotes, to paste into doc_registry.py and classify")
    args = parser.parse_args()
    if args.suggest:
        for unit in stating():
            if not classify(unit, REGISTRY):
                print(f"{unit.path}:{unit.line}: {quote(unit)!r}: (\"CLASS\", \"TEST OR REASON\"),")
        return
    counts: Counter[tuple[str, str]] = Counter()
    for unit in stating():
        keys = classify(unit, REGISTRY)
        kind = REGISTRY[unit.path][keys[0]][0] if keys else "none"
        counts[unit.path, kind] += 1
        if not args.counts and args.kind in (None, kind):
            print(f"{unit.path}:{unit.line}: [{kind}] {unit.text}")
    if args.counts:
        kinds = sorted({k for _, k in counts})
        print("file".ljust(32), *(k.rjust(10) for k in kinds), "total".rjust(7))
        for path in dict.fromkeys(p for p, _ in counts):
            print(path.ljust(32), *(str(counts[path, k]).rjust(10) for k in kinds),
                  str(sum(counts[path, k] for k in kinds)).rjust(7))
        print("all".ljust(32), *(str(sum(v for (_, k2), v in counts.items() if k2 == k)).rjust(10) for k in kinds),
              str(sum(counts.values())).rjust(7))


if __name__ == "__main__":
    main()
