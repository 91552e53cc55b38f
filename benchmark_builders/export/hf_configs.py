"""What a Hugging Face export holds: for each kind of source, its configs, each config's role and columns.

A config is one table of one suite (or world) file, in one split (``test``).
Its role says who may read it: ``input`` (what the model under test is
shown), ``corpus`` (what a GroundEval agent reaches only through the gated
runtime's tools), or ``withheld`` (truth and diagnostics: never shown). Truth
lives only in withheld configs, never as a column beside the inputs.

The configs are declared in ``hf_configs.toml``, each column with a kind and
a sentence the dataset card prints: ``text``, ``int``, ``float``, ``bool``,
``texts`` (a list of strings) or ``json`` (any nested value as canonical JSON
text, so nothing is lost). A
field a suite holds that is not declared here (a newer builder's) is kept as
a ``json`` column after the declared ones, described as undeclared.
"""

from __future__ import annotations

from dataclasses import dataclass

INPUT, CORPUS, WITHHELD = "input", "corpus", "withheld"
SPLIT = "test"


@dataclass(frozen=True, slots=True)
class Column:
    """One declared column: name, kind (text, int, float, bool, texts, json) and what it means."""

    name: str
    kind: str
    about: str


@dataclass(frozen=True, slots=True)
class ConfigSpec:
    """One config: its name, the suite file its rows come from, its role and its declared columns."""

    name: str
    source: str
    role: str
    about: str
    columns: tuple[Column, ...]


def _load() -> dict[str, tuple[ConfigSpec, ...]]:
    """Every kind's configs, as declared in ``hf_configs.toml`` (a column list may be shared by name)."""
    from importlib import resources

    from orgbench.core.storage import loads_toml

    declared = loads_toml(resources.files(__package__).joinpath("hf_configs.toml").read_text("utf-8"),
                          "benchmark_builders/export/hf_configs.toml")
    shared = declared.pop("columns")

    def columns(value: str | list[list[str]] | None) -> tuple[Column, ...]:
        rows = shared[value] if isinstance(value, str) else value or []
        return tuple(Column(*row) for row in rows)

    return {kind: tuple(ConfigSpec(c["name"], c["source"], c["role"], c["about"], columns(c.get("columns")))
                        for c in configs) for kind, configs in declared.items()}


_SPECS = _load()

#: What ``orgbench.outdir.holds`` calls a source -> the short kind an export records.
KINDS = {"a world": "world", "a CARGO suite": "cargo", "a GroundEval suite": "groundeval",
         "a trajectory suite": "trajectories"}


def specs(kind: str) -> tuple[ConfigSpec, ...]:
    """The configs of a source of this kind (world, cargo, groundeval, groundeval-tasks, trajectories)."""
    return _SPECS[kind]
