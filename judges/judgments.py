"""The judgments log: one ``Judgment`` a line per (item_id, condition, seed), read strictly, recovered after a kill.

``Judgment`` is the record (``to_json`` / ``from_json``); a study may add
fields of its own to the lines it writes (CARGO adds ``penalized``, see
``judges.cargo_scores``). ``scan_log`` reads a log for resuming without
touching it and ``write_log`` / ``recover_log`` then rewrite it (a torn last
line, error lines and duplicates dropped); ``load_judgments`` reads a finished
or interrupted run for tables and reports; ``sort_log`` gives the final,
byte-stable order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from judges.backends.base import JudgeResponse, Usage
from judges.journal import Journal
from judges.verdict import Verdict, parse_verdict
from orgbench.core.errors import FormatError, InputError
from orgbench.core.jsonl import read_jsonl

JUDGMENTS = "judgments.jsonl"

JobKey = tuple[str, str, int]


@dataclass(frozen=True, slots=True)
class Judgment:
    """One judgment: its key, the request it answered, the judge's response and parsed verdict, or an error."""

    item_id: str
    condition: str
    seed: int
    usage: Usage = field(default_factory=Usage)     # the tokens it cost (none for an error)
    request_hash: str | None = None
    model: str | None = None
    response: str | None = None
    verdict: Verdict | None = None
    error: str | None = None

    @property
    def key(self) -> JobKey:
        """The (item_id, condition, seed) that names this judgment in the log."""
        return (self.item_id, self.condition, self.seed)

    @property
    def penalized(self) -> bool | None:
        """True when the judge failed the answer, False when it passed it, None otherwise (undecided or error)."""
        return None if self.error or self.verdict is None else self.verdict.penalized

    @staticmethod
    def answered(key: JobKey, request_hash: str, response: JudgeResponse) -> "Judgment":
        """The judgment a response gives (its verdict parsed; ``unparsed`` when it holds none)."""
        return Judgment(*key, response.usage, request_hash, response.model, response.text, parse_verdict(response.text))

    @staticmethod
    def failed(key: JobKey, request_hash: str, error: str | None) -> "Judgment":
        """The judgment of a request that got no answer."""
        return Judgment(*key, request_hash=request_hash, error=error or "no response")

    def to_json(self) -> dict[str, Any]:
        """The judgment as a log line."""
        return {"item_id": self.item_id, "condition": self.condition, "seed": self.seed,
                "request_hash": self.request_hash, "model": self.model, "response": self.response,
                "verdict": None if self.verdict is None else self.verdict.to_json(),
                "usage": self.usage.to_json(), "error": self.error}

    @staticmethod
    def from_json(row: Any, path: Path | str, line: int | None = None) -> "Judgment":
        """A log line as a Judgment; FormatError naming ``path:line`` and the problem when it is not one."""
        problem = _judgment_problem(row)
        if problem is not None:
            raise FormatError(path, problem, line=line)
        try:
            verdict = None if row.get("verdict") is None else Verdict.from_json(row["verdict"])
        except ValueError as exc:
            raise FormatError(path, f"field 'verdict' malformed: {exc}", line=line) from None
        try:
            usage = Usage.from_json(row.get("usage"))
        except ValueError as exc:
            raise FormatError(path, f"field 'usage' malformed: {exc}", line=line) from None
        return Judgment(row["item_id"], row["condition"], row["seed"], usage, _text(row, "request_hash"),
                        _text(row, "model"), _text(row, "response"), verdict, _text(row, "error"))


def _text(row: Mapping[str, Any], name: str) -> str | None:
    """A line's optional text field (None when missing or null)."""
    return None if row.get(name) is None else str(row[name])


def _row_key(row: Any, path: Path, number: int) -> JobKey:
    try:
        return (str(row["item_id"]), str(row["condition"]), int(row["seed"]))
    except (TypeError, KeyError, ValueError):
        raise InputError(f"{path}:{number}: a judgment needs item_id, condition and seed") from None


def journal(path: Path) -> Journal:
    """The judgments log as a journal: keyed by (item_id, condition, seed), bound by run.json, errors retried."""
    path = Path(path)
    return Journal(path, key=lambda row, number: _row_key(row, path, number),
                   resumable=lambda row: not row.get("error"))


def scan_log(path: Path) -> tuple[dict[JobKey, str], bool]:
    """Read a judgments log for resuming without changing it: the lines to keep by key, and whether to rewrite.

    Kept are the finished judgments; a torn last line, error lines, blank
    lines and repeated keys are left out (and make ``recover_log`` rewrite).
    """
    found = journal(path).recover()
    return found.lines, found.dirty


def write_log(path: Path, kept: dict[JobKey, str]) -> None:
    """Rewrite a judgments log atomically with only the ``kept`` lines (as ``scan_log`` returned them)."""
    journal(path).rewrite(kept.values())


def recover_log(path: Path) -> dict[JobKey, str]:
    """Prepare a judgments log for resuming (see ``scan_log``), rewriting it if anything was left out."""
    kept, rewrite = scan_log(path)
    if rewrite:
        write_log(path, kept)
    return kept


#: A study's own check of a log line it reads (the row and its Judgment): the problem, or None.
LineCheck = Callable[[Mapping[str, Any], Judgment], "str | None"]


RESUME = "run the same `orgbench judge` command again to resume the run (it keeps each judgment once)"


def load_judgments(run_dir: Path, check: LineCheck | None = None) -> list[Judgment]:
    """Every judgment of a run, in file order; a torn last line or a repeated key is refused, saying to resume.

    ``check`` is a study's own test of each line (CARGO's of its ``penalized`` field); its problem is
    reported as ``path:line: problem``, like a line that is not a judgment.
    """
    path = Path(run_dir) / JUDGMENTS
    if not path.exists():
        raise InputError(f"{path}: file not found")
    judgments: list[Judgment] = []
    seen: dict[JobKey, int] = {}
    read = read_jsonl(path, journal=True)
    lines = list(read)
    for number, row, *_ in lines:
        judgment = Judgment.from_json(row, path, number)
        problem = check(row, judgment) if check is not None else None
        if problem:
            raise FormatError(path, problem, line=number)
        if judgment.key in seen:
            raise FormatError(path, f"repeats the judgment of line {seen[judgment.key]} ({', '.join(map(str, judgment.key))}: "
                                    f"two writers, or a copy); {RESUME}", line=number)
        seen[judgment.key] = number
        judgments.append(judgment)
    if read.torn:
        raise FormatError(path, f"its last line is cut short (the run was killed while writing); {RESUME}",
                          line=(lines[-1].number + 1) if lines else 1)
    return judgments


def _judgment_problem(row: Any) -> str | None:
    """What makes ``row`` unusable as a judgment line (None when it is usable)."""
    if not isinstance(row, dict):
        return "not a JSON object"
    for name in ("item_id", "condition"):
        if not isinstance(row.get(name), str):
            return f"field {name!r} missing or not text"
    if not isinstance(row.get("seed"), int) or isinstance(row.get("seed"), bool):
        return "field 'seed' missing or not an integer"
    if not isinstance(row.get("verdict"), (dict, type(None))):
        return "field 'verdict' not an object or null"
    return None


def sort_log(path: Path) -> None:
    """Rewrite the log sorted by key (atomically), unless it already is."""
    journal(path).finish()
