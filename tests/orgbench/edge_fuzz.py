"""Malformed inputs for every command that reads a file, and how a command met each one.

``cases(fixtures)`` gives, per command, 25 variants of its input (one per
class in ``CLASSES``, applied to the file the command reads first); ``attempt``
runs one in-process (click's runner) under an alarm and classifies it:
``refused`` (exit 2, one ``error:`` line, last on stderr after any progress
lines, no traceback, nothing finished left in --out), or ``traceback``, ``hang``, ``exit 0``, ``other``. Used by
tests/orgbench/test_edge_fuzz.py and benchmarks/edge_fuzz.py (the table).
"""

from __future__ import annotations

import builtins
import errno
import io
import json
import os
import re
import shutil
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from click.testing import CliRunner

SIZES = ["--sizes", "P1=2,P3=2,P2=2,P4=2"]

#: The 25 variant classes. "content" classes rewrite the file and reseal its folder's manifest (so the reader
#: itself meets them, not only the manifest check); the others replace the file as it is.
CLASSES = ("missing", "empty", "truncated", "torn line", "duplicate rows", "wrong types", "NaN", "Infinity",
           "1e999", "huge int", "deep nesting", "FIFO", "symlink loop", "directory", "device", "binary garbage",
           "not UTF-8", "wrong kind", "unreadable (EACCES)", "top-level type", "empty record", "null record",
           "garbage line", "read-only out (EROFS)", "full disk (ENOSPC)")


class Hang(BaseException):
    """Raised by the alarm: the command did not finish in time."""


@dataclass(frozen=True)
class Case:
    """One command run on one malformed input."""

    command: str
    variant: str
    argv: tuple[str, ...]
    target: Path                 # the file made malformed
    out: Path                    # what the command would write (must not look finished afterwards)
    fault: str | None = None     # an OSError injected: "read" at target, "write" under out


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def _first_record(path: Path, fmt: str) -> dict:
    if fmt == "jsonl":
        return json.loads(_lines(path)[0])
    value = json.loads(path.read_text()) if fmt == "json" else {}
    return value if isinstance(value, dict) else {}


def _with_field(path: Path, fmt: str, literal: str) -> bytes:
    """The file with an extra field ``_x`` holding ``literal`` (raw JSON/TOML text) in its first record."""
    if fmt == "toml":
        return path.read_bytes() + f"\n[fuzz]\nvalue = {literal}\n".encode()
    text = (_lines(path)[0] if fmt == "jsonl" else path.read_bytes()).rstrip()
    changed = text[:-1] + b', "_x": ' + literal.encode() + b"}" if text.endswith(b"}") else b"[" + literal.encode() + b"]"
    return changed + b"\n" + (b"".join(_lines(path)[1:]) if fmt == "jsonl" else b"")


def _wrong_types(path: Path, fmt: str) -> bytes:
    if fmt == "toml":
        return re.sub(rb"= (.*)", rb"= [\1]", path.read_bytes())          # every value a list
    record = _first_record(path, fmt)
    broken = {k: ([] if isinstance(v, str) else "x" if isinstance(v, (int, float, list, dict)) else 7)
              for k, v in record.items()}
    text = json.dumps(broken).encode() + b"\n"
    return text + (b"".join(_lines(path)[1:]) if fmt == "jsonl" else b"")


def _content(variant: str, path: Path, fmt: str) -> bytes | None:
    """The malformed bytes of ``path`` for a content variant (None: not a content variant)."""
    data = path.read_bytes()
    lines = data.splitlines(keepends=True)
    first = lines[0] if lines else b"{}\n"
    table = {
        "empty": lambda: b"",
        "truncated": lambda: data[: max(1, len(data) * 2 // 5)],
        "torn line": lambda: data.rstrip(b"\n")[:-7] if fmt != "toml" else data + b"\n[world\nseed = ",
        "duplicate rows": lambda: data + first if fmt == "jsonl" else
        (data + b"\n" + data if fmt == "toml" else data.rstrip() + data),
        "wrong types": lambda: _wrong_types(path, fmt),
        "NaN": lambda: _with_field(path, fmt, "NaN" if fmt != "toml" else "nan"),
        "Infinity": lambda: _with_field(path, fmt, "Infinity" if fmt != "toml" else "inf"),
        "1e999": lambda: _with_field(path, fmt, "1e999"),
        "huge int": lambda: _with_field(path, fmt, "9" * 5000),
        "deep nesting": lambda: _with_field(path, fmt, "[" * 3000 + "]" * 3000),
        "binary garbage": lambda: bytes(range(256)) * 8,
        "not UTF-8": lambda: first.rstrip(b"\n")[:-2] + b'\xff\xfe"}\n' + b"".join(lines[1:]),
        "wrong kind": lambda: b"id,name\n1,two\n",
        "top-level type": lambda: b"[1, 2, 3]\n" if fmt != "toml" else b"= 3\n",
        "empty record": lambda: b"{}\n" + b"".join(lines[1:]) if fmt != "toml" else b"[world]\nseed =\n",
        "null record": lambda: b"null\n" + b"".join(lines[1:]) if fmt != "toml" else b"[world]\nseed = null\n",
        "garbage line": lambda: first + b"this is not a record\n" + b"".join(lines[1:]),
    }
    return table[variant]() if variant in table else None


def _reseal(path: Path) -> None:
    """Rewrite the MANIFEST.json of the folder holding ``path`` (if it has one), as a careful forger would."""
    from orgbench.core.storage import write_manifest

    folder = path.parent
    if (folder / "MANIFEST.json").is_file():
        write_manifest(folder)


def make_malformed(variant: str, path: Path, fmt: str) -> None:
    """Turn ``path`` into ``variant`` in place."""
    if variant == "missing":
        path.unlink()
    elif variant == "FIFO":
        path.unlink()
        os.mkfifo(path)
    elif variant == "symlink loop":
        path.unlink()
        os.symlink(path.name + ".loop", path)
        os.symlink(path.name, path.with_name(path.name + ".loop"))
    elif variant == "directory":
        path.unlink()
        path.mkdir()
        (path / "inside.txt").write_text("a folder where a file should be\n")
    elif variant == "device":
        path.unlink()
        os.symlink("/dev/zero", path)
    else:
        data = _content(variant, path, fmt)
        if data is not None:
            path.write_bytes(data)
            _reseal(path)


class Injected:
    """Make every open of ``target`` (reading) or every write under ``under`` (but the lock file) fail with ``code``."""

    def __init__(self, code: int, target: Path | None = None, under: Path | None = None) -> None:
        self.code, self.target, self.under = code, target, under
        self.saved: list = []

    def _hit(self, file, flags_or_mode) -> bool:
        try:
            path = Path(os.fsdecode(file)).absolute()
        except TypeError:
            return False
        writing = isinstance(flags_or_mode, int) and flags_or_mode & (os.O_WRONLY | os.O_RDWR | os.O_CREAT) or \
            isinstance(flags_or_mode, str) and any(c in flags_or_mode for c in "wax+")
        if self.target is not None and path == self.target.absolute() and not writing:
            return True
        return self.under is not None and bool(writing) and self.under.absolute() in path.parents and \
            not path.name.endswith(".lock")

    def __enter__(self) -> "Injected":
        real_open, real_os_open, real_mkdir = builtins.open, os.open, os.mkdir

        def fake_open(file, mode="r", *args, **kwargs):
            if self._hit(file, mode):
                raise OSError(self.code, os.strerror(self.code), str(file))
            return real_open(file, mode, *args, **kwargs)

        def fake_os_open(path, flags, *args, **kwargs):
            if self._hit(path, flags):
                raise OSError(self.code, os.strerror(self.code), str(path))
            return real_os_open(path, flags, *args, **kwargs)

        def fake_mkdir(path, *args, **kwargs):
            if self.under is not None and self.under.absolute() in Path(path).absolute().parents:
                raise OSError(self.code, os.strerror(self.code), str(path))
            return real_mkdir(path, *args, **kwargs)

        self.saved = [(builtins, "open", real_open), (io, "open", io.open), (os, "open", real_os_open),
                      (os, "mkdir", real_mkdir)]
        builtins.open = io.open = fake_open  # type: ignore[assignment]
        os.open = fake_os_open  # type: ignore[assignment]
        os.mkdir = fake_mkdir  # type: ignore[assignment]
        return self

    def __exit__(self, *exc) -> None:
        for module, name, value in self.saved:
            setattr(module, name, value)


@dataclass(frozen=True)
class Outcome:
    """How a command met a case."""

    verdict: str                 # refused | traceback | hang | exit 0 | other
    detail: str


def looks_finished(out: Path) -> bool:
    """Whether ``out`` holds something a later command would take as finished (a final name or a manifest)."""
    from orgbench.outdir import holds

    if not out.exists():
        return False
    if out.is_file():
        return True
    if holds(out) == "an assurance workspace":         # its records say which stages ran; finished: dispatched
        return (out / "records" / "dispatch.link.json").exists()
    return holds(out) is not None or (out / "MANIFEST.json").exists()


def attempt(case: Case, seconds: int = 20) -> Outcome:
    """Run ``case`` in-process under an alarm and classify what happened."""
    from orgbench.cli import cli

    def ring(*_):
        raise Hang()

    previous = signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)
    try:
        fault = None
        if case.fault == "read":
            fault = Injected(errno.EACCES, target=case.target)
        elif case.fault in ("EROFS", "ENOSPC"):
            fault = Injected(getattr(errno, case.fault), under=case.out.parent)   # the folder --out is made in
        if fault is not None:
            with fault:
                result = CliRunner().invoke(cli, list(case.argv))
        else:
            result = CliRunner().invoke(cli, list(case.argv))
    except Hang:
        return Outcome("hang", f"no answer in {seconds} s")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    stderr = result.stderr.strip().splitlines()
    if result.exit_code == 0:
        return Outcome("exit 0", result.output[-200:])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        return Outcome("traceback", f"{type(result.exception).__name__}: {result.exception}"[:300])
    errors = [line for line in stderr if line.startswith("error: ")]     # progress lines may come before it
    if result.exit_code == 2 and len(errors) == 1 and stderr[-1] == errors[0] and \
            "Traceback" not in result.output and not looks_finished(case.out):
        return Outcome("refused", errors[0])
    return Outcome("other", f"exit {result.exit_code}: {result.output[-300:]}")


# --- the commands and the file each reads first -------------------------------------------------------------


@dataclass(frozen=True)
class Command:
    """A command line (``{in}`` for the copied input folder or file, ``{out}`` for the output) and its target."""

    name: str
    source: str                  # fixture copied for each case
    target: str                  # file inside it made malformed ("" when the source is the file)
    fmt: str
    argv: Callable[[Path, Path, dict[str, Path]], list[str]]
    out_is_file: bool = False


COMMANDS = (
    Command("simulate", "config", "", "toml", lambda i, o, f: ["simulate", "--config", str(i), "--out", str(o)]),
    Command("inspect", "world", "world.json", "json", lambda i, o, f: ["inspect", str(i)]),
    Command("export", "world", "events.jsonl", "jsonl",
            lambda i, o, f: ["export", str(i), "--format", "jira", "--out", str(o)]),
    Command("build cargo", "world", "events.jsonl", "jsonl",
            lambda i, o, f: ["build", "cargo", "--world", str(i), "--out", str(o), *SIZES]),
    Command("build groundeval", "world", "artifacts.jsonl", "jsonl",
            lambda i, o, f: ["build", "groundeval", "--world", str(i), "--out", str(o)]),
    Command("build trajectories", "world", "actors.jsonl", "jsonl",
            lambda i, o, f: ["build", "trajectories", "--world", str(i), "--out", str(o), "--n", "2"]),
    Command("judge", "cargo", "items.jsonl", "jsonl",
            lambda i, o, f: ["judge", "--suite", str(i), "--judge", "builtin:literal", "--conditions", "direct",
                             "--out", str(o)]),
    Command("tables cargo", "judged", "judgments.jsonl", "jsonl",
            lambda i, o, f: ["tables", "cargo", str(i), "--suite", str(f["cargo"]), "--resamples", "5",
                             "--out", str(o)]),
    Command("compare", "judged", "judgments.jsonl", "jsonl",
            lambda i, o, f: ["compare", str(i), str(f["judged"]), "--suite", str(f["cargo"]), "--out", str(o)]),
    Command("run-agent", "ge", "contracts.jsonl", "jsonl",
            lambda i, o, f: ["run-agent", "--suite", str(i), "--agent", "oracle", "--out", str(o)]),
    Command("score groundeval", "answered", "answers.jsonl", "jsonl",
            lambda i, o, f: ["score", "groundeval", "--suite", str(f["ge"]), "--answers", str(i), "--out", str(o)]),
    Command("score groundeval (run.json)", "answered", "run.json", "json",
            lambda i, o, f: ["score", "groundeval", "--suite", str(f["ge"]), "--answers", str(i), "--out", str(o)]),
    Command("score groundeval (traces)", "answered", "traces.jsonl", "jsonl",
            lambda i, o, f: ["score", "groundeval", "--suite", str(f["ge"]), "--answers", str(i), "--out", str(o)]),
    Command("tables groundeval", "scores", "summary.json", "json",
            lambda i, o, f: ["tables", "groundeval", str(i), "--out", str(o)]),
    Command("assure run", "tr", "trajectories.jsonl", "jsonl",
            lambda i, o, f: ["assure", "run", "--source", str(i), "--work", str(o), "--judge", "stub"]),
    Command("tables assurance", "tr", "trajectories.jsonl", "jsonl",
            lambda i, o, f: ["tables", "assurance", "--source", str(i), "--out", str(o)]),
    Command("view", "judged", "judgments.jsonl", "jsonl",
            lambda i, o, f: ["view", str(i), "--out", str(o)], out_is_file=True),
    Command("sweep", "sweep", "", "toml", lambda i, o, f: ["sweep", str(i), "--executor", "serial", "--out", str(o),
                                                           "--work-dir", str(o) + "-work"]),
    Command("pack check", "pack", "", "toml", lambda i, o, f: ["pack", "check", str(i)]),
    Command("import-otel", "otlp", "", "jsonl",
            lambda i, o, f: ["import-otel", str(i), "--suite", str(f["ge"]), "--out", str(o)]),
    Command("draft-contract", "otlp", "", "jsonl",
            lambda i, o, f: ["draft-contract", str(i), "--action", "fetch_artifact", "--out", str(o)]),
    Command("export hf", "cargo", "items.jsonl", "jsonl",
            lambda i, o, f: ["export", str(i), "--format", "hf", "--out", str(o)]),
    Command("build groundeval --domain", "domain", "events.jsonl", "jsonl",      # an export read back
            lambda i, o, f: ["build", "groundeval", "--domain", str(i), "--out", str(o)]),
    Command("simulate --pack", "pack", "", "toml",
            lambda i, o, f: ["simulate", "--pack", str(i), "--days", "3", "--people", "16", "--out", str(o)]),
    Command("judge (resume)", "judged", "judgments.jsonl", "jsonl",
            lambda i, o, f: ["judge", "--suite", str(f["cargo"]), "--judge", "builtin:literal", "--conditions",
                             "direct", "--out", str(i)]),
    Command("serve-mcp", "ge", "contracts.jsonl", "jsonl",
            lambda i, o, f: ["serve-mcp", "--suite", str(i), "--out", str(o)]),
)

#: Commands that write nothing: no --out to fill or find full.
READ_ONLY = frozenset({"inspect", "pack check"})

#: A hand-written OTLP JSON export: one execute_tool span fetching REF for question QID, one submitting an answer.
OTLP = """{"resource_spans": [{"resource": {"attributes": [{"key": "service.name", "value": {"string_value": "hand"}}]},
 "scope_spans": [{"scope": {"name": "manual"}, "spans": [
  {"trace_id": "0af7651916cd43dd8448eb211c80319c", "span_id": "b7ad6b7169203331", "name": "execute_tool fetch_artifact",
   "start_time_unix_nano": 1700000000000000100,
   "attributes": [{"key": "gen_ai.operation.name", "value": {"string_value": "execute_tool"}},
                  {"key": "gen_ai.tool.name", "value": {"string_value": "fetch_artifact"}},
                  {"key": "gen_ai.conversation.id", "value": {"string_value": "QID"}},
                  {"key": "gen_ai.tool.call.arguments", "value": {"kvlist_value": {"values": [
                      {"key": "artifact_id", "value": {"string_value": "REF"}}]}}}]},
  {"trace_id": "0af7651916cd43dd8448eb211c80319c", "span_id": "d9cf8d9381425553", "name": "execute_tool submit_answer",
   "start_time_unix_nano": 1700000000000000300,
   "attributes": [{"key": "gen_ai.operation.name", "value": {"string_value": "execute_tool"}},
                  {"key": "gen_ai.tool.name", "value": {"string_value": "submit_answer"}},
                  {"key": "gen_ai.conversation.id", "value": {"string_value": "QID"}},
                  {"key": "gen_ai.tool.call.arguments", "value": {"string_value": "{\\"answer\\": {\\"exists\\": true}}"}}]}
 ]}]}]}"""


def _otlp(answered: Path) -> str:
    """OTLP holding a fetch the oracle made (so the import scores it) and an answer, on one line."""
    for line in (answered / "traces.jsonl").read_text().splitlines():
        trace = json.loads(line)
        fetched = [c for c in trace["calls"] if c["tool"] == "fetch_artifact" and c["outcome"] == "ok"]
        if fetched:
            return OTLP.replace("QID", trace["question_id"]).replace("REF", fetched[0]["args"]["artifact_id"]) \
                .replace("\n", " ") + "\n"
    raise AssertionError("the oracle fetched nothing")

#: Variants that do not apply to a command's file (reading them is legitimate there): TOML has no records or
#: lines of its own, an empty config is the default world, view shows a run just started as "0 judgments", and
#: answers need no run.json (serve-mcp's folder has none).
NOT_APPLICABLE = {"toml": {"null record", "garbage line"}, "simulate": {"empty"}, "view": {"empty"},
                  "score groundeval (run.json)": {"missing"},
                  # resuming keeps a log's whole, distinct judgments and redoes the rest: what it is for
                  "judge (resume)": {"missing", "empty", "truncated", "torn line", "duplicate rows"}}


def build_fixtures(root: Path) -> dict[str, Path]:
    """A small world and everything the commands read, built with orgbench itself."""
    from orgbench.cli import cli

    def ok(*args: str | Path) -> None:
        result = CliRunner().invoke(cli, [str(a) for a in args])
        assert result.exit_code == 0, (args, result.output)

    f = {name: root / name for name in ("world", "cargo", "ge", "tr", "judged", "answered", "scores")}
    ok("simulate", "--out", f["world"], "--days", 10, "--people", 16)
    ok("build", "cargo", "--world", f["world"], "--out", f["cargo"], *SIZES)
    ok("build", "groundeval", "--world", f["world"], "--out", f["ge"])
    ok("build", "trajectories", "--world", f["world"], "--out", f["tr"], "--n", 2)
    ok("judge", "--suite", f["cargo"], "--judge", "builtin:literal", "--conditions", "direct", "--out", f["judged"])
    ok("run-agent", "--suite", f["ge"], "--agent", "oracle", "--out", f["answered"])
    ok("score", "groundeval", "--suite", f["ge"], "--answers", f["answered"], "--out", f["scores"])
    ok("export", f["world"], "--format", "groundeval", "--out", root / "domain")
    f["domain"] = root / "domain"
    f["otlp"] = root / "spans.jsonl"
    f["otlp"].write_text(_otlp(f["answered"]))
    f["pack"] = root / "pack.toml"
    shutil.copy2(Path(__file__).resolve().parents[2] / "simulator" / "packs" / "fintech.toml", f["pack"])
    f["config"] = root / "world.toml"
    f["config"].write_text("seed = 3\ndays = 5\npeople = 16\n")
    f["sweep"] = root / "SWEEP.toml"
    f["sweep"].write_text('[sweep]\nname = "fuzz"\n\n[worlds.small]\nseeds = "0"\npeople = 16\ndays = 5\n\n'
                          '[cargo]\nworlds_per_suite = 1\njudges = ["builtin:literal"]\nconditions = ["direct"]\n')
    return f


def cases(fixtures: dict[str, Path], scratch: Path, commands=COMMANDS, classes=CLASSES) -> list[Case]:
    """Every (command, variant) case, each with its own copy of the input under ``scratch``."""
    made = []
    for number, command in enumerate(commands):
        for variant in classes:
            if variant in NOT_APPLICABLE.get(command.fmt, set()) | NOT_APPLICABLE.get(command.name, set()):
                continue
            home = scratch / f"{number:02d}-{CLASSES.index(variant):02d}"
            home.mkdir(parents=True)
            source = fixtures[command.source]
            copied = home / source.name
            if source.is_dir():
                shutil.copytree(source, copied, symlinks=True)
            else:
                shutil.copy2(source, copied)
            target = copied / command.target if command.target else copied
            out = home / ("out.html" if command.out_is_file else "out")
            fault = None
            if variant == "unreadable (EACCES)":
                fault = "read"
            elif variant == "read-only out (EROFS)":
                fault = "EROFS"
            elif variant == "full disk (ENOSPC)":
                fault = "ENOSPC"
            else:
                make_malformed(variant, target, command.fmt)
            if command.name in READ_ONLY and fault in ("EROFS", "ENOSPC"):
                continue     # it writes nothing
            made.append(Case(command.name, variant, tuple(command.argv(copied, out, fixtures)), target, out, fault))
    return made
