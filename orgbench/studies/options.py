"""What the user asked of ``orgbench reproduce``: the options every study's ``reproduce(out_dir, options)`` takes."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["ReproduceOptions"]


@dataclass(frozen=True)
class ReproduceOptions:
    """What the user asked of ``orgbench reproduce``."""

    work_dir: Path = Path("build")          # cached worlds, suites and runs
    judge: str | None = None                # None: the built-in judges and agents, offline
    base_url: str | None = None             # for openai:MODEL judges and agents
    seeds: tuple[int, ...] | None = None    # world seeds; None: the study's defaults
    fresh: bool = False                     # redo every stage
    extra: dict = field(default_factory=dict)
