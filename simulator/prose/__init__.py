"""Prose composed from world state: seeded grammars that write each kind of artifact in its author's voice.

``COMPOSERS`` maps a template name to a function ``(draft, cast, names,
records) -> body``; ``simulator.artifacts`` uses it in place of the jinja2
template of that name. The draft's variant seeds the grammar, so the same
world gives the same text under any PYTHONHASHSEED; ``records`` lets a
document cite the records it is about (a postmortem its incident's times),
and ``CITED`` says which records those are and what of them stays citable.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from simulator.prose.chatter import chat_message, direct_message
from simulator.prose.customer_mail import customer_email, customer_reply, customer_request
from simulator.prose.documents import keep_history, keep_latest, meeting_notes, postmortem, wiki_page, wiki_runbook
from simulator.prose.escalations import (escalation_email, escalation_incident_case, escalation_incident_reply,
                                        escalation_reply)
from simulator.prose.mail import internal_email, ticket_comment
from simulator.prose.tickets import ticket
from simulator.prose.voice import Speaker

Composer = Callable[[Any, Mapping[str, Speaker], Mapping[str, str], Mapping[str, Any]], str]

COMPOSERS: dict[str, Composer] = {
    "chat_message": chat_message,
    "direct_message": direct_message,
    "internal_email": internal_email,
    "ticket_comment": ticket_comment,
    "meeting_notes": meeting_notes,
    "postmortem": postmortem,
    "wiki_runbook": wiki_runbook,
    "wiki_page": wiki_page,
    "customer_request": customer_request,
    "customer_reply": customer_reply,
    "customer_email": customer_email,
    "ticket": ticket,
    "escalation_email": escalation_email,
    "escalation_reply": escalation_reply,
    "escalation_incident_case": escalation_incident_case,
    "escalation_incident_reply": escalation_incident_reply,
}
#: Templates whose drafts composers may look up by artifact id (a postmortem its incident, a page its history),
#: each with what later drafts can still cite of an artifact's drafts once they are rendered (a world written
#: in chunks keeps only that between chunks: ``simulator.artifacts.render_all``'s ``earlier``).
CITED: dict[str, Callable[[list[Any]], list[Any]]] = {
    "incident": keep_latest, "wiki_runbook": keep_history, "wiki_page": keep_history,
}

__all__ = ["CITED", "COMPOSERS", "Composer", "Speaker"]
