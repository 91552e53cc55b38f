"""SWEEP.toml: a declarative grid of world configs × seeds × suite builders × judges/agents × conditions.

``load_sweep(path)`` reads and checks the file and returns a frozen
``Sweep``. Anything it does not know — a misspelt key, a value of the
wrong type, an unknown agent, judge or condition — is one ``InputError``
naming the file and the key, so ``orgbench sweep`` exits 2 before anything
runs. docs/sweeps.md shows a complete file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from orgbench.core.errors import InputError
from orgbench.core.storage import read_toml

DEFAULT_CONCURRENCY = 4

KEYS: dict[str, tuple[str, ...]] = {
    "": ("sweep", "worlds", "groundeval", "cargo", "endpoints"),
    "sweep": ("name",),
    "world": ("config", "seeds", "people", "days"),
    "groundeval": ("agents", "modes", "base_url"),
    "cargo": ("worlds_per_suite", "judges", "conditions", "judge_seeds", "base_url"),
    "endpoint": ("concurrency",),
}


@dataclass(frozen=True)
class WorldGrid:
    """One world config (the default, or a TOML file, with size overrides) over its seeds."""

    name: str
    config: str | None          # absolute path of the world TOML; None: the built-in default
    seeds: tuple[int, ...]
    people: int | None = None
    days: int | None = None


@dataclass(frozen=True, kw_only=True)
class ModelGrid:
    """A grid whose models (``openai:``/``local:`` specs) are served at ``base_url`` (None: the spec's default)."""

    base_url: str | None = None


@dataclass(frozen=True)
class GroundEvalGrid(ModelGrid):
    """Every world built into a GroundEval suite, run by each agent in each mode."""

    agents: tuple[str, ...]
    modes: tuple[str, ...]


@dataclass(frozen=True)
class CargoGrid(ModelGrid):
    """Every ``worlds_per_suite`` worlds of a config into one CARGO suite, judged by each judge."""

    worlds_per_suite: int
    judges: tuple[str, ...]
    conditions: tuple[str, ...]
    judge_seeds: tuple[int, ...]


@dataclass(frozen=True)
class Sweep:
    """A whole SWEEP.toml, checked."""

    path: str
    name: str
    worlds: tuple[WorldGrid, ...]
    groundeval: GroundEvalGrid | None
    cargo: CargoGrid | None
    endpoints: tuple[tuple[str, int], ...]   # (base URL, concurrent requests across every worker)

    def budget(self, base_url: str | None) -> int:
        """Concurrent requests allowed to ``base_url`` across the sweep."""
        return dict(self.endpoints).get(base_url or "", DEFAULT_CONCURRENCY)


def _fail(path: Path, key: str, problem: str) -> InputError:
    return InputError(f"{path}: {key}: {problem}")


def _check_keys(path: Path, table: Any, kind: str, where: str) -> Mapping[str, Any]:
    if not isinstance(table, dict):
        raise _fail(path, where or "(top level)", "expected a table")
    for key in table:
        if key not in KEYS[kind]:
            raise _fail(path, f"{where}.{key}" if where else key, f"unknown key (known: {', '.join(KEYS[kind])})")
    return table


def _int(path: Path, value: Any, key: str, *, minimum: int = 1) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise _fail(path, key, f"must be an integer >= {minimum}")
    return value


def _text(path: Path, value: Any, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _fail(path, key, "must be non-empty text")
    return value


def _names(path: Path, value: Any, key: str, known: tuple[str, ...], default: tuple[str, ...],
           study: str | None = None) -> tuple[str, ...]:
    """The names listed under ``key``: each one of ``known``, or (with ``study``) a spec that study can take."""
    if value is None:
        return default
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise _fail(path, key, "must be a non-empty list of names")
    for name in value:
        if name in known:
            continue
        if study is None:
            raise _fail(path, key, f"unknown name {name!r} (known: {', '.join(known)})")
        from orgbench.studies.descriptor import study as named

        if not named(study).takes(name):
            raise _fail(path, key, f"unknown name {name!r} (known: {', '.join(known)}, or "
                                   f"{' / '.join(named(study).spec_forms())})")
    if len(set(value)) != len(value):
        raise _fail(path, key, "a name repeats")
    return tuple(value)


def parse_seeds(path: Path, value: Any, key: str) -> tuple[int, ...]:
    """Seeds as a list of integers or text such as "0-31" or "0,2,5"."""
    if isinstance(value, list) and value and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                                                 for v in value):
        seeds = tuple(value)
    elif isinstance(value, str) and re.fullmatch(r"\s*\d+(\s*-\s*\d+)?(\s*,\s*\d+(\s*-\s*\d+)?)*\s*", value):
        seeds = ()
        for part in value.split(","):
            low, _, high = part.partition("-")
            seeds += tuple(range(int(low), int(high or low) + 1))
    else:
        raise _fail(path, key, 'must be a list of seeds or text such as "0-31"')
    if not seeds or len(set(seeds)) != len(seeds):
        raise _fail(path, key, "no seeds, or a seed repeats")
    return seeds


def _world(path: Path, name: str, table: Any) -> WorldGrid:
    where = f"worlds.{name}"
    table = _check_keys(path, table, "world", where)
    if not re.fullmatch(r"[A-Za-z0-9._-]+", name):
        raise _fail(path, where, "a world name may hold only letters, digits, '.', '_' and '-'")
    config = None
    if "config" in table:
        config_path = (path.parent / _text(path, table["config"], f"{where}.config")).resolve()
        if not config_path.is_file():
            raise _fail(path, f"{where}.config", f"{config_path}: file not found")
        config = str(config_path)
    if "seeds" not in table:
        raise _fail(path, f"{where}.seeds", "missing")
    sizes = {k: _int(path, table[k], f"{where}.{k}") for k in ("people", "days") if k in table}
    return WorldGrid(name, config, parse_seeds(path, table["seeds"], f"{where}.seeds"), **sizes)


def load_sweep(path: Path) -> Sweep:
    """Read and check SWEEP.toml; any problem is one InputError naming the file and key."""
    path = Path(path).resolve()
    data = read_toml(path)
    _check_keys(path, data, "", "")
    head = _check_keys(path, data.get("sweep", {}), "sweep", "sweep")
    worlds = data.get("worlds", {})
    if not isinstance(worlds, dict) or not worlds:
        raise _fail(path, "worlds", "missing: name at least one [worlds.NAME] table with seeds")
    grids = tuple(_world(path, name, table) for name, table in worlds.items())
    from orgbench.studies.descriptor import study as named

    ge = data.get("groundeval")
    if ge is not None:
        ge = _check_keys(path, ge, "groundeval", "groundeval")
        agents, modes = named("groundeval").builtin_names(), tuple(named("groundeval").load("conditions"))
        ge = GroundEvalGrid(_names(path, ge.get("agents"), "groundeval.agents", agents, agents, study="groundeval"),
                            _names(path, ge.get("modes"), "groundeval.modes", modes, modes),
                            base_url=_url(path, ge, "groundeval"))
    cargo = data.get("cargo")
    if cargo is not None:
        cargo = _check_keys(path, cargo, "cargo", "cargo")
        cargo = CargoGrid(_int(path, cargo.get("worlds_per_suite", 8), "cargo.worlds_per_suite"),
                          _names(path, cargo.get("judges"), "cargo.judges", named("cargo").builtin_names(),
                                 named("cargo").builtin_names(), study="cargo"),
                          _conditions(path, cargo.get("conditions")),
                          parse_seeds(path, cargo.get("judge_seeds", [0]), "cargo.judge_seeds"),
                          base_url=_url(path, cargo, "cargo"))
    if ge is None and cargo is None:
        raise _fail(path, "groundeval", "missing: a sweep needs a [groundeval] or a [cargo] table (or both)")
    endpoints = data.get("endpoints", {})
    if not isinstance(endpoints, dict):
        raise _fail(path, "endpoints", "expected a table of [endpoints.\"URL\"] tables")
    budgets = tuple(sorted((url, _int(path, _check_keys(path, table, "endpoint", f"endpoints.{url}")
                                      .get("concurrency", DEFAULT_CONCURRENCY), f"endpoints.{url}.concurrency"))
                           for url, table in endpoints.items()))
    name = _text(path, head.get("name", path.stem), "sweep.name")
    return Sweep(str(path), name, grids, ge, cargo, budgets)


def _url(path: Path, table: Mapping[str, Any], where: str) -> str | None:
    return _text(path, table["base_url"], f"{where}.base_url") if "base_url" in table else None


def _conditions(path: Path, value: Any) -> tuple[str, ...]:
    from judges.conditions import CONDITIONS, VARIANTS
    from orgbench.studies.descriptor import study

    run = tuple(study("cargo").load("conditions"))
    known = run + tuple(c for c in CONDITIONS if c not in run) + tuple(v for v in VARIANTS if v not in run)
    return _names(path, value, "cargo.conditions", known, run)
