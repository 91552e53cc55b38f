"""The entry point: run the seeded simulation for a config and return (or write) the World.

``simulate`` builds the organisation and its customers, starts one simpy
process per business process, runs the clock day by day to the end, renders
every artifact in bulk, and assembles the World. ``simulate_to`` instead
writes the world as it runs (``simulator.stream``), in bounded chunks, so its
memory stays flat as worlds grow.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Mapping

import simpy
from simulator.artifacts import render_all, speaking
from simulator.prose import Speaker
from simulator.calendar import DAY, BusinessCalendar
from orgbench.core.clock import format_ts
from orgbench.core.collector import collector_paused
from simulator.config import SimConfig
from simulator.context import SimContext, stream
from simulator.customers import generate_accounts
from simulator import graph as graph_weights
from simulator.graph import CollaborationGraph
from simulator.ledger import Draft, Ledger
from simulator.names import Names
from simulator.messaging import CHANNELS
from simulator.offices import OFFICES, office_calendars, pick_office, plan_leave
from simulator.model import SUBSYSTEMS
from simulator.org import Org
from simulator.processes.comms import channel_chatter, direct_messages, internal_email, weekly_meetings, wiki_pages
from simulator.processes.crm import crm
from simulator.processes.engineering import change_arrivals
from simulator.processes.runbooks import runbook_pages
from simulator.processes.staffing import staffing
from simulator.processes.support import case_arrivals
from orgbench.core.storage import staged_directory
from simulator.stream import CHUNK, Rewrite, WorldWriter
from simulator.world import FORMAT_VERSION, World, build_world

#: ``progress(done, total)`` is called once per simulated day.
Progress = Callable[[int, int], None]


def _context(config: SimConfig) -> SimContext:
    env = simpy.Environment()
    calendar = BusinessCalendar(config.start, config.days, config.calendar)
    ledger = Ledger(env, calendar, stream(config.seed, "wording"))
    org = Org.generate(config, calendar, stream(config.seed, "org"), Names(config.seed))
    graph = CollaborationGraph(config.graph.daily_decay, config.graph.interaction_weight)
    for actor_id, person in org.people.items():
        graph.add_person(actor_id, name=person.name, team=person.team)
    for actor_id, person in org.people.items():  # everyone starts with ties to their manager and team
        if person.manager:
            graph.interact(actor_id, person.manager, 0.0, graph_weights.MANAGER_TIE)
        team = org.members(person.team)
        for colleague in team:
            graph.interact(actor_id, colleague, 0.0, min(graph_weights.COLLEAGUE_TIE, graph_weights.COLLEAGUE_SPREAD / len(team)))
    accounts = generate_accounts(
        max(1, round(config.customers.accounts_per_person * config.people)), config.customers.contacts_per_account,
        config.customers.assets_per_account, config.customers.strategic_share, config.start,
        org.members("sales"), stream(config.seed, "customers"), org.faker, config.domain_pack.products,
    )
    ctx = SimContext(env, config, calendar, ledger, org, graph, accounts)
    ctx.calendars = office_calendars(config.start, config.days, config.calendar)
    places = stream(config.seed, "offices")
    for actor_id in sorted(org.people):
        office = pick_office(org.people[actor_id].team, places)
        org.place(actor_id, office, OFFICES[office][0])
    ctx.leave = plan_leave(sorted(org.people), calendar.working_days(), places)
    return ctx


def _start_processes(ctx: SimContext) -> None:
    env = ctx.env
    env.process(crm(ctx))
    env.process(runbook_pages(ctx))
    env.process(wiki_pages(ctx))
    env.process(staffing(ctx))
    env.process(case_arrivals(ctx))
    env.process(change_arrivals(ctx))
    for channel in CHANNELS:
        env.process(channel_chatter(ctx, channel))
    env.process(direct_messages(ctx))
    env.process(internal_email(ctx))
    env.process(weekly_meetings(ctx))


def simulate(config: SimConfig, progress: Progress | None = None, timings: dict[str, float] | None = None) -> World:
    """Run the simulation for ``config`` and return the World (deterministic for a config and seed).

    With ``timings``, the seconds spent in each phase (setup, event_loop, render, events, graph, assemble)
    are stored in it — for benchmarks; they never reach the world.
    """
    with collector_paused(promote=True):
        return _simulate(config, progress, timings if timings is not None else {})


def _run_days(config: SimConfig, progress: Progress | None, timings: dict[str, float],
              each_day: Callable[[SimContext], None] | None = None) -> SimContext:
    """Set up and run the event loop day by day; ``each_day(ctx)`` after every simulated day."""
    clock = time.perf_counter
    started = clock()
    ctx = _context(config)
    _start_processes(ctx)
    timings["setup"] = clock() - started
    started = clock()
    for day in range(config.days):
        ctx.env.run(until=(day + 1) * DAY)
        if each_day is not None:
            each_day(ctx)
        if progress is not None:
            progress(day + 1, config.days)
    timings["event_loop"] = clock() - started
    return ctx


def _names(ctx: SimContext) -> dict[str, str]:
    return {a: p.name for a, p in ctx.org.people.items()}


def _cast(ctx: SimContext) -> dict[str, Speaker]:
    return {a: Speaker(p.name, p.team, p.role, p.title) for a, p in ctx.org.people.items()}


def _meta(config: SimConfig, ctx: SimContext, events: int, versions: int, by_subsystem: dict[str, int],
          claims: int) -> dict:
    return {
        "format_version": FORMAT_VERSION,
        "generator": "orgbench.simulator",
        "seed": config.seed,
        "start": format_ts(ctx.calendar.start),
        "end": format_ts(ctx.calendar.moment(config.days * DAY)),
        "config": config.to_json(),
        "counts": {
            "actors": len(ctx.org.people), "events": events, "artifact_versions": versions,
            "artifacts": len(ctx.ledger.latest), "events_by_subsystem": by_subsystem,
            "labelled_claims": claims,
        },
    }


def _simulate(config: SimConfig, progress: Progress | None, timings: dict[str, float]) -> World:
    clock = time.perf_counter
    ctx = _run_days(config, progress, timings)
    started = clock()
    with speaking(ctx.pack.wording):
        versions = render_all(ctx.ledger.drafts, _names(ctx), ctx.ledger.moment, _cast(ctx), consume=True)
    timings["render"] = clock() - started
    started = clock()
    events = ctx.ledger.events  # Event records are built here, once, from the rows the loop stored
    timings["events"] = clock() - started
    by_subsystem = {s: 0 for s in SUBSYSTEMS}
    for event in events:
        by_subsystem[event.subsystem] += 1
    meta = _meta(config, ctx, len(events), len(versions), by_subsystem, len(ctx.claims))
    started = clock()
    graph = ctx.graph.node_link(config.days * DAY, config.seed)
    timings["graph"] = clock() - started
    started = clock()
    world = build_world(meta, ctx.org.actors(), events, versions, ctx.org.to_policy(), graph, ctx.claims)
    timings["assemble"] = clock() - started
    return world


def simulate_to(config: SimConfig, out_dir: Path, progress: Progress | None = None,
                chunk: int = CHUNK, rewrite: Rewrite | None = None) -> Mapping[str, Any]:
    """Simulate and write the world to ``out_dir`` as it runs; return its world.json metadata.

    Events, artifact versions and labelled claims go to disk in chunks of about ``chunk`` records (handed
    over at day boundaries) as the loop runs, so memory holds the organisation's current state, one chunk
    and what later prose can still cite (``simulator.prose.CITED``); the files are byte-identical to
    ``save_world(simulate(config), out_dir)``. The directory is staged and renamed into place when complete.
    With ``rewrite`` (``simulator.stream.Rewrite``) each chunk's bodies are rewritten before they are written,
    and world.json gains its ``prose`` record; nothing else of the world changes.
    """
    with collector_paused(promote=True), staged_directory(Path(out_dir)) as tmp:
        writer = WorldWriter(tmp, SUBSYSTEMS, rewrite)
        earlier: dict[str, list[Draft]] = {}
        try:
            def hand_over(ctx: SimContext) -> None:
                if ctx.ledger.pending() >= chunk:
                    _write_chunk(ctx, writer, earlier)

            ctx = _run_days(config, progress, {}, hand_over)
            _write_chunk(ctx, writer, earlier)
            meta = _meta(config, ctx, writer.events, writer.versions, dict(writer.by_subsystem), writer.claims)
            if rewrite is not None:
                meta["prose"] = dict(rewrite.record())
            writer.finish(meta, ctx.org.actors(), ctx.org.to_policy(), ctx.graph.node_link(config.days * DAY,
                                                                                            config.seed))
        finally:
            writer.close()
    return meta


def _write_chunk(ctx: SimContext, writer: WorldWriter, earlier: dict[str, list[Draft]]) -> None:
    """Render the drafts recorded so far and append them, with the events and claims, to the writer."""
    events, drafts, claims = ctx.release()
    with speaking(ctx.pack.wording):
        versions = render_all(drafts, _names(ctx), ctx.ledger.moment, _cast(ctx), consume=True, earlier=earlier)
    writer.write(events, versions, claims)
