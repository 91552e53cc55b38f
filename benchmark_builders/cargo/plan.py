"""What a CARGO suite is made of (``SuiteConfig``) and the plan of its items: family, style and case state."""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Sequence

from benchmark_builders.cargo.perturb import CONTRADICTIONS, CORRUPTIONS
from benchmark_builders.cargo.records import DEFAULT_SIZES, FAMILIES
from orgbench.core.errors import InputError
from simulator.procedures import DEFAULT_RUNBOOKS, Runbooks


@dataclass(frozen=True)
class SuiteConfig:
    """What a suite is made of: family sizes, golden set, gating set and the builder's seed."""

    sizes: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_SIZES))
    golden_per_procedure: int = 2
    #: Runbooks with no golden reference (their questions are the gating set); None: the pack's own
    #: (``out_of_scope = true`` in its runbooks; the default pack's are RB-LICENSE-TRANSFER and RB-PASSWORD-RESET).
    out_of_scope: tuple[str, ...] | None = None
    gating_per_world: int = 5
    two_value_share: float = 0.2     # share of P2 items with two contradicted values
    max_extras: int = 2              # benign extra sentences per "extra"-style candidate: 1..max_extras
    #: P4 kinds: each P4 item takes the least used kind its runbook allows. Skips, swaps and wrong escalations
    #: come from the runbook's other revisions (``perturb.revision_corruptions``), so they apply to few runbooks.
    p4_kinds: tuple[str, ...] = CORRUPTIONS
    #: Share of each family's items about an open case (half still open at the world's end, half as of a moment
    #: mid-case); P2 value kinds cycle over these (``derived``: a value computed from the live context's facts).
    open_share: float = 0.2
    p2_kinds: tuple[str, ...] = CONTRADICTIONS + ("derived",)
    seed: int = 0

    def for_runbooks(self, runbooks: Runbooks) -> "SuiteConfig":
        """This config with ``out_of_scope`` taken from ``runbooks`` when it is not given."""
        return self if self.out_of_scope is not None else replace(self, out_of_scope=runbooks.out_of_scope)

    def validate(self, runbooks: Runbooks = DEFAULT_RUNBOOKS) -> None:
        """Raise InputError naming the bad field."""
        if not set(DEFAULT_SIZES) <= set(self.sizes) <= set(FAMILIES) \
                or any(not isinstance(v, int) or v < 0 for v in self.sizes.values()):
            extra = [f for f in FAMILIES if f not in DEFAULT_SIZES]
            raise InputError(f"sizes: expected non-negative counts for {', '.join(DEFAULT_SIZES)}"
                             + (f" (and any of {', '.join(extra)})" if extra else "") + f", got {self.sizes}")
        if self.sizes["P1"] + self.sizes["P3"] == 0:
            raise InputError("sizes: P1 and P3 cannot both be 0 (the styles of P2/P4 follow them)")
        known = {p.procedure_id for p in runbooks.procedures}
        for pid in self.for_runbooks(runbooks).out_of_scope or ():
            if pid not in known:
                raise InputError(f"out_of_scope: unknown runbook {pid}")
        if len(known - set(self.for_runbooks(runbooks).out_of_scope or ())) < 2:
            raise InputError(f"out_of_scope: pack {runbooks.pack!r} leaves fewer than two runbooks in scope")
        if self.golden_per_procedure < 1:
            raise InputError("golden_per_procedure: must be at least 1")
        if not self.p4_kinds or any(k not in CORRUPTIONS for k in self.p4_kinds):
            raise InputError(f"p4_kinds: expected some of {', '.join(CORRUPTIONS)}, got {list(self.p4_kinds)}")
        if not self.p2_kinds or any(k not in (*CONTRADICTIONS, "derived") for k in self.p2_kinds):
            raise InputError(f"p2_kinds: expected some of identifier, date, derived, got {list(self.p2_kinds)}")
        if not 0 <= self.open_share <= 1:
            raise InputError(f"open_share: expected a share between 0 and 1, got {self.open_share}")



def _stratified(values: Sequence[str], n: int, rng: random.Random) -> list[str]:
    """``n`` values that take each of ``values`` equally often (to one), in a shuffled order."""
    out = [values[i % len(values)] for i in range(n)]
    rng.shuffle(out)
    return out


def plan_items(config: SuiteConfig, n_worlds: int, rng: random.Random,
               variants: Sequence[str] = ()) -> list[list[tuple[str, str, str, str | None]]]:
    """(family, style, case state, wording variant) of every item, per world; P2/P4 styles follow the should-not
    families' mix, every family has the same share of open cases (half open at the world's end, half mid-case),
    and within each family and style the wording variants are dealt evenly (None when no ``variants``)."""
    sizes = config.sizes
    plain_share = sizes["P1"] / (sizes["P1"] + sizes["P3"])
    specs: list[tuple[str, str, str, str | None]] = []
    for family in (f for f in FAMILIES if f in sizes):
        plain = sizes[family] if family == "P1" else 0 if family == "P3" else round(sizes[family] * plain_share)
        n_open = round(sizes[family] * config.open_share)
        states = [("open_at_end", "mid_case")[i % 2] for i in range(n_open)] + ["closed"] * (sizes[family] - n_open)
        rng.shuffle(states)
        styles = ["plain" if i < plain else "extra" for i in range(sizes[family])]
        dealt = {style: iter(_stratified(list(variants), styles.count(style), rng) if variants else [])
                 for style in ("plain", "extra")}
        specs += [(family, style, state, next(dealt[style], None)) for style, state in zip(styles, states)]
    rng.shuffle(specs)
    per_world: list[list[tuple[str, str, str, str | None]]] = [[] for _ in range(n_worlds)]
    for index, spec in enumerate(specs):
        per_world[index % n_worlds].append(spec)
    return per_world
