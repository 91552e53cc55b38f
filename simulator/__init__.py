"""A seeded, deterministic discrete-event simulation of an organisation.

``load_config`` reads a world config (defaults from ``orgbench/defaults/world.toml``),
``simulate`` runs it into a ``World``, ``save_world`` / ``load_world`` write and read
its directory. The names are imported from their modules on first use.
"""

from typing import TYPE_CHECKING

from orgbench.core.exports import lazy_exports

if TYPE_CHECKING:
    from simulator.config import SimConfig as SimConfig, load_config as load_config
    from simulator.simulate import simulate as simulate, simulate_to as simulate_to
    from simulator.world import (
        World as World, build_world as build_world, load_world as load_world, save_world as save_world,
    )
    from simulator.model import Actor as Actor, ArtifactVersion as ArtifactVersion, Event as Event
    from simulator.policy import AccessPolicy as AccessPolicy
else:                   # type checkers read the imports above; at run time each is made on first use
    __all__, __getattr__ = lazy_exports(__name__)
