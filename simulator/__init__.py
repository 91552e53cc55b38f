"""A seeded, deterministic discrete-event simulation of an organisation.

``load_config`` reads a world config (defaults from ``orgbench/defaults/world.toml``),
``simulate`` runs it into a ``World``, ``save_world`` / ``load_world`` write and read
its directory. The names are imported from their modules on first use.
"""

from orgbench.core.exports import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    "SimConfig": "simulator.config", "load_config": "simulator.config",
    "simulate": "simulator.simulate", "simulate_to": "simulator.simulate",
    "World": "simulator.world", "build_world": "simulator.world", "load_world": "simulator.world",
    "save_world": "simulator.world",
    "Actor": "simulator.model", "ArtifactVersion": "simulator.model", "Event": "simulator.model",
    "AccessPolicy": "simulator.policy",
})
