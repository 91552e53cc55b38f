"""Access over time in generated worlds: departures, private channels, authors, event actors."""

from __future__ import annotations

from datetime import timedelta

from simulator.model import Acl


def _by_actor(world):
    return {a.actor_id: a for a in world.actors}


def test_departed_people_gain_no_access_after_leaving(small_world):
    policy = small_world.policy
    departed = [a for a in small_world.actors if a.left_at is not None]
    assert departed, "the small world has departures"
    later = [v for v in small_world.artifacts if v.acl == Acl() or v.subsystem == "chat"]
    for actor in departed:
        before = actor.left_at - timedelta(seconds=1)
        assert policy.employed_at(actor.actor_id, before)
        seen_before = [v for v in later[:200] if policy.can_see(actor.actor_id, v, before)]
        assert seen_before, "they could see things while employed"
        for version in later:
            moment = max(version.created_at, actor.left_at)
            access = policy.check(actor.actor_id, version, moment)
            assert not access.allowed and access.gate == "actor"
        assert policy.subsystems_at(actor.actor_id, actor.left_at) == frozenset()


def test_departed_people_do_nothing_after_leaving(small_world):
    actors = _by_actor(small_world)
    for event in small_world.events:
        for actor_id in event.actors:
            actor = actors[actor_id]
            if event.type == "hr.departed" and event.payload["actor_id"] == actor_id:
                continue
            assert actor.employed_at(event.ts), (event.event_id, event.type, actor_id)
    for version in small_world.artifacts:
        assert actors[version.author].employed_at(version.created_at), version.ref


def test_private_channel_messages_visible_only_to_members_at_that_time(small_world):
    policy = small_world.policy
    private = [v for v in small_world.artifacts if v.kind == "chat_message" and v.acl.space is not None]
    assert {v.acl.space for v in private} >= {"SP-SRE-ONCALL", "SP-LEADERSHIP"}
    end = max(e.ts for e in small_world.events)
    for version in private:
        assert policy.is_member(version.acl.space, version.author, version.created_at)
        for moment in (version.created_at, version.created_at + timedelta(days=5), end):
            if moment < version.created_at:
                continue
            for actor in small_world.actors:
                member = policy.is_member(version.acl.space, actor.actor_id, moment)
                access = policy.check(actor.actor_id, version, moment)
                if member:
                    assert access.allowed, (actor.actor_id, version.ref)
                else:
                    assert access.gate == "actor", (actor.actor_id, version.ref)


def test_space_membership_follows_role_changes(small_world):
    policy = small_world.policy
    moves = [e for e in small_world.events if e.type == "hr.role_changed"]
    assert moves
    for event in moves:
        actor_id = event.payload["actor_id"]
        just_before = event.ts - timedelta(seconds=1)
        assert policy.role_at(actor_id, just_before) == event.payload["from_role"]
        assert policy.role_at(actor_id, event.ts) == event.payload["to_role"]
        was_oncall = policy.is_member("SP-SRE-ONCALL", actor_id, just_before)
        is_oncall = policy.is_member("SP-SRE-ONCALL", actor_id, event.ts)
        assert was_oncall == (event.payload["from_role"] == "sre")
        assert is_oncall == (event.payload["to_role"] == "sre")


def test_grants_open_a_subsystem_for_their_window(small_world):
    policy = small_world.policy
    grants = [e for e in small_world.events if e.type == "access.granted"]
    assert grants
    for event in grants:
        grant = next(g for g in policy.grants if g.grant_id == event.payload["grant_id"])
        role = policy.role_at(grant.actor_id, grant.valid_from)
        if role is None or event.payload["subsystem"] in policy.roles[role]:
            continue
        assert event.payload["subsystem"] in policy.subsystems_at(grant.actor_id, grant.valid_from)
        assert event.payload["subsystem"] not in policy.subsystems_at(grant.actor_id, grant.valid_from - timedelta(seconds=1))
        if policy.employed_at(grant.actor_id, grant.valid_to):
            assert event.payload["subsystem"] not in policy.subsystems_at(grant.actor_id, grant.valid_to)


def test_every_author_could_see_what_they_wrote(small_world):
    policy = small_world.policy
    for version in small_world.artifacts:
        assert policy.can_see(version.author, version, version.created_at), version.ref


def test_audiences_and_restricted_queues(small_world):
    kinds = {}
    for version in small_world.artifacts:
        kinds.setdefault(version.kind, []).append(version)
    assert all(v.acl.audience is not None and len(v.acl.audience) == 2 for v in kinds["direct_message"])
    assert all(v.acl.audience and v.author in v.acl.audience for v in kinds["email"])
    assert all(set(v.acl.audience) == set(v.facts["attendees"]) for v in kinds["meeting_notes"])
    strategic = [v for v in kinds["ticket"] if v.acl.space == "SP-STRATEGIC-ACCOUNTS"]
    strategic_ids = {v.artifact_id for v in strategic}
    assert strategic and not [v for v in kinds["chat_message"] if v.facts.get("case_id") in strategic_ids]
    restricted_wiki = [v for v in kinds["runbook"] if v.acl.space == "SP-WIKI-RESTRICTED"]
    assert {v.facts["procedure_id"] for v in restricted_wiki} == {"RB-DATA-RECOVERY"}


def test_hires_gain_access_from_their_first_moment(small_world):
    policy = small_world.policy
    hires = [e for e in small_world.events if e.type == "hr.hired"]
    assert hires
    actors = _by_actor(small_world)
    for event in hires:
        actor = actors[event.payload["actor_id"]]
        assert actor.joined_at == event.ts
        assert policy.role_at(actor.actor_id, event.ts - timedelta(seconds=1)) is None
        assert policy.role_at(actor.actor_id, event.ts) == event.payload["role"]
        earlier = next(v for v in small_world.artifacts if v.subsystem == "wiki" and v.acl.space is None)
        assert policy.check(actor.actor_id, earlier, event.ts - timedelta(seconds=1)).gate == "actor"
        assert policy.can_see(actor.actor_id, earlier, event.ts)
