"""Customer-facing prose (requests, replies, support's emails, tickets, escalations) is composed, not templated:
skeletons rarely repeat, each contact keeps one register, and an answer names the message it answers."""

from __future__ import annotations

import re

from simulator.prose.customer_mail import register_of
from simulator.prose.customer_words import CUSTOMER_POOLS
from simulator.realism import name_parts, repeat_share, skeleton

_KINDS = ("ticket", "customer_email", "customer_request", "customer_reply")


def _escalations(world, prefix):
    return [v for v in world.artifacts if v.kind == "email" and v.title.startswith(prefix)]


def test_customer_kinds_rarely_repeat_a_skeleton(default_world):
    """With three wordings these kinds repeated 6-79% of skeletons; composed, each stays under 5%."""
    names = name_parts(default_world)
    groups = {kind: [v for v in default_world.artifacts if v.kind == kind] for kind in _KINDS}
    groups["escalation"] = _escalations(default_world, "Escalation ")
    groups["escalation reply"] = _escalations(default_world, "Re: Escalation ")
    for label, versions in groups.items():
        share, count = repeat_share(skeleton(v.body, names) for v in versions)
        assert count >= 50 and share <= 0.05, (label, share, count)


def _greeting_register(body: str) -> set[str]:
    """The registers whose greeting pool can produce the request's greeting line (read from the pools' text)."""
    greeting = body.split("\n\n")[1]
    found = set()
    for register in ("terse", "formal", "upset", "chatty"):
        rule = CUSTOMER_POOLS[f"cust_greet_{register}"][0]
        options = rule.strip("[]").split("|")
        if greeting in options:
            found.add(register)
    return found


def test_a_contact_writes_every_request_in_one_register(default_world):
    """Two requests of one contact open with greetings of the same register (the pools', not the code's)."""
    requests = [v for v in default_world.artifacts if v.kind == "customer_request"]
    by_contact: dict[str, list] = {}
    for version in requests:
        by_contact.setdefault(version.facts["from_external"], []).append(version)
    checked = 0
    for address, versions in by_contact.items():
        for version in versions:
            possible = _greeting_register(version.body)
            if possible:
                assert register_of(address) in possible, (version.ref, possible)
                checked += 1
    assert checked >= len(requests) // 2
    assert len({register_of(a) for a in by_contact}) == 4


def test_an_escalation_answer_names_the_escalation_it_answers(default_world):
    sent = {v.facts["escalation_id"]: v for v in _escalations(default_world, "Escalation ")}
    replies = _escalations(default_world, "Re: Escalation ")
    assert len(replies) >= 50
    for reply in replies:
        escalation = reply.facts["escalation_id"]
        assert escalation in sent and re.search(rf"\b{escalation}\b", reply.body), reply.ref
        subject = reply.facts.get("case_id") or reply.facts["incident_id"]
        assert subject in reply.body and subject in sent[escalation].body
