"""Chat posts and direct messages: small talk and work talk by team, news as reports, questions and replies.

A post that answers an earlier one (``context["reply_to"]``) quotes or names
what it answers; the asker's follow-up thanks or pushes back. Casual posts
carry a typo now and then; posts that state facts never do, so every id and
value stays exact.
"""

from __future__ import annotations

from typing import Any, Mapping

from simulator.ledger import Draft
from simulator.prose.grammar import Dice, Records, Rng, tidy, typo
from simulator.prose.voice import GRAMMAR, Speaker, pick, speaker

TYPO_RATE = 0.05
#: Channels where people mostly chat about life rather than work.
SOCIAL = ("#random", "#general")


def _say(rule: str, rng: Rng) -> str:
    return GRAMMAR.say(rule, rng)


def work_line(who: Speaker, topic: str, rng: Rng) -> str:
    """One line of work talk from ``who`` on ``topic`` (standup, question, fyi, thanks, reminder, status)."""
    g = who.group
    if topic == "question":
        return _say("[{casual_open}, |Question: |Anyone know — |]{%s_ask}[| Context: I'm {%s_update}.| Trying to "
                    "wrap up {%s_thing} [today|this week|before the weekend].| Thanks in advance!| (Sorry if this "
                    "was asked before.)| {hedge} someone solved this last {quality} month.]" % (g, g, g), rng)
    if topic == "thanks":
        return _say("[Thanks|Thank you|Big thanks|Shout-out] to [everyone|the team|whoever helped] for [{thanks_for}|"
                    "the help with {%s_thing}|sorting out {%s_thing}][!|.| :)][| {adverb} saved my week.| Drinks on "
                    "me on Friday.| Couldn't have got through {%s_thing} without you.| Feeling {mood} now.| "
                    "{life_things}]" % (g, g, g), rng)
    if topic == "reminder":
        update = _say("{%s_update}" % g, rng)
        if "[" in update or "{" in update:  # a domain word with grammar in it: read as grammar, as it always was
            return _say("[Reminder|Friendly reminder|Don't forget|Heads up]: [we're|I'm] still %s[ this week|"
                        " today|], [so expect some delay|{closer}|replies may be slow]." % update, rng)
        # the same draws and text, from two rules compiled once rather than one new rule per update
        return (_say("[Reminder|Friendly reminder|Don't forget|Heads up]: [we're|I'm] still ", rng) + update
                + _say("[ this week| today|], [so expect some delay|{closer}|replies may be slow].", rng))
    if topic == "fyi":
        return _say("[FYI|For visibility|Small note]: {%s_update}[, {hedge} done by Friday|, {closer}|]."
                    "[| Next up: {%s_thing}.| {%s_jargon}]" % (g, g, g), rng)
    if rng.random() < 0.4:
        return _say("[{hello}, |{feeling}: |Update: |]{%s_jargon}" % g, rng)
    return _say("[{hello}, |{feeling}: |Update: |Today: |]{%s_update}[; {closer}|. {closer}|.]" % g, rng)


def question_text(who: Speaker, channel: str, topic: str, seed: int) -> str:
    """What a post with this seed asked (regenerated the same way for a reply that quotes it)."""
    return compose_casual(who, channel, topic, Dice(seed))


def compose_casual(who: Speaker, channel: str, topic: str, rng: Rng) -> str:
    """A post without facts: life talk in social channels, work talk by the speaker's team elsewhere."""
    if topic == "lunch" and (channel in SOCIAL or channel == "dm"):
        return tidy(GRAMMAR.pool("life_lunch", rng))
    if topic == "lunch":  # nobody organises lunch in #incidents: a work post instead
        topic = "status"
    if channel in SOCIAL and topic not in ("question", "reminder") or topic == "status" and rng.random() < 0.4:
        text = life_line(rng)
        return text + " " + life_line(rng) if rng.random() < 0.6 else text
    text = tidy(work_line(who, topic, rng))
    if topic != "question" and rng.random() < (0.8 if channel == "dm" else 0.35):
        text += GRAMMAR.say("[ Also:| Unrelated:| Other news:| Oh, and —| PS:] ", rng) + life_line(rng)
    return text


def life_line(rng: Rng) -> str:
    """One line of small talk: the weekend, food, things at home, the garden, what someone is reading."""
    return tidy(GRAMMAR.pool("life_things" if rng.random() < 0.7 else "life_weekend", rng))


def _reply(facts: Mapping[str, Any], context: Mapping[str, Any], who: Speaker, cast: Mapping[str, Speaker],
           rng: Rng) -> str:
    text = _reply_text(context, who, cast, rng)
    if text.startswith("> "):  # the quote stays on its own first line
        quote, _, rest = text.partition("\n")
        return f"{quote}\nre {facts['in_reply_to']}: {rest}"
    return f"re {facts['in_reply_to']}: {text}"


def _reply_text(context: Mapping[str, Any], who: Speaker, cast: Mapping[str, Speaker], rng: Rng) -> str:
    thread = context["reply_to"]
    asker = speaker(cast, thread.author, thread.team)
    turn = thread.turn
    if turn == 1:
        pool = f"answer_{who.group}" if who.group == asker.group else "answer_other"
        answer = GRAMMAR.pool(pool, rng) + GRAMMAR.say(
            "[.|!|. {closer}.|. {hedge} that covers it.|, hope that helps.|. Also: {life_things}]", rng)
        lead = pick(rng, (f"@{asker.first} ", f"{asker.first}: ", "", f"re your question, {asker.first} — "))
        text = tidy(lead + answer)
        if rng.random() < 0.4:  # quote the question (its own seed: regenerating it draws nothing from rng)
            text = f"> {question_text(asker, thread.channel, thread.topic, thread.seed)}\n{text}"
        return text
    if thread.answered:
        return tidy(GRAMMAR.pool("followup_ok" if rng.random() < 0.8 else "followup_not", rng))
    return tidy(GRAMMAR.pool("no_answer", rng))


def _news(facts: Mapping[str, Any], context: Mapping[str, Any], rng: Rng, skip: tuple[str, ...],
          names: Mapping[str, str]) -> str:
    from simulator.prose.phrases import report_phrases

    variant = int(rng.random() * 3)
    kind = context["news_kind"]
    if kind == "case":
        more = report_phrases(facts, variant, ("case_id", "case_status", *skip), names)
        core = f"{facts['case_id']} is {facts['case_status']}"
        extra = f" ({', '.join(more)})" if more else ""
        return _say("[fyi,|heads up:|btw|for those following,|{hedge}|update from the queue:] ", rng) + core + extra
    if kind == "deploy":
        return (_say("[Saw|Noticed|FYI|Looks like|Heads up,]", rng) + f" {facts['change_id']} went out on "
                f"{facts['service']}" + _say("[|, {hedge} it's the fix we were waiting for|, keep an eye on "
                                             "the dashboards|.]", rng))
    if kind == "incident":
        said = report_phrases(facts, variant, ("incident_id", *skip), names)
        return (_say("[Any news on|What's the status of|Following|Is anyone still on|Watching]", rng)
                + f" {facts['incident_id']} ({', '.join(said)})?")
    return tidy(", ".join(report_phrases(facts, variant, skip, names)))


def chat_message(draft: Draft, cast: Mapping[str, Speaker], names: Mapping[str, str], records: Records) -> str:
    """A channel post."""
    facts, context, seed, author = draft.facts, draft.context, draft.variant, draft.author
    rng = Dice(seed)
    who = speaker(cast, author, context.get("team"))
    if "reply_to" in context:
        return _reply(facts, context, who, cast, rng)
    if context.get("news_kind"):
        return tidy(_news(facts, context, rng, ("message_id", "channel", "in_reply_to"), names))
    text = question_text(who, str(facts.get("channel", "")), context.get("topic", "status"), seed)
    if rng.random() < TYPO_RATE:
        text = typo(text, rng)
    return text


def direct_message(draft: Draft, cast: Mapping[str, Speaker], names: Mapping[str, str], records: Records) -> str:
    """A direct message: casual, lower-case, news as a report, questions that get answered (or not)."""
    facts, context, seed, author = draft.facts, draft.context, draft.variant, draft.author
    rng = Dice(seed)
    who = speaker(cast, author, context.get("team"))
    if "reply_to" in context:
        text = _reply(facts, context, who, cast, rng)
    elif context.get("news_kind"):
        return _news(facts, context, rng, ("message_id", "in_reply_to"), names)
    else:
        topic = context.get("topic", "status")
        text = question_text(who, "dm", topic, seed)
        if topic == "question" and rng.random() < 0.5:
            text = _say("{casual_open} ", rng) + text[:1].lower() + text[1:]
    if rng.random() < TYPO_RATE * 2:
        text = typo(text, rng)
    return text
