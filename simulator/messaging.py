"""Messages people send: chat posts, direct messages, internal and external email, ticket comments.

Every helper records one event and one artifact version in the ledger and
strengthens the collaboration graph between sender and recipients. Private
channels carry their space in the ACL; direct messages and email carry an
audience; everyone who took part is a participant.
"""

from __future__ import annotations

from typing import Any, Iterable

from simulator.context import SimContext
from simulator.model import Acl, EntityRef, ParentLink
from simulator.graph import EMAIL_SHARE

#: Chat channels: id → (name, private space or None, teams whose members post there).
CHANNELS: dict[str, tuple[str, str | None, tuple[str, ...]]] = {
    "CH-GENERAL": ("#general", None, ("support_l1", "support_l2", "engineering", "sre", "sales", "legal", "hr", "leadership")),
    "CH-SUPPORT": ("#support", None, ("support_l1", "support_l2")),
    "CH-ENGINEERING": ("#engineering", None, ("engineering", "sre")),
    "CH-DEPLOYS": ("#deploys", None, ("engineering", "sre")),
    "CH-INCIDENTS": ("#incidents", None, ("sre", "engineering", "support_l2")),
    "CH-SALES": ("#sales", None, ("sales",)),
    "CH-RANDOM": ("#random", None, ("support_l1", "support_l2", "engineering", "sre", "sales", "legal", "hr", "leadership")),
    "CH-LEADERSHIP": ("#leadership", "SP-LEADERSHIP", ()),
    "CH-SRE-ONCALL": ("#sre-oncall", "SP-SRE-ONCALL", ()),
    "CH-HR-PRIVATE": ("#hr-private", "SP-HR-PRIVATE", ()),
    "CH-LEGAL-REVIEW": ("#legal-review", "SP-LEGAL-REVIEW", ()),
}


_CHANNEL_ENTITIES = {channel: EntityRef("channel", channel) for channel in CHANNELS}
_CHANNEL_TITLES = {channel: f"{name} message" for channel, (name, _, _) in CHANNELS.items()}


def author_acl(ctx: SimContext, space: str | None, author: str) -> Acl:
    """The ACL of a record ``author`` wrote in ``space`` (ACLs are immutable: one shared object per run)."""
    key = ("author_acl", space, author)
    found = ctx.shared.get(key)
    if found is None:
        found = ctx.shared[key] = Acl(space=space, participants=(author,))
    return found


def audience_acl(ctx: SimContext, audience: tuple[str, ...]) -> Acl:
    """The ACL of a message only ``audience`` may see, all of whom took part (one shared object per run)."""
    key = ("audience_acl", audience)
    found = ctx.shared.get(key)
    if found is None:
        found = ctx.shared[key] = Acl(audience=audience, participants=audience)
    return found


def post_chat(ctx: SimContext, channel: str, author: str, template: str, facts: dict[str, Any],
              context: dict[str, Any] | None = None, parents: Iterable[ParentLink] = (),
              event_type: str = "chat.message_posted") -> str:
    """``author`` posts in ``channel``; returns the event id."""
    name, space, _ = CHANNELS[channel]
    ledger = ctx.ledger
    message_id = ledger.next_id("MSG")
    entity = _CHANNEL_ENTITIES[channel]
    ref = ledger.draft(message_id, "chat", "chat_message", author, entity, _CHANNEL_TITLES[channel], template,
                       {"message_id": message_id, "channel": name, **facts}, author_acl(ctx, space, author), context)
    payload = {"message_id": message_id, "channel": channel}
    if facts:
        for key in ("case_id", "incident_id", "change_id", "in_reply_to"):
            if key in facts:
                payload[key] = facts[key]
    return ledger.emit(event_type, (author,), "chat", entity, payload, parents, (ref,))


def send_dm(ctx: SimContext, sender: str, recipient: str, template: str, facts: dict[str, Any],
            context: dict[str, Any] | None = None, parents: Iterable[ParentLink] = ()) -> str:
    """A direct message between two people; returns the event id."""
    pair = (sender, recipient) if sender <= recipient else (recipient, sender)
    ledger = ctx.ledger
    message_id = ledger.next_id("DM")
    entity = ctx.shared.get(("dm", pair))
    if entity is None:
        entity = ctx.shared[("dm", pair)] = EntityRef("dm", f"{pair[0]}+{pair[1]}")
    ref = ledger.draft(message_id, "chat", "direct_message", sender, entity, "Direct message", template,
                       {"message_id": message_id, **facts}, audience_acl(ctx, pair), context)
    ctx.graph.interact(sender, recipient, ctx.env.now)
    payload = {"message_id": message_id, "to": recipient}
    if "in_reply_to" in facts:
        payload["in_reply_to"] = facts["in_reply_to"]
    return ledger.emit("chat.dm_sent", pair, "chat", entity, payload, parents, (ref,))


def send_email(ctx: SimContext, sender: str, recipients: Iterable[str], subject: str, template: str,
               facts: dict[str, Any], entity: EntityRef | None = None, context: dict[str, Any] | None = None,
               kind: str = "email", event_type: str = "email.sent", parents: Iterable[ParentLink] = (),
               external_to: str | None = None, extra_payload: dict[str, Any] | None = None,
               external_from: str | None = None) -> tuple[str, str]:
    """An email from ``sender`` (internal recipients are the audience); returns (event id, email id).

    Email with a customer names them in ``external_to`` (outbound) or ``external_from`` (inbound; the
    ``sender`` is then the internal person who received it).
    """
    people = ctx.org.people
    to = tuple(r for r in dict.fromkeys(recipients) if r != sender and people[r].left_at is None)  # active ones
    audience = tuple(sorted({sender, *to}))
    email_id = ctx.ledger.next_id("EML")
    entity = entity or EntityRef("email", email_id)
    body_facts = {"email_id": email_id, "subject": subject, **facts}
    if external_to:
        body_facts["to_external"] = external_to
    if external_from:
        body_facts["from_external"] = external_from
    ref = ctx.ledger.draft(email_id, "email", kind, sender, entity, subject, template, body_facts,
                           audience_acl(ctx, audience), context)
    if to:  # one email is one interaction, shared among its recipients
        ctx.graph.interact_all(sender, to, ctx.now, min(EMAIL_SHARE, 1.0 / len(to)))
    payload = {"email_id": email_id, "to": list(to)}
    if external_to:
        payload["to_external"] = external_to
    if external_from:
        payload["from_external"] = external_from
    for key in ("case_id", "incident_id", "escalation_id"):
        if key in facts:
            payload[key] = facts[key]
    if extra_payload:
        payload.update(extra_payload)
    event_id = ctx.ledger.emit(event_type, (sender, *to), "email", entity, payload, parents, (ref,))
    return event_id, email_id
