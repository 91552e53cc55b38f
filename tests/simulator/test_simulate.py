"""The simulator produces a complete world: every subsystem, sane records, files that round-trip."""

from __future__ import annotations

from collections import Counter

from simulator.model import SUBSYSTEMS
from simulator.procedures import PROCEDURES


def test_default_world_size_and_subsystems(default_world):
    counts = Counter(e.subsystem for e in default_world.events)
    assert set(counts) == set(SUBSYSTEMS)
    assert len(default_world.events) >= 20_000
    assert 55 <= len(default_world.actors) <= 75


def test_events_are_in_time_order_with_unique_ids(small_world):
    events = small_world.events
    assert all(a.ts <= b.ts for a, b in zip(events, events[1:]))
    assert len({e.event_id for e in events}) == len(events)
    assert all(e.ts.tzinfo is not None for e in events)


def test_event_artifact_refs_exist(small_world):
    refs = {v.ref for v in small_world.artifacts}
    cited = [r for e in small_world.events for r in e.artifacts]
    assert cited and all(r in refs for r in cited)


def test_parent_links_point_to_earlier_events(small_world):
    when = {e.event_id: e.ts for e in small_world.events}
    for event in small_world.events:
        for parent in event.parents:
            assert when[parent.event_id] <= event.ts


def test_every_procedure_has_resolved_and_live_cases_in_default_world(default_world):
    last = {}
    for v in default_world.artifacts:
        if v.kind == "ticket":
            last[v.artifact_id] = v
    for procedure in PROCEDURES:
        cases = [v for v in last.values() if v.facts["procedure_id"] == procedure.procedure_id]
        closed = [v for v in cases if v.facts["case_status"] == "closed"]
        live = [v for v in cases if v.facts["case_status"] != "closed"]
        assert len(cases) >= 20, procedure.procedure_id
        assert len(closed) >= 15 and len(live) >= 1, procedure.procedure_id


def test_a_quiet_config_still_finishes(tmp_path):
    from simulator.config import load_config
    from simulator.simulate import simulate

    path = tmp_path / "quiet.toml"
    path.write_text("[workload]\ncases_per_person = 0\nchanges_per_person = 0\nchat_messages_per_person = 0\n"
                    "direct_messages_per_person = 0\nemails_per_person = 0\nwiki_edits_per_person = 0\n",
                    encoding="utf-8")
    world = simulate(load_config(path, days=10, people=16))
    kinds = {e.subsystem for e in world.events}
    assert not kinds & {"ticketing", "deploys", "incidents"} and {"crm", "meetings", "wiki"} <= kinds


def test_world_in_memory_equals_the_world_read_back(small_config_path, small_world):
    from simulator.config import load_config
    from simulator.simulate import simulate

    fresh = simulate(load_config(small_config_path))
    assert fresh.meta == small_world.meta
    assert [e.to_json() for e in fresh.events] == [e.to_json() for e in small_world.events]
    assert [v.to_json() for v in fresh.artifacts] == [v.to_json() for v in small_world.artifacts]
    assert [a.to_json() for a in fresh.actors] == [a.to_json() for a in small_world.actors]
    assert fresh.policy.to_json() == small_world.policy.to_json() and fresh.graph == small_world.graph


def test_context_timeout_is_simpys_timeout():
    """``simulator.context.timeout`` schedules what ``env.timeout`` does: the same queue entry and event state."""
    import simpy
    from simpy.events import Timeout

    from simulator.context import timeout

    delays = (0.0, 2.25, 1e-9)
    theirs_env, ours_env = simpy.Environment(initial_time=7.5), simpy.Environment(initial_time=7.5)
    theirs = [theirs_env.timeout(d) for d in delays]
    ours = [timeout(ours_env, d) for d in delays]
    assert [entry[:3] for entry in ours_env._queue] == [entry[:3] for entry in theirs_env._queue]
    for mine, simpys in zip(ours, theirs):
        assert type(mine) is Timeout and vars(mine) == {**vars(simpys), "env": ours_env}
    fired = []
    for event in ours:
        event.callbacks.append(lambda e: fired.append((ours_env.now, e.ok, e.value)))
    ours_env.run()
    assert fired == [(7.5, True, None), (7.5 + 1e-9, True, None), (9.75, True, None)]
