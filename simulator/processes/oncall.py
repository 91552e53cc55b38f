"""Who carries the pager: the SRE on call this week, in a fixed weekly rotation."""

from __future__ import annotations

from simulator.context import SimContext


def on_call(ctx: SimContext) -> str:
    """The SRE on call now: the rotation advances every seven days through the SREs in id order; someone on
    leave hands the pager to the next in the rotation."""
    sres = sorted(ctx.org.members("sre"))
    week = int(ctx.now // (7 * 1440))
    for turn in range(len(sres)):
        candidate = sres[(week + turn) % len(sres)]
        if not ctx.on_leave(candidate):
            return candidate
    return sres[week % len(sres)]
