"""The worlds a CARGO suite is drawn from: simulated from seeds, or loaded from world directories.

CARGO needs completed support cases, not a long history, so its default
worlds are smaller than the simulator's default (30 people over 45 days gives
about 75 completed cases per world, enough for the golden set and ~25 items).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

#: Overrides of the simulator's default config for CARGO's worlds.
CARGO_WORLD: dict[str, int] = {"people": 30, "days": 45}
DEFAULT_SEEDS: tuple[int, ...] = tuple(range(10))


def simulate_worlds(seeds: Sequence[int], config_path: Path | None = None, **overrides: Any) -> list:
    """Simulate one world per seed (CARGO's size unless ``overrides`` or the config file say otherwise)."""
    from simulator.config import load_config
    from simulator.simulate import simulate

    sizes = {} if config_path else dict(CARGO_WORLD)
    sizes.update({k: v for k, v in overrides.items() if v is not None})
    return [simulate(load_config(config_path, seed=seed, **sizes)) for seed in seeds]


def load_worlds(directories: Sequence[Path]) -> list:
    """Load world directories (verified against their manifests)."""
    from orgbench.core.errors import InputError
    from simulator.world import load_world

    worlds = []
    given: dict[int, Path] = {}
    for directory in directories:
        world = load_world(Path(directory))
        if world.seed in given:     # items are keyed by world seed: one world twice would repeat them
            raise InputError(f"--world {directory}: world seed {world.seed} is already given by --world "
                             f"{given[world.seed]}")
        given[world.seed] = directory
        worlds.append(world)
    return worlds


def pack_runbooks(worlds: Sequence, given: str | None = None, config_path: Path | None = None):
    """The runbooks of the one pack ``worlds`` were made from (``simulator.packs.world_pack``; ``given``: the
    --pack option, else the pack of the config they were simulated from)."""
    from orgbench.core.errors import InputError
    from simulator.config import load_config
    from simulator.packs import world_pack

    if given is None and config_path is not None:
        given = load_config(config_path).pack
    packs = {world_pack(dict(w.meta), given) for w in worlds}
    if len(packs) > 1:
        raise InputError(f"--world: the worlds are made from {len(packs)} different domain packs "
                         f"({', '.join(sorted(p.name for p in packs))}); a suite is built from one pack's worlds")
    return packs.pop().runbooks if packs else None


def shortfall(meta: dict) -> str:
    """One line saying which family got fewer items than asked for, and why (empty when none did)."""
    asked, got = meta["config"]["sizes"], meta["counts"]
    short = [f"{family} {got[family]} of {asked[family]}" for family in asked if got[family] < asked[family]]
    if not short:
        return ""
    return (f"the worlds are too small for the requested sizes: {', '.join(short)} "
            f"(no clean live case or contradiction left: {meta['dropped_items']})")
