"""Statements that are not true: a wrong guess at a cause, a status repeated after it changed.

Each one is written like any other message — its ``facts`` say what its text
says — and labelled at once in the world's truth sidecar (``SimContext.label``)
with the value the engine knows, so nothing downstream mistakes it for the
record. A guess that happens to be right is not labelled: it is true.
"""

from __future__ import annotations

from typing import Mapping

from simulator.context import SimContext
from simulator.messaging import post_chat
from simulator.model import ParentLink

#: Share of #sre-oncall responders who say what they think the cause is.
GUESS_SHARE = 0.3
#: Share of incidents whose status someone in support repeats after it changed.
STALE_SHARE = 0.5


def last_ref(ctx: SimContext) -> str:
    """The ``ARTIFACT-ID@version`` of the version drafted last (the message just posted)."""
    return ctx.ledger.drafts[-1].ref


def guess_cause(ctx: SimContext, speaker: str, incident_id: str, service: str, mechanism: str,
                phrases: Mapping[str, str], parents: tuple[ParentLink, ...]) -> None:
    """Now and then a responder says which failure mechanism it looks like; a wrong guess is labelled."""
    rng = ctx.rng("hearsay.guesses")
    if rng.random() >= GUESS_SHARE:
        return
    options = sorted(phrases)
    guess = options[int(rng.random() * len(options))]
    post_chat(ctx, "CH-SRE-ONCALL", speaker, "chat_cause_guess",
              {"incident_id": incident_id, "service": service, "mechanism": guess}, {"phrase": phrases[guess]},
              parents)
    if guess != mechanism:
        ctx.label(last_ref(ctx), "mechanism", guess, mechanism, "wrong", incident_id)


def repeat_old_status(ctx: SimContext, teller: str, incident_id: str, service: str, old_status: str,
                      true_status: str, parents: tuple[ParentLink, ...]):
    """Some time after an incident changed status, a support person repeats the old one in #support."""
    rng = ctx.rng("hearsay.stale")
    if rng.random() >= STALE_SHARE or not (ctx.can_read(teller, "chat") and ctx.can_read(teller, "incidents")):
        return  # only someone who could read the incident record repeats its status (they read it earlier)
    yield ctx.env.timeout(rng.uniform(20, 400))
    if not ctx.org.is_active(teller):
        return
    post_chat(ctx, "CH-SUPPORT", teller, "chat_incident_status",
              {"incident_id": incident_id, "service": service, "status": old_status}, {}, parents)
    ctx.label(last_ref(ctx), "status", old_status, true_status, "stale", incident_id)
