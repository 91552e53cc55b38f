"""Option values shared by several commands."""

from __future__ import annotations


def parse_seeds(text: str, option: str = "--seeds") -> tuple[int, ...]:
    """Seeds from "0-9" or "0,1,2" (InputError naming the option otherwise)."""
    from simulator.errors import InputError

    seeds: list[int] = []
    try:
        for part in text.split(","):
            part = part.strip()
            if "-" in part:
                lo, hi = part.split("-", 1)
                seeds.extend(range(int(lo), int(hi) + 1))
            elif part:
                seeds.append(int(part))
    except ValueError:
        raise InputError(f"{option}: expected a list like 0-9 or 0,1,2, got {text!r}") from None
    if not seeds or any(s < 0 for s in seeds) or len(set(seeds)) != len(seeds):
        raise InputError(f"{option}: expected distinct non-negative seeds, got {text!r}")
    return tuple(seeds)
