"""Everyday communication: channel chatter, direct messages, internal email and weekly meetings.

People talk during their own office's hours (``simulator.processes.shifts``:
London, New York and Singapore, each with its holidays; nobody on leave
writes), so the day's chatter follows the sun. Channel posts, direct messages and
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

from functools import partial

from simulator.context import NewsItem, SimContext
from simulator.messaging import CHANNELS, audience_acl, author_acl, post_chat, send_dm, send_email
from simulator.model import EntityRef, ParentLink
from simulator.org import TEAM_ROLES
from simulator.processes.shifts import Shift
from simulator.prose.voice import Thread
from simulator.graph import CHANNEL_NEIGHBOUR, MEETING_SHARE

#: Share of all chat posts that go to each channel.
CHANNEL_SHARE = {
    "CH-GENERAL": 0.14, "CH-SUPPORT": 0.22, "CH-ENGINEERING": 0.18, "CH-DEPLOYS": 0.04, "CH-INCIDENTS": 0.04,
    "CH-SALES": 0.08, "CH-RANDOM": 0.12, "CH-LEADERSHIP": 0.05, "CH-SRE-ONCALL": 0.05, "CH-HR-PRIVATE": 0.04,
    "CH-LEGAL-REVIEW": 0.04,
}
#: Chance that a question in a channel or a DM gets an answer, and that the asker follows up on one.
ANSWER_RATE = 0.7
FOLLOW_UP_RATE = 0.5


def _asked(ctx: SimContext, event_id: str, author: str, topic: str, where: str) -> dict:
    """What a reply needs to know about the message just recorded: its id, author, topic and wording seed."""
    draft = ctx.ledger.drafts[-1]
    return {"event_id": event_id, "message_id": draft.artifact_id, "author": author, "topic": topic,
            "seed": draft.variant, "channel": where, "team": ctx.org.people[author].team}


def _thread_turn(asked: dict, turn: int, answered: bool = True, team: str | None = None
                 ) -> tuple[dict, dict, tuple[ParentLink, ...]]:
    """The facts, context and parent link of a reply (turn 1) or the asker's follow-up (turn 2).

    ``team`` is the replier's team now; the question keeps the asker's team from when they asked.
    """
    thread = Thread(asked["message_id"], asked["author"], asked["topic"], asked["seed"], asked["channel"],
                    asked["team"], turn, answered)
    return ({"in_reply_to": asked["message_id"]}, {"topic": "reply", "reply_to": thread, "team": team},
            (ParentLink(asked["event_id"], {"in_reply_to": asked["message_id"]}),))


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
    org, graph = ctx.org, ctx.graph
    threads = ctx.rng(f"comms.threads.{channel}")
    pending: list[tuple[float, dict, int, bool]] = []  # (due minute, question, turn, answered)
    previous: str | None = None
    shift = Shift(ctx, channel, partial(_posters, ctx, channel), rng)
    while True:
        rate, posters = per_person * len(org.active()) * share, None
        while posters is None:
            timeout, posters = shift.wait(rate)
            yield timeout
        if pending:  # a due reply takes this turn: threads do not add to the channel's volume
            pending, replied = _channel_replies(ctx, channel, posters, pending, threads)
            if replied:
                continue
        author = posters[int(random() * len(posters))]
        context = {"topic": choice(topics), "team": org.people[author].team}
        facts, item = _news(ctx, rng, author, 0.35, context, public)
        event_id = post_chat(ctx, channel, author, "chat_message", facts, context)
        if facts and item is not None:  # the latest public post about this record, which a meeting may cite
            ctx.shared[("discussed", item.source_id)] = (ctx.ledger.drafts[-1].artifact_id, CHANNELS[channel][0])
        if not facts and context["topic"] == "question" and len(posters) > 1:
            pending.append((ctx.env.now + threads.uniform(5, 120), _asked(ctx, event_id, author, "question",
                                                                           CHANNELS[channel][0]), 1, True))
        if previous is not None and previous != author:
            graph.interact(author, previous, ctx.env.now, CHANNEL_NEIGHBOUR)
        previous = author


def _news(ctx: SimContext, rng, teller: str, chance: float, context: dict, allowed: bool = True
          ) -> tuple[dict, NewsItem | None]:
    """Now and then (``chance``) a recent news item as ``teller`` could repeat it now: its facts (empty if
    none) and the item; ``context`` learns the news kind. Draws from ``rng`` exactly as each process did."""
    news = ctx.news
    if news and rng.random() < chance and allowed:
        item = news[rng.randrange(len(news))]
        told = ctx.told(item, teller)
        if told is not None:
            context["news_kind"] = item.kind
            return told, item
    return {}, None


def _due(ctx: SimContext, pending: list, replier=None) -> tuple[tuple | None, list]:
    """The first pending reply that is due now (or None), and the others.

    ``replier(entry)`` names who sends it: a reply waits until they are at work (or drops once they left)."""
    now = ctx.env.now
    for index, entry in enumerate(pending):
        if entry[0] <= now and (replier is None or ctx.at_work(replier(entry))
                                or ctx.org.people[replier(entry)].left_at is not None):
            return entry, pending[:index] + pending[index + 1:]
    return None, pending


def _channel_replies(ctx: SimContext, channel: str, posters: list[str], pending: list, rng) -> tuple[list, bool]:
    """Post at most one due reply in ``channel`` (an answer, mostly by the asker's team, or the asker's follow-up
    or bump); returns the replies still pending and whether one was posted."""
    entry, later = _due(ctx, pending)
    if entry is None:
        return later, False
    _, asked, turn, _ = entry
    if turn == 1 and all(p == asked["author"] for p in posters):  # nobody else at work yet: it waits
        return [entry, *later], False
    if turn == 1 and rng.random() > ANSWER_RATE:
        if rng.random() < FOLLOW_UP_RATE and asked["author"] in posters:  # nobody answered: the asker bumps it
            facts, context, parents = _thread_turn(asked, 2, answered=False)
            post_chat(ctx, channel, asked["author"], "chat_message", facts, context, parents)
            return later, True
        return later, False
    if turn == 2:
        author = asked["author"]
        if author not in posters:
            return later, False
    else:
        mates = [p for p in ctx.org.members(asked["team"]) if p != asked["author"]]
        author = _pick_other(rng.random, mates if mates and rng.random() < 0.8 else posters, asked["author"])
        if author not in posters:  # a private channel the team mate is not in
            author = _pick_other(rng.random, posters, asked["author"])
    facts, context, parents = _thread_turn(asked, turn, team=ctx.org.people[author].team)
    event_id = post_chat(ctx, channel, author, "chat_message", facts, context, parents)
    ctx.graph.interact(author, asked["author"], ctx.env.now, CHANNEL_NEIGHBOUR)
    if turn == 1 and rng.random() < FOLLOW_UP_RATE:
        later.append((ctx.env.now + rng.uniform(2, 60), {**asked, "event_id": event_id}, 2, True))
    return later, True


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
    org, people = ctx.org, ctx.org.people
    threads = ctx.rng("comms.threads.dm")
    pending: list[tuple[float, dict, str, int]] = []  # (due minute, question, the other person, turn)
    topics = ctx.pack.chatter_topics
    shift = Shift(ctx, "staff", org.active, rng)
    while True:
        rate, working = per_person * len(org.active()), None
        while working is None:
            timeout, working = shift.wait(rate)
            yield timeout
        if pending:  # a due reply takes this turn
            pending, replied = _dm_replies(ctx, pending, threads)
            if replied:
                continue
        active = org.active()
        sender = working[int(random() * len(working))]
        team = org.members(people[sender].team)
        if random() < 0.3 or len(team) - (sender in team) == 0:
            team = active
        recipient = _pick_other(random, team, sender)
        context = {"topic": choice(topics), "team": people[sender].team}
        facts, _ = _news(ctx, rng, sender, 0.25, context)
        event_id = send_dm(ctx, sender, recipient, "direct_message", facts, context)
        if not facts and context["topic"] == "question" and threads.random() < ANSWER_RATE:
            pending.append((ctx.env.now + threads.uniform(1, 90), _asked(ctx, event_id, sender, "question", "dm"),
                            recipient, 1))


def _dm_replies(ctx: SimContext, pending: list, rng) -> tuple[list, bool]:
    """Send at most one due DM answer (questions nobody answers never get here) or thank-you; returns the
    replies still pending and whether one was sent."""
    entry, later = _due(ctx, pending, lambda e: e[2] if e[3] == 1 else e[1]["author"])
    if entry is None:
        return later, False
    _, asked, other, turn = entry
    people = ctx.org.people
    sender, recipient = (other, asked["author"]) if turn == 1 else (asked["author"], other)
    if people[sender].left_at is not None or people[recipient].left_at is not None:
        return later, False
    facts, context, parents = _thread_turn(asked, turn, team=people[sender].team)
    event_id = send_dm(ctx, sender, recipient, "direct_message", facts, context, parents)
    if turn == 1 and rng.random() < FOLLOW_UP_RATE:
        later.append((ctx.env.now + rng.uniform(1, 30), {**asked, "event_id": event_id}, other, 2))
    return later, True


def internal_email(ctx: SimContext):
    """Internal email: updates to a team, questions to a manager."""
    rng = ctx.rng("comms.email")
    threads = ctx.rng("comms.threads.email")
    pending: list[tuple[float, dict, str]] = []  # (due minute, question, who answers)
    shift = Shift(ctx, "staff", ctx.org.active, rng)
    while True:
        rate, working = ctx.config.workload.emails_per_person * len(ctx.org.active()), None
        while working is None:
            timeout, working = shift.wait(rate)
            yield timeout
        if pending:  # a due answer takes this turn
            pending, replied = _email_replies(ctx, pending, threads)
            if replied:
                continue
        sender = ctx.pick(rng, working)
        person = ctx.org.people[sender]
        if rng.random() < 0.5:
            recipients = [p for p in ctx.org.members(person.team) if p != sender]
            subject = f"{person.team.replace('_', ' ').title()} update"
        else:
            recipients = [person.manager] if person.manager and ctx.org.people[person.manager].left_at is None \
                else [ctx.pick(rng, ctx.org.active())]
            subject = "Quick question"
        context = {"topic": rng.choice(ctx.pack.chatter_topics), "team": person.team}
        facts, _ = _news(ctx, rng, sender, 0.5, context)
        if recipients:
            context["to"] = recipients[0]
            event_id, _ = send_email(ctx, sender, recipients, subject, "internal_email", facts, None, context)
            if subject == "Quick question" and not facts and threads.random() < ANSWER_RATE:
                asked = _asked(ctx, event_id, sender, "question", "email")
                pending.append((ctx.env.now + threads.uniform(30, 480), asked, recipients[0]))


def _email_replies(ctx: SimContext, pending: list, rng) -> tuple[list, bool]:
    """Send at most one due answer to an emailed question ("Re: Quick question", to the asker); returns the
    answers still pending and whether one was sent."""
    entry, later = _due(ctx, pending, lambda e: e[2])
    if entry is None:
        return later, False
    _, asked, replier = entry
    if ctx.org.people[replier].left_at is not None or ctx.org.people[asked["author"]].left_at is not None:
        return later, False
    facts, context, parents = _thread_turn(asked, 1, team=ctx.org.people[replier].team)
    context["to"] = asked["author"]
    send_email(ctx, replier, [asked["author"]], "Re: Quick question", "internal_email", facts, None, context,
               parents=parents, extra_payload={"in_reply_to": asked["message_id"]})
    return later, True


def weekly_meetings(ctx: SimContext):
    """Every team meets on the first working day of the week in its chair's office; the notes repeat open work."""
    rng = ctx.rng("comms.meetings")
    weekday = ctx.calendar.start.weekday()
    for day in range(ctx.calendar.days):
        slots = []
        for index, team in enumerate(TEAM_ROLES):  # in the chair's office hours, on its first working day
            members = ctx.org.members(team)
            calendar = ctx.calendar_of(ctx.org.manager_of(team)) if members else ctx.calendar
            if calendar.is_working_day(day) and not (day > 0 and calendar.is_working_day(day - 1)
                                                     and (weekday + day) % 7 != 0):
                slots.append((calendar.day_open(day) + 60 + 30 * index, index, team))
        for minute, _, team in sorted(slots):
            yield ctx.until(minute)
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
            if told[0] is not None and all(t is not None for t in told):
                items.append(told[0])
        return items
    return []


def _source_of(item: dict) -> str | None:
    """The id of the record an agenda item's facts come from (as ``NewsItem.source_id`` names it)."""
    for key in ("case_id", "postmortem_id", "incident_id", "change_id"):
        if key in item:
            return item[key]
    return None


def hold_meeting(ctx: SimContext, team: str, attendees: list[str], rng) -> str:
    """One team meeting: notes visible to the attendees only."""
    meeting_id = ctx.ledger.next_id("MTG")
    chair = ctx.org.manager_of(team)
    if chair not in attendees:
        chair = attendees[0]
    audience = tuple(sorted(attendees))
    agenda = _agenda(ctx, team, attendees, rng)
    facts = {"meeting_id": meeting_id, "team": team, "attendees": list(audience), "items": agenda}
    refs = [ctx.shared.get(("discussed", _source_of(item))) for item in agenda]
    entity = EntityRef("meeting", meeting_id)
    title = f"{team.replace('_', ' ').title()} weekly — {ctx.calendar.date_of(ctx.now).isoformat()}"
    ref = ctx.ledger.draft(meeting_id, "meetings", "meeting_notes", chair, entity, title, "meeting_notes", facts,
                           audience_acl(ctx, audience), {"team": team, "refs": refs})
    for other in audience:  # one meeting is one interaction, shared among its attendees
        ctx.graph.interact(chair, other, ctx.now, min(MEETING_SHARE, 1.0 / len(audience)))
    return ctx.ledger.emit("meeting.held", audience, "meetings", entity,
                           {"meeting_id": meeting_id, "team": team, "chair": chair}, (), (ref,))


def wiki_pages(ctx: SimContext):
    """Service and reference pages, created at the start and edited through the run; some restricted.

    The runbook pages are ``simulator.processes.runbooks``'s."""
    rng = ctx.rng("comms.wiki")
    pages: list[tuple[str, str, str | None, dict]] = []
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
        else:
            author = ctx.pick(rng, ctx.org.members("engineering"))
        _wiki_version(ctx, wiki_id, kind, title, space, {**facts, "wiki_id": wiki_id, "revision_note": "created"},
                      author, "wiki.page_created")
    ctx.wiki_pages["comms"] = len(ids)  # the runbook pages (simulator.processes.runbooks) take their share
    shift = Shift(ctx, "staff", ctx.org.active, rng)
    while True:
        rate, working = ctx.wiki_share("comms") * ctx.config.workload.wiki_edits_per_person * len(ctx.org.active()), None
        while working is None:
            timeout, working = shift.wait(rate)
            yield timeout
        wiki_id, kind, title, space, facts = ctx.pick(rng, ids)
        editors = [p for p in ctx.org.space_members(space) if ctx.at_work(p)] if space else working
        author = ctx.pick(rng, editors or ctx.org.space_members(space or ""))
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

