"""Realism of what people say: gossip only from those who could know it, true when said, worded as a report;
runbook pages that state their dependencies; on-call suspicion that follows the deploys, not the truth."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from simulator.procedures import REVISIONS, procedure as runbook

#: Fact keys that name the record a repeated fact lives in, most specific first.
SOURCE_KEYS = (("case_id", "CASE-"), ("postmortem_id", "PM-"), ("incident_id", "INC-"), ("change_id", "CHG-"))
#: Kinds of artifact in which people repeat what they heard (escalations carry their own facts to the recipient).
TALK = ("chat_message", "direct_message", "email", "meeting_notes")
ACTION_WORDINGS = ("marking this", "status set to", "i raised")


def _source_id(facts):
    for key, prefix in SOURCE_KEYS:
        value = facts.get(key)
        if isinstance(value, str) and value.startswith(prefix):
            return value
    return None


def _repeats(world):
    """(artifact version, readers, repeated facts) for every fact dict people repeated in talk."""
    for version in world.artifacts:
        if version.kind not in TALK or "escalation_id" in version.facts:
            continue
        if version.kind == "meeting_notes":
            for item in version.facts["items"]:
                yield version, version.facts["attendees"], item
        elif _source_id(version.facts):
            yield version, [version.author], version.facts


@pytest.fixture(params=["small", "default"])
def world(request, small_world, default_world):
    return small_world if request.param == "small" else default_world


def test_facts_are_repeated_only_by_people_who_could_read_their_source(world):
    policy = world.policy
    seen = Counter()
    for version, readers, facts in _repeats(world):
        source = world.as_of(_source_id(facts), version.created_at)
        assert source is not None, version.ref
        seen[source.kind] += 1
        for reader in readers:
            access = policy.check(reader, source, version.created_at)
            assert access.allowed, (version.ref, reader, source.ref, access.reason)
    assert seen["ticket"] and seen["incident"] and seen["change"], seen


def test_news_is_repeated_in_chat_dms_email_and_meetings(default_world):
    kinds = Counter(v.kind for v, _, facts in _repeats(default_world) if _source_id(facts))
    assert all(kinds[k] > 50 for k in TALK), kinds


def test_a_repeated_case_status_is_the_tickets_status_at_that_moment(world):
    checked = 0
    for version, _, facts in _repeats(world):
        if "case_status" not in facts:
            continue
        ticket = world.as_of(facts["case_id"], version.created_at)
        assert facts["case_status"] == ticket.facts["case_status"], (version.ref, ticket.ref)
        for key, value in facts.items():  # every other case fact it repeats is on the ticket then, unchanged
            if key in ticket.facts:
                assert ticket.facts[key] == value, (version.ref, key)
        checked += 1
    assert checked >= 20


def test_repeats_are_reports_not_actions(world):
    reports = [v for v, _, facts in _repeats(world) if "case_id" in facts and "step_id" not in v.facts]
    assert len(reports) >= 20
    for version in reports:  # the worker's own #support update (it has a step_id) may say what they did
        body = version.body.lower()
        assert not any(w in body for w in ACTION_WORDINGS), (version.ref, version.body)
    said = [v for v in reports if v.kind in ("chat_message", "direct_message", "email")]
    assert all(f"{v.facts['case_id']} is {v.facts['case_status']}" in v.body for v in said)


def test_runbook_pages_state_each_steps_action_reads_writes_requires_and_escalation(small_world):
    pages = [v for v in small_world.artifacts if v.kind == "runbook"]
    # one page per runbook, a copy of each revised runbook and one misfiled copy
    assert len({v.artifact_id for v in pages}) == 8 + len(REVISIONS) + 1
    assert len({v.facts["procedure_id"] for v in pages}) == 8
    for page in pages:
        procedure = runbook(page.facts["procedure_id"], page.facts["revision"])
        details = page.facts["step_details"]
        assert [d["step_id"] for d in details] == page.facts["steps"] == [s.step_id for s in procedure.steps]
        lines = page.body.splitlines()
        for step, detail in zip(procedure.steps, details):
            assert detail["requires"] == list(step.requires) and detail["reads"] == list(step.reads)
            assert detail["writes"] == list(step.writes) and detail.get("escalates_to") == step.escalates_to
            at = next(i for i, line in enumerate(lines) if re.match(rf"\d+\. {step.step_id}: ", line))
            block = " ".join(lines[at:at + 3])
            assert step.action in block
            requires = ", ".join(step.requires) if step.requires else "nothing"
            assert f"Requires: {requires}" in block, (page.ref, step.step_id)
            if step.reads:
                assert f"Reads: {', '.join(step.reads)}." in block
            if step.writes:
                assert f"Writes: {', '.join(step.writes)}." in block
            assert (f"Escalates to: {step.escalates_to}." in block) == bool(step.escalates_to)
    escalating = [v for v in pages if v.facts["procedure_id"] == "RB-BILLING-CREDIT"]
    assert escalating and "Escalates to: support_manager." in escalating[0].body


def _incidents(world):
    return {e.payload["incident_id"]: e for e in world.events if e.type == "incident.opened"}


def test_on_call_suspects_the_latest_change_deployed_on_the_service_and_says_so_in_facts(small_world, default_world):
    for world in (small_world, default_world):
        order = {e.event_id: i for i, e in enumerate(world.events)}
        deploys = [e for e in world.events if e.type == "deploy.completed"]
        incidents = _incidents(world)
        posts = [v for v in world.artifacts if v.kind == "chat_message" and v.facts["channel"] == "#sre-oncall"
                 and "incident_id" in v.facts]
        suspicions = Counter()
        for post in posts:
            named = set(re.findall(r"CHG-\d+", post.body))
            suspect = post.facts.get("suspected_change_id")
            assert named == ({suspect} if suspect else set()), post.ref  # the body names only what facts say
            if suspect is None:
                continue
            opened = incidents[post.facts["incident_id"]]
            prior = [d for d in deploys if order[d.event_id] < order[opened.event_id]
                     and d.payload["service"] == opened.payload["service"]]
            assert prior and prior[-1].payload["change_id"] == suspect, post.ref
            suspicions[suspect == opened.payload["change_id"]] += 1
        assert suspicions[True] + suspicions[False] >= 3
    assert suspicions[False] >= 1  # in the default world on-call sometimes suspects the decoy


def test_no_channel_names_the_cause_of_an_incident_before_it_is_mitigated(small_world, default_world):
    """A responder may suspect the latest deploy (``suspected_change_id``); the cause itself is stated only
    from the mitigation on."""
    for world in (small_world, default_world):
        mitigated = {e.payload["incident_id"]: e.ts for e in world.events if e.type == "incident.mitigated"}
        causes = {i: e.payload["change_id"] for i, e in _incidents(world).items()}
        for version in world.artifacts:
            if version.kind not in TALK:
                continue
            for facts in version.facts["items"] if version.kind == "meeting_notes" else [version.facts]:
                incident_id = facts.get("incident_id")
                if incident_id in causes and facts.get("change_id") == causes[incident_id]:
                    assert incident_id in mitigated and version.created_at >= mitigated[incident_id], version.ref


def test_cause_and_decoy_changes_share_types_and_risks(default_world):
    world = default_world
    final = {}
    for version in world.artifacts:
        if version.kind == "change":
            final[version.artifact_id] = version.facts
    deploys = [e for e in world.events if e.type == "deploy.completed"]
    deployed_at = {e.payload["change_id"]: e.ts for e in deploys}
    causes, decoys = set(), set()
    for incident in _incidents(world).values():
        cause = incident.payload["change_id"]
        causes.add(cause)
        decoys |= {d.payload["change_id"] for d in deploys
                   if deployed_at[cause] <= d.ts < incident.ts and d.payload["change_id"] != cause}
    for group in (causes, decoys):
        assert len({final[c]["change_type"] for c in group}) >= 3
        assert len({final[c]["risk"] for c in group}) >= 2
    assert not {final[c]["change_type"] for c in decoys} == {"standard"}
    # standard changes are pre-approved and low risk, whoever ships them and whatever they cause
    for facts in final.values():
        if facts["change_type"] == "standard":
            assert facts["risk"] == "low" and facts.get("reviewer", "pre-approved") == "pre-approved"
        elif "reviewer" in facts:
            assert facts["reviewer"] != "pre-approved"
