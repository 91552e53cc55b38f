"""Everyday communication: channel chatter, direct messages, internal email and weekly meetings.

People talk during business hours. Channel posts, direct messages and
internal email sometimes repeat recent news (a case's status, a deploy, an
incident) — but only when the person could read where that news lives at
that moment (``SimContext.told``), and always as it stands then: a case is
repeated with its ticket's current status, as a report ("CASE-10004 is
resolved"), never as an action. Weekly team meetings repeat the facts of
open work to their attendees under the same rule; the notes are visible
only to the attendees. The wiki holds the runbooks, each step with its
action, the facts it reads and writes, the steps it requires and where it
escalates.
"""

from __future__ import annotations

from simulator.context import SimContext
from simulator.messaging import CHANNELS, audience_acl, author_acl, post_chat, send_dm, send_email
from simulator.model import EntityRef
from simulator.org import TEAM_ROLES
from simulator.procedures import Step

#: Share of all chat posts that go to each channel.
CHANNEL_SHARE = {
    "CH-GENERAL": 0.14, "CH-SUPPORT": 0.22, "CH-ENGINEERING": 0.18, "CH-DEPLOYS": 0.04, "CH-INCIDENTS": 0.04,
    "CH-SALES": 0.08, "CH-RANDOM": 0.12, "CH-LEADERSHIP": 0.05, "CH-SRE-ONCALL": 0.05, "CH-HR-PRIVATE": 0.04,
    "CH-LEGAL-REVIEW": 0.04,
}


def _posters(ctx: SimContext, channel: str) -> list[str]:
    """Who may post in ``channel`` now: its space's members, or the members of its teams."""
    found = ctx.org.cached_or_none(("posters", channel))
    if found is not None:
        return found
    _, space, teams = CHANNELS[channel]

    def build() -> list[str]:
        if space is not None:
            return ctx.org.space_members(space)
        return [a for team in teams for a in ctx.org.members(team)]

    return ctx.org.cached(("posters", channel), build)


def channel_chatter(ctx: SimContext, channel: str):
    """People post in one channel through the business day; some posts repeat recent news."""
    rng = ctx.rng(f"comms.{channel}")
    random, choice = rng.random, rng.choice
    per_person = ctx.config.workload.chat_messages_per_person
    share = CHANNEL_SHARE[channel]
    public = CHANNELS[channel][1] is None
    topics = ctx.pack.chatter_topics
    org, news, graph, work, gap = ctx.org, ctx.news, ctx.graph, ctx.work, ctx.gap
    previous: str | None = None
    while True:
        yield work(gap(per_person * len(org.active()) * share, rng))
        posters = _posters(ctx, channel)
        if not posters:
            continue
        author = posters[int(random() * len(posters))]
        facts: dict = {}
        context = {"topic": choice(topics)}
        if news and random() < 0.35 and public:
            item = news[rng.randrange(len(news))]
            told = ctx.told(item, author)
            if told is not None:
                facts = told
                context["news_kind"] = item.kind
        post_chat(ctx, channel, author, "chat_message", facts, context)
        if previous is not None and previous != author:
            graph.interact(author, previous, ctx.env.now, 0.3)
        previous = author


def _pick_other(random, options: list[str], other_than: str) -> str:
    """One of ``options`` except ``other_than``, drawn exactly as ``ctx.pick`` draws from that shorter list."""
    if other_than not in options:
        return options[int(random() * len(options))]
    skip = options.index(other_than)
    index = int(random() * (len(options) - 1))
    return options[index + 1 if index >= skip else index]


def direct_messages(ctx: SimContext):
    """People message colleagues directly, mostly those they already work with."""
    rng = ctx.rng("comms.dm")
    random, choice = rng.random, rng.choice
    per_person = ctx.config.workload.direct_messages_per_person
    org, news, people, work, gap = ctx.org, ctx.news, ctx.org.people, ctx.work, ctx.gap
    topics = ctx.pack.chatter_topics
    while True:
        active = org.active()
        yield work(gap(per_person * len(active), rng))
        active = org.active()
        sender = active[int(random() * len(active))]
        team = org.members(people[sender].team)
        if random() < 0.3 or len(team) - (sender in team) == 0:
            team = active
        recipient = _pick_other(random, team, sender)
        facts: dict = {}
        context = {"topic": choice(topics)}
        if news and random() < 0.25:
            item = news[rng.randrange(len(news))]
            told = ctx.told(item, sender)
            if told is not None:
                facts = told
                context["news_kind"] = item.kind
        send_dm(ctx, sender, recipient, "direct_message", facts, context)


def internal_email(ctx: SimContext):
    """Internal email: updates to a team, questions to a manager."""
    rng = ctx.rng("comms.email")
    while True:
        rate = ctx.config.workload.emails_per_person * len(ctx.org.active())
        yield ctx.work(ctx.gap(rate, rng))
        sender = ctx.pick(rng, ctx.org.active())
        person = ctx.org.people[sender]
        if rng.random() < 0.5:
            recipients = [p for p in ctx.org.members(person.team) if p != sender]
            subject = f"{person.team.replace('_', ' ').title()} update"
        else:
            recipients = [person.manager] if person.manager and ctx.org.people[person.manager].left_at is None \
                else [ctx.pick(rng, ctx.org.active())]
            subject = "Quick question"
        facts: dict = {}
        context = {"topic": rng.choice(ctx.pack.chatter_topics), "team": person.team}
        if ctx.news and rng.random() < 0.5:
            item = ctx.news[rng.randrange(len(ctx.news))]
            told = ctx.told(item, sender)
            if told is not None:
                facts = told
                context["news_kind"] = item.kind
        if recipients:
            send_email(ctx, sender, recipients, subject, "internal_email", facts, None, context)


def weekly_meetings(ctx: SimContext):
    """Every team meets on the first working day of the week; the notes repeat open work to attendees."""
    rng = ctx.rng("comms.meetings")
    calendar = ctx.calendar
    for day in calendar.working_days():
        if day > 0 and calendar.is_working_day(day - 1) and (calendar.start.weekday() + day) % 7 != 0:
            continue  # not the first working day of its week
        for index, team in enumerate(TEAM_ROLES):
            yield ctx.until(calendar.day_open(day) + 60 + 30 * index)
            attendees = ctx.org.members(team)
            if len(attendees) < 2:
                continue
            hold_meeting(ctx, team, attendees, rng)


#: Case facts a support meeting goes through, as the ticket shows them that day.
AGENDA_CASE_FACTS = ("case_id", "case_status", "priority", "dispatch_id", "rma_number", "visit_date",
                     "diagnostic_code")


def _agenda(ctx: SimContext, team: str, attendees: list[str], rng) -> list[dict]:
    """The items a team goes through: facts every attendee could read at their source now, as they stand now."""
    if team in ("support_l1", "support_l2"):
        cases = [c for c in ctx.open_cases.values() if c.space is None]
        picked = [cases[i] for i in sorted(rng.sample(range(len(cases)), min(6, len(cases))))]
        items = []
        for case in picked:
            if not all(ctx.can_read(a, "ticketing", case.space) for a in attendees):
                continue
            ticket = ctx.latest(case.case_id)
            facts = ticket.facts if ticket is not None else case.facts
            items.append({k: facts[k] for k in AGENDA_CASE_FACTS if k in facts})
        return items
    if team in ("engineering", "sre", "leadership"):
        items = []
        for item in list(ctx.news)[-6:]:
            if item.kind not in ("deploy", "incident", "postmortem"):
                continue
            told = [ctx.told(item, a) for a in attendees]
            if all(t is not None for t in told):
                items.append(told[0])
        return items
    return []


def hold_meeting(ctx: SimContext, team: str, attendees: list[str], rng) -> str:
    """One team meeting: notes visible to the attendees only."""
    meeting_id = ctx.ledger.next_id("MTG")
    chair = ctx.org.manager_of(team)
    if chair not in attendees:
        chair = attendees[0]
    audience = tuple(sorted(attendees))
    agenda = _agenda(ctx, team, attendees, rng)
    facts = {"meeting_id": meeting_id, "team": team, "attendees": list(audience), "items": agenda}
    entity = EntityRef("meeting", meeting_id)
    title = f"{team.replace('_', ' ').title()} weekly — {ctx.calendar.date_of(ctx.now).isoformat()}"
    ref = ctx.ledger.draft(meeting_id, "meetings", "meeting_notes", chair, entity, title, "meeting_notes", facts,
                           audience_acl(ctx, audience), {"team": team})
    for other in audience:  # one meeting is one interaction, shared among its attendees
        ctx.graph.interact(chair, other, ctx.now, min(0.3, 1.0 / len(audience)))
    return ctx.ledger.emit("meeting.held", audience, "meetings", entity,
                           {"meeting_id": meeting_id, "team": team, "chair": chair}, (), (ref,))


def _step_details(step: Step) -> dict:
    """A runbook step as its wiki page states it: action, facts read and written, required steps, escalation."""
    details = {"step_id": step.step_id, "action": step.action, "reads": list(step.reads),
               "writes": list(step.writes), "requires": list(step.requires)}
    if step.escalates_to:
        details["escalates_to"] = step.escalates_to
    return details


def wiki_pages(ctx: SimContext):
    """Runbook and service pages, created at the start and edited through the run; some restricted."""
    rng = ctx.rng("comms.wiki")
    pages: list[tuple[str, str, str | None, dict]] = []
    support_manager = ctx.org.with_role("support_manager")[0]
    for procedure in ctx.pack.procedures:
        restricted = "SP-WIKI-RESTRICTED" if procedure.restricted else None
        facts = {"procedure_id": procedure.procedure_id, "name": procedure.name, "category": procedure.category,
                 "steps": [s.step_id for s in procedure.steps],
                 "step_details": [_step_details(step) for step in procedure.steps]}
        pages.append(("runbook", f"Runbook: {procedure.name}", restricted, facts))
    for service in ctx.pack.services:
        pages.append(("service_page", f"Service: {service}", None, {"service": service}))
    for title, topic, restricted_page in ctx.pack.wiki_pages:
        pages.append(("page", title, "SP-WIKI-RESTRICTED" if restricted_page else None, {"topic": topic}))
    ids = []
    for kind, title, space, facts in pages:
        wiki_id = ctx.ledger.next_id("WIKI")
        ids.append((wiki_id, kind, title, space, facts))
        if space is not None:
            author = ctx.pick(rng, ctx.org.space_members(space))
        elif kind == "runbook":
            author = support_manager
        else:
            author = ctx.pick(rng, ctx.org.members("engineering"))
        _wiki_version(ctx, wiki_id, kind, title, space, {**facts, "wiki_id": wiki_id, "revision_note": "created"},
                      author, "wiki.page_created")
    while True:
        rate = ctx.config.workload.wiki_edits_per_person * len(ctx.org.active())
        yield ctx.work(ctx.gap(rate, rng))
        wiki_id, kind, title, space, facts = ctx.pick(rng, ids)
        editors = ctx.org.space_members(space) if space else ctx.org.active()
        author = ctx.pick(rng, editors)
        note = rng.choice(("clarified wording", "added an example", "updated contacts", "fixed a broken link",
                           "added a troubleshooting note"))
        _wiki_version(ctx, wiki_id, kind, title, space, {**facts, "wiki_id": wiki_id, "revision_note": note},
                      author, "wiki.page_edited")


def _wiki_version(ctx: SimContext, wiki_id: str, kind: str, title: str, space: str | None, facts: dict,
                  author: str, event_type: str) -> str:
    entity = EntityRef("wiki_page", wiki_id)
    template = "wiki_runbook" if kind == "runbook" else "wiki_page"
    ref = ctx.ledger.draft(wiki_id, "wiki", kind, author, entity, title, template, facts,
                           author_acl(ctx, space, author))
    return ctx.ledger.emit(event_type, (author,), "wiki", entity, {"wiki_id": wiki_id, "restricted": space is not None},
                           (), (ref,))

