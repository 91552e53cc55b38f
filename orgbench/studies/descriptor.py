"""What a study is, declared once: the ``Study`` record and the registry of every study ``reproduce`` runs.

orgbench's own studies (``CARGO``, ``GROUNDEVAL``, ``ASSURANCE``) are declared
in ``studies.toml`` beside this module; a separate package adds a study under the entry-point group
``orgbench.studies`` (name = the study's name, value = ``module:attr`` of its
``Study``). Everything a descriptor names in another module is a
``module:attr`` path read on first use, so listing the studies imports no
builder, judge or simulator.

``reproduce``, ``sweep``, ``list``, ``view``, the results README and the report read
these records: which studies there are, what ``--judge`` becomes in each
(a judge or an agent), which built-in judges or agents run when no
``--judge`` is given, and which families or tracks and conditions it has.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orgbench.core.errors import InputError
from orgbench.core.registry import Registry, accept_instance, load_attr

ENTRY_POINT_GROUP = "orgbench.studies"


@dataclass(frozen=True)
class Study:
    """One study: its name and title, its ``reproduce``, what ``--judge`` serves as in it, and its tables' parts."""

    name: str
    title: str
    reproduce: str                  # "module:attr" of reproduce(out_dir, options)
    serves: str                     # the role a --judge spec takes in it: "judge" or "agent"
    builtin: str                    # "module:attr" of the built-in judges or agents it runs without --judge
                                    # (a tuple of specs, or a function returning one)
    parts_name: str = ""            # what its rows are split by: "families", "tracks"
    parts: str = ""                 # "module:attr" of those (a tuple, or a mapping of part -> kinds, or a
                                    # function returning one)
    conditions: str = ""            # "module:attr" of its conditions or modes
    suites: tuple[str, ...] = ()    # the suites it builds (``orgbench build KIND``)
    exports: tuple[str, ...] = ()   # the export formats that carry what it reads
    folder: str = ""                # its folder under results/ (default: its name)
    heading: str = ""               # its section's heading in the HTML report (default: its title)
    intro: str = ""                 # the report's paragraph under that heading
    note: str = ""                  # results/README.md's line under its heading
    tables_kind: str = ""           # what ``orgbench view`` calls a folder of its tables ("CARGO tables")
    rows_from: str = ""             # what its judges' or agents' rows are ("CARGO tables", ...)
    rows_are: str = ""              # who the rows are: "judges", "agents", "judge"
    present: str = ""               # "module:attr" of f(study folder) -> the judges or agents it holds rows of
    comparison: str = ""            # "module:attr" of f(study folder) -> README lines set beside the paper

    @property
    def where(self) -> str:
        """Its folder under the results directory."""
        return self.folder or self.name

    def load(self, attr: str) -> Any:
        """The object one of its ``module:attr`` fields names (``()`` when the field is empty)."""
        path = getattr(self, attr)
        return load_attr(path, f"study {self.name!r} {attr}") if path else ()

    def part_list(self) -> Any:
        """Its parts (families, tracks with their kinds, …), plugins' included."""
        parts = self.load("parts")
        return parts() if callable(parts) else parts

    def builtin_names(self) -> tuple[str, ...]:
        """The built-in judges or agents it runs when no ``--judge`` is given, as specs."""
        names = self.load("builtin")
        return tuple(names() if callable(names) else names)

    def takes(self, spec: str) -> bool:
        """Whether ``spec`` can be this study's judge (or agent): its backend or agent registration says so."""
        from judges.backends.registry import find

        if self.serves == "agent" and ":" not in spec:
            from judges.groundeval.agent_registry import AGENTS

            agent = AGENTS.get(spec)
            if agent is not None and "contracts" in agent.suites:
                return True
        return any(b.serves(self.name, self.serves) and b.answers(spec) for b in find(spec, self.serves))

    def spec_forms(self) -> list[str]:
        """How a spec this study can take is written, beyond its built-in names: openai:MODEL, a plugin's, …"""
        from judges.backends.registry import BACKENDS

        return [b.usage or f"{b.kind}:…" for b in BACKENDS.all() if b.serves(self.name, self.serves)
                and not b.builtin]

    def check(self, spec: str, option: str = "--judge") -> None:
        """InputError (one line, exit 2) when ``spec`` cannot serve this study."""
        if self.takes(spec):
            return
        from judges.backends.registry import find

        found = find(spec)
        unnamed = [b for b in found if not b.answers(spec)]
        if unnamed:
            raise InputError(f"{option} {spec!r}: unknown name; use one of {', '.join(unnamed[0].specs())}")
        if not found and ":" in spec:
            from judges.backends.registry import known_kinds

            raise InputError(f"{option} {spec!r}: unknown kind {spec.partition(':')[0]!r}; use one of "
                             f"{', '.join(k + ':…' for k in known_kinds())}")
        from judges.groundeval.agent_registry import AGENTS

        agent = AGENTS.get(spec) if ":" not in spec else None
        if agent is not None:
            what = f"a named agent for {', '.join(agent.suites)}"
        elif found:
            roles = " and ".join(sorted({role for b in found for role in b.roles}))
            served = [s.name for s in STUDIES.all() if s.takes(spec)]
            what = f"a {roles} for {', '.join(served) or 'no study'}"
        else:
            what = "no registered judge or agent"
        raise InputError(f"{option} {spec!r}: cannot serve study {self.name} (it needs {self.article} {self.serves}; "
                         f"{spec} is {what})")

    @property
    def article(self) -> str:
        return "an" if self.serves[0] in "aeiou" else "a"


def read_json_or_none(path: Path) -> Any:
    """The JSON value in ``path``, or None when it is absent or not JSON (a results folder may hold anything)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


# -- orgbench's own studies ------------------------------------------------------------------------------------------

#: How the tables name the paper's published rows (its judge: gpt-oss-120b).
PAPER_JUDGE = "paper: gpt-oss-120b"
#: The built-in judges the results set beside the paper when no LLM judge ran, the rule-based reader first.
BESIDE_PAPER = ("builtin:grounded", "builtin:literal")


def cargo_judges_present(folder: Path) -> list[str] | None:
    """The judges whose runs ``scores.json`` holds (None when it is absent or unreadable)."""
    scores = read_json_or_none(folder / "scores.json")
    if not isinstance(scores, dict):
        return None
    return [str(r.get("judge")) for r in scores.get("runs", []) if isinstance(r, dict)]


def cargo_builtin_judges() -> tuple[str, ...]:
    """The built-in CARGO judges, as specs: every built-in backend serving CARGO, by its names (builtin:literal, …)."""
    from judges.backends.registry import BACKENDS

    return tuple(spec for backend in BACKENDS.all() if backend.builtin and backend.serves("cargo", "judge")
                 for spec in backend.specs())


def groundeval_agents_present(folder: Path) -> list[str] | None:
    """The agents ``summary.json`` holds scores of (None when it is absent or unreadable)."""
    summary = read_json_or_none(folder / "summary.json")
    if isinstance(summary, dict) and isinstance(summary.get("agents"), dict):
        return list(summary["agents"])
    return None


def assurance_judge_present(folder: Path) -> list[str] | None:
    """The contrast's judge, from ``contrast.json`` (None when it is absent, unreadable or names none)."""
    contrast = read_json_or_none(folder / "contrast.json")
    if isinstance(contrast, dict) and contrast.get("judge"):
        return [str(contrast["judge"])]
    return None

#: The contrast's built-in judge (the fault study always uses the recording stub).
ASSURANCE_JUDGES = ("builtin:step",)


def _declared() -> tuple[Study, ...]:
    """orgbench's own studies, as ``studies.toml`` declares them."""
    from orgbench.core.storage import loads_toml

    text = Path(__file__).with_name("studies.toml").read_text("utf-8")   # package data, installed beside the module
    studies = []
    for declared in loads_toml(text, "orgbench/studies/studies.toml")["study"]:
        fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in declared.items()}
        studies.append(Study(**fields))
    return tuple(studies)


CARGO, GROUNDEVAL, ASSURANCE = _declared()


def _own() -> list[Study]:
    return [CARGO, GROUNDEVAL, ASSURANCE]


STUDIES: Registry[Study] = Registry("study", ENTRY_POINT_GROUP, _own, lambda s: s.name, accept_instance(Study))


def study(name: str) -> Study:
    """The study called ``name``; InputError naming every study otherwise."""
    return STUDIES.require(name, "STUDY")
