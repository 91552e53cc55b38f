"""Hard kinds on simulated worlds: questions a retriever that matches ids cannot settle without following joins.

Truth comes from the world's own join keys (docs/world.md): an incident's
``change_id`` (its one causing change, first stated by its mitigated
version) and the ``incident_id`` that escalation emails, #sre-oncall posts
and postmortems carry.

- Counterfactual ``indirect``: did the deploy of change C lead to an
  escalation email about incident I? The email names I and no change; the
  link is I's ``change_id``. Each email after which another change D was
  deployed on I's service before the email gives two questions with opposite
  truth: did C's deploy lead to it (causal, though D landed between), and did
  D's deploy lead to it (no link: same service, same window, but I's
  ``change_id`` is C)? D is the last such deploy before the email; causes in
  the busiest windows and decoys in the quietest are taken first, so nearness
  points the wrong way on both. Emails with no such D give causal questions
  only, taken last.
- Counterfactual ``named_decoy``: an #sre-oncall post about incident I names
  change D as the suspect: D was the last deploy on I's service before I
  opened, but I's ``change_id`` is another change C, deployed on the same
  service before D. Each such post gives a pair of questions with opposite
  truth, taken together and worded alike (``Question.pair``): did D's deploy
  lead to the post (no link, though the post names D and, in a quiet window,
  nothing else was touched between), and did C's deploy lead to it (causal,
  though the post never names C and D landed between)? Neither naming nor
  nearness decides them, and a reader that answers from the post or the
  wording alone is right on one of each pair; pairs whose decoy window is
  quietest (fewest other changes touched between D's deploy and the post)
  are taken first (``Question.rank``).
- Silence ``indirect``: after an escalation (or the first #sre-oncall post
  about an incident), was a postmortem published for the incident it was
  about? The postmortem is recorded under the incident's id, which must be
  followed from the trigger's record; exists and absence in equal numbers.

``as_of`` is after the incident's version that states its ``change_id``, so
every answer is decidable from evidence the actor may read.
"""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from benchmark_builders.groundeval.contracts import (
    COUNTERFACTUAL, NO_LINK_ALIASES, NO_LINK_MECHANISM, SILENCE, Contract, Question, Rules, Truth, question_id,
)
from benchmark_builders.groundeval.counterfactual import mechanism_names
from benchmark_builders.groundeval.worldview import WorldView, floor_minute, when
from simulator.model import ArtifactVersion, Event

POSTMORTEM_WINDOW = timedelta(days=14)


def _record(event: Event) -> str | None:
    return event.artifacts[0].rsplit("@", 1)[0] if event.artifacts else None


class _Incidents:
    """Incidents by id: the opening event, the causing deploy, and when the cause was first stated."""

    def __init__(self, view: WorldView) -> None:
        self.view = view
        self.opened = {e.payload["incident_id"]: e for e in view.events_by_type.get("incident.opened", [])
                       if e.payload.get("incident_id") and e.payload.get("change_id")}
        self.deploys = {e.payload.get("change_id"): e for e in view.events_by_type.get("deploy.completed", [])}

    def stated(self, incident_id: str) -> ArtifactVersion | None:
        """The first version of the incident's record that states its causing change."""
        cause = self.opened[incident_id].payload["change_id"]
        return next((v for v in self.view.world.versions(incident_id) if v.facts.get("change_id") == cause), None)

    def moment(self, incident_id: str, after: datetime, rng: random.Random) -> datetime | None:
        """An ``as_of`` after ``after`` and after the cause was stated (None if the world ends first)."""
        stated = self.stated(incident_id)
        if stated is None:
            return None
        start = max(after, stated.created_at)
        at = floor_minute(start + timedelta(hours=rng.uniform(1, 36)))
        return at if at <= self.view.end else None


def _viewer(view: WorldView, rng: random.Random, involved: set[str], at: datetime,
            groups: list[list[ArtifactVersion]]) -> tuple[str, list[list[ArtifactVersion]]] | None:
    """An actor (involved people first) who sees something of every group at ``at``, and what they see."""
    people = [a.actor_id for a in view.actors]
    head = sorted(p for p in people if p in involved)
    tail = [p for p in people if p not in involved]
    rng.shuffle(head)
    rng.shuffle(tail)
    for actor in head + tail:
        seen = [view.visible(actor, g, at) for g in groups]
        if all(seen):
            return actor, seen
    return None


def _counterfactual(view: WorldView, kind: str, cause: Event, effect: Event, effect_label: str, incident_id: str,
                    rng: random.Random, incidents: _Incidents, mechanisms: tuple[str, ...],
                    rank: int = 0) -> Question | None:
    at = incidents.moment(incident_id, effect.ts, rng)
    if at is None:
        return None
    incident = view.as_of(incident_id, at)
    groups = [view.event_artifacts(cause, at), view.event_artifacts(effect, at), [incident] if incident else []]
    found = _viewer(view, rng, set(cause.actors) | set(effect.actors), at, groups)
    if found is None or incident is None:
        return None
    actor, (seen_cause, seen_effect, seen_incident) = found
    linked = cause.payload.get("change_id") == incidents.opened[incident_id].payload["change_id"]
    mechanism = str(incident.facts.get("mechanism") or "") if linked else NO_LINK_MECHANISM
    if linked and mechanism not in mechanisms:
        return None
    aliases = ((mechanism, *[a for a in incident.facts.get("mechanism_aliases") or [] if isinstance(a, str)])
               if linked else (NO_LINK_MECHANISM, *NO_LINK_ALIASES))
    cause_refs = tuple(sorted(v.ref for v in seen_cause))
    effect_refs = tuple(sorted({v.ref for v in seen_effect} | {v.ref for v in seen_incident}))
    required = tuple(sorted(set(cause_refs) | set(effect_refs)))
    effect_record = _record(effect) or effect.entity.id
    content = {"world": view.name, "kind": kind, "actor": actor, "as_of": when(at),
               "cause": cause.event_id, "effect": effect.event_id}
    qid = question_id(COUNTERFACTUAL, content)
    involved = sorted(set(cause.actors) | set(effect.actors))
    gold = {"outcome_changed": linked, "causal_mechanism": mechanism, "cause_event_id": cause.event_id,
            "effect_event_id": effect.event_id, "mechanism_direction": "cause_to_effect" if linked else "no_causal_link",
            "evidence_artifacts": list(required), "actors": involved}
    cause_change = cause.payload.get("change_id")
    why = (f"{effect_record} is about {incident_id}, whose change_id is {incident.facts.get('change_id')} "
           f"({'the asked change' if linked else f'not {cause_change}'})")
    wording = {
        "cause_event_id": cause.event_id, "cause_type": cause.type, "cause_entity": f"change {cause_change}",
        "cause_ts": when(cause.ts), "effect_event_id": effect.event_id, "effect_type": effect.type,
        "effect_entity": f"{effect_label} {effect_record}",     # not its incident: the join to follow
        "effect_ts": when(effect.ts), "as_of": when(at), "actor": actor}
    subject = {"cause_event_id": cause.event_id, "effect_event_id": effect.event_id, "cause_ts": when(cause.ts),
               "effect_ts": when(effect.ts), "cause_entity": {"kind": "change", "id": cause_change},
               "effect_entity": {"kind": effect_label.split()[-1], "id": effect_record},
               "about": {"kind": "incident", "id": incident_id}}
    contract = Contract(qid, COUNTERFACTUAL, view.name, actor, view.policy.role_at(actor, at),
                        view.readable_subsystems(actor, at), at, "", subject, {"mechanisms": list(mechanisms)})
    truth = Truth(qid, COUNTERFACTUAL, kind, "hard", gold, required, required, (), aliases, tuple(involved),
                  cause_refs, effect_refs, why)
    return Question(contract, truth, wording, effect.type, kind, rank)


def _touched_between(view: WorldView, change_id: str, start: datetime, end: datetime) -> int:
    """How many changes other than ``change_id`` had an event strictly between ``start`` and ``end``."""
    return len({e.payload["change_id"] for kind in ("change.proposed", "change.approved", "deploy.completed",
                                                    "change.rolled_back")
                for e in view.events_by_type.get(kind, [])
                if start < e.ts < end and e.payload.get("change_id") not in (None, change_id)})


def _deployed_between(view: WorldView, cause: Event, end: datetime) -> list[Event]:
    """The deploys of other changes on the cause's service after it and before ``end``, in time order."""
    return [e for e in view.events_by_type.get("deploy.completed", [])
            if cause.ts < e.ts < end and e.payload.get("service") == cause.payload.get("service")
            and e.payload.get("change_id") != cause.payload.get("change_id")]


def _indirect(view: WorldView, rng: random.Random, incidents: _Incidents, mechanisms: tuple[str, ...]) -> list[Question]:
    """``indirect`` pairs from escalation emails: the cause (causal) and the last deploy on its service since (no link)."""
    out: list[Question] = []
    for effect in view.events_by_type.get("escalation.sent", []):
        incident_id = str(effect.payload.get("incident_id") or "")
        cause = incidents.deploys.get(incidents.opened[incident_id].payload["change_id"]) \
            if incident_id in incidents.opened else None
        if cause is None or not cause.ts < effect.ts:
            continue
        between = _deployed_between(view, cause, effect.ts)
        asked = [(cause, -_touched_between(view, cause.payload["change_id"], cause.ts, effect.ts) if between else 1)]
        if between:
            decoy = between[-1]
            asked.append((decoy, _touched_between(view, decoy.payload["change_id"], decoy.ts, effect.ts)))
        for candidate, rank in asked:
            q = _counterfactual(view, "indirect", candidate, effect, "escalation email", incident_id, rng,
                                incidents, mechanisms, rank)
            out += [q] if q is not None else []
    return out


def hard_counterfactual_candidates(view: WorldView, rng: random.Random, mechanisms: tuple[str, ...]) -> list[Question]:
    """``indirect`` questions from escalation emails and ``named_decoy`` questions from #sre-oncall suspects."""
    incidents = _Incidents(view)
    out = _indirect(view, rng, incidents, mechanisms)
    for effect in view.events_by_type.get("chat.message_posted", []):
        incident_id = str(effect.payload.get("incident_id") or "")
        post = view.as_of(_record(effect) or "", effect.ts)
        suspect = post.facts.get("suspected_change_id") if post is not None else None
        if incident_id not in incidents.opened or not suspect:
            continue
        decoy, cause = incidents.deploys.get(suspect), incidents.deploys.get(incidents.opened[incident_id].payload["change_id"])
        if decoy is None or cause is None or not cause.ts < decoy.ts < effect.ts:
            continue                   # the suspect is the cause, or not deployed after it: no decoy here
        # nearness misleads most where nothing else was touched between the decoy's deploy and the post: first
        rank = _touched_between(view, suspect, decoy.ts, effect.ts)
        no_link, link = (_counterfactual(view, "named_decoy", asked, effect, "#sre-oncall message", incident_id, rng,
                                         incidents, mechanisms, rank) for asked in (decoy, cause))
        if no_link is not None and link is not None:     # both verdicts about one post, or neither
            out += [replace(q, pair=no_link.contract.question_id) for q in (no_link, link)]
    return out


def _silence(view: WorldView, trigger: Event, incident_id: str, rng: random.Random) -> Question | None:
    at = floor_minute(min(trigger.ts + POSTMORTEM_WINDOW, view.end))
    if at - trigger.ts < POSTMORTEM_WINDOW / 2:
        return None
    responses = [e for e in view.events_by_type.get("postmortem.published", [])
                 if e.payload.get("incident_id") == incident_id and trigger.ts < e.ts <= at]
    exists = bool(responses)
    response_versions = [v for r in responses for v in view.event_artifacts(r, at)]
    trigger_versions = view.event_artifacts(trigger, at)
    actors = [a.actor_id for a in view.actors]
    rng.shuffle(actors)
    for actor in actors:
        if "postmortems" not in view.readable_subsystems(actor, at) or not view.visible(actor, trigger_versions, at):
            continue
        seen = view.visible(actor, response_versions, at)
        if exists and not seen:
            continue
        break
    else:
        return None
    record = _record(trigger) or trigger.event_id
    own = str(trigger.payload.get("escalation_id") or record)      # the id the trigger is known by
    content = {"world": view.name, "kind": "indirect", "actor": actor, "as_of": when(at), "trigger": trigger.event_id}
    qid = question_id(SILENCE, content)
    required = tuple(sorted({v.ref for v in seen})) if exists else ()
    permitted = tuple(sorted(set(required) | {v.ref for v in view.visible(actor, trigger_versions, at)}))
    label = "a published postmortem"
    named = (f"escalation {own} (email {record})" if trigger.type == "escalation.sent"   # never the incident:
             else f"#sre-oncall message {record}")                                      # that is the join to follow
    wording = {"trigger_entity": named,
               "trigger_type": trigger.type, "trigger_event_id": trigger.event_id, "trigger_ts": when(trigger.ts),
               "selectors": "", "as_of": when(at), "response_label": f"{label} for the incident it was about", "actor": actor}
    subject: dict[str, Any] = {
        "trigger_event_id": trigger.event_id,
        "trigger_entity": {"kind": "escalation" if trigger.type == "escalation.sent" else "message", "id": own},
        "trigger_records": [record], "trigger_ts": when(trigger.ts), "response": label, "selectors": [own],
        "about": {"kind": "incident", "id": incident_id}}
    contract = Contract(qid, SILENCE, view.name, actor, view.policy.role_at(actor, at),
                        view.readable_subsystems(actor, at), at, "", subject)
    why = (f"postmortem {', '.join(r.event_id for r in responses)} for {incident_id}" if exists
           else f"no postmortem for {incident_id} by {when(at)}") + f" (recorded under {incident_id}, not {own})"
    truth = Truth(qid, SILENCE, "indirect", "hard", {"exists": exists, "evidence_artifacts": list(required)}, required,
                  permitted, ({"subsystem": "postmortems", "selector": incident_id, "mode": "query", "value": incident_id},),
                  (), (), (), (), why)
    return Question(contract, truth, wording, trigger.type, "indirect")


def hard_silence_candidates(view: WorldView, rng: random.Random) -> list[Question]:
    """``indirect`` silence questions after escalations and first #sre-oncall posts: as many with a postmortem
    as without (seeded)."""
    incidents = _Incidents(view)
    found: dict[bool, list[Question]] = {True: [], False: []}
    first_posts: dict[str, Event] = {}
    for post in view.events_by_type.get("chat.message_posted", []):
        first_posts.setdefault(str(post.payload.get("incident_id") or ""), post)
    first_posts.pop("", None)
    triggers = view.events_by_type.get("escalation.sent", []) + [first_posts[i] for i in sorted(first_posts)]
    for trigger in triggers:
        incident_id = str(trigger.payload.get("incident_id") or "")
        if incident_id in incidents.opened:
            q = _silence(view, trigger, incident_id, rng)
            if q is not None:
                found[bool(q.truth.gold["exists"])].append(q)
    keep = min(len(found[True]), len(found[False]))
    return [q for side in (True, False) for q in sorted(rng.sample(found[side], keep), key=lambda q: q.contract.question_id)]


def counterfactual_track_candidates(view: WorldView, rules: Rules, rng: random.Random) -> list[Question]:
    """The Counterfactual track's hard candidates, their mechanisms named as the rules name them."""
    return hard_counterfactual_candidates(view, rng, mechanism_names(view, rules))


def silence_track_candidates(view: WorldView, rules: Rules, rng: random.Random) -> list[Question]:
    """The Silence track's hard candidates (``hard_silence_candidates``)."""
    return hard_silence_candidates(view, rng)
