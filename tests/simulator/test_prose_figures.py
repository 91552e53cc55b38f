"""The realism figures, rechecked from the raw world files by another route, and the prose's conversations.

The recheck reads ``artifacts.jsonl`` and ``actors.jsonl`` with ``json``
(not ``load_world``), tokenises with ``str`` methods instead of regular
expressions and asks wordfreq through another function; it must agree with
``simulator.realism`` exactly.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from simulator.prose.grammar import Grammar, tidy
from simulator.realism import measure


def _rows(directory: Path, name: str) -> list[dict]:
    with open(directory / name, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _letters_runs(text: str) -> list[str]:
    runs, current = [], []
    for char in text.lower():
        if "a" <= char <= "z":
            current.append(char)
        elif current:
            runs.append("".join(current))
            current = []
    if current:
        runs.append("".join(current))
    return runs


def test_figures_recomputed_from_the_raw_files_agree(small_world_dir, small_world):
    from wordfreq import word_frequency

    artifacts = _rows(small_world_dir, "artifacts.jsonl")
    bodies = [row["body"] for row in artifacts]
    figures = measure(small_world)
    assert figures.versions == len(bodies)
    # a body repeats an earlier one exactly when it is not the first of its value
    assert figures.body_repeat_share == pytest.approx((len(bodies) - len(set(bodies))) / len(bodies))
    chat = sorted(Counter(r["body"] for r in artifacts if r["subsystem"] == "chat").values(), reverse=True)
    assert figures.chat_messages == sum(chat)
    assert figures.top_chat_share == pytest.approx(sum(chat[:25]) / sum(chat))
    people = [row["name"] for row in _rows(small_world_dir, "actors.jsonl")]
    people += [r["facts"]["contact_name"] for r in artifacts if r["facts"].get("contact_name")]
    parts = {p for name in people for p in _letters_runs(name)}
    words = {t for body in bodies for t in _letters_runs(body) if len(t) >= 3 and t not in parts}
    assert figures.english_words == sum(word_frequency(t, "en") > 0 for t in words)


def test_a_second_seed_shares_few_bodies(small_config_path, small_world):
    from simulator.config import load_config
    from simulator.simulate import simulate

    other = simulate(load_config(small_config_path, seed=12))
    figures = measure(small_world, other)
    first = {v.body for v in small_world.artifacts}
    same = sum(v.body in first for v in other.artifacts) / len(other.artifacts)
    assert figures.second_bodies_identical_share == pytest.approx(same)
    assert same < 0.05 and figures.second_skeletons_found_share < 0.5


def test_grammar_expands_alternatives_and_pools_with_the_callers_rng():
    grammar = Grammar({"fruit": ["apple", "[ripe|green] pear"]})
    seen = {grammar.say("I ate [a|one] {fruit}[|, twice].", random.Random(n)) for n in range(200)}
    assert "I ate a apple." in seen and "I ate one green pear, twice." in seen
    assert all(s.startswith("I ate ") for s in seen)
    assert grammar.say("{fruit} and {fruit}", random.Random(5)) == grammar.say("{fruit} and {fruit}", random.Random(5))
    assert tidy("  hello , world  .") == "Hello, world."


def test_replies_answer_an_earlier_question_in_the_same_place(default_world):
    world = default_world
    by_id = {v.artifact_id: v for v in world.artifacts if v.subsystem in ("chat", "email")}
    events = {e.event_id: e for e in world.events}
    replies = [v for v in world.artifacts if "in_reply_to" in v.facts]
    kinds = Counter(v.kind for v in replies)
    assert kinds["chat_message"] > 200 and kinds["direct_message"] > 100 and kinds["email"] > 20, kinds
    for reply in replies:
        asked = by_id[reply.facts["in_reply_to"]]
        assert asked.created_at <= reply.created_at and asked.kind == reply.kind, reply.ref
        assert f"re {reply.facts['in_reply_to']}" in reply.body or reply.facts["in_reply_to"] in reply.body
        if reply.kind == "chat_message":
            assert asked.facts["channel"] == reply.facts["channel"]
        else:  # a DM or email reply stays between the same people
            assert set(reply.acl.audience) == set(asked.acl.audience), reply.ref
    for event in world.events:
        if "in_reply_to" in event.payload:
            parent = events[event.parents[0].event_id]
            assert event.parents[0].join_key == {"in_reply_to": event.payload["in_reply_to"]}
            assert event.payload["in_reply_to"] in (parent.payload.get("message_id"), parent.payload.get("email_id"),
                                                    parent.payload.get("in_reply_to"))


def test_some_dm_questions_go_unanswered(default_world):
    answered = {v.facts["in_reply_to"] for v in default_world.artifacts if v.kind == "direct_message"
                and "in_reply_to" in v.facts}
    asked = [v for v in default_world.artifacts if v.kind == "direct_message" and v.body.endswith("?")
             and "in_reply_to" not in v.facts and not v.facts.keys() - {"message_id"}]
    unanswered = [v for v in asked if v.artifact_id not in answered]
    assert asked and 0 < len(unanswered) < len(asked)


def test_only_engineers_ask_for_pull_request_reviews(default_world):
    """Quoted lines (``> …``, a reply quoting the question) aside; people who changed team are judged by
    the team they were in when they wrote."""
    world = default_world
    teams = {a.actor_id: a.team for a in world.actors}
    moves = sorted((e.ts, e.payload["actor_id"], e.payload["from_team"]) for e in world.events
                   if e.type == "hr.role_changed")

    def team_at(actor_id, ts):
        before = [from_team for at, who, from_team in moves if who == actor_id and at > ts]
        return before[0] if before else teams[actor_id]

    asking = [v for v in world.artifacts if v.subsystem == "chat"
              and any("review my PR" in line for line in v.body.splitlines() if not line.startswith(">"))]
    assert len(asking) >= 10
    assert {team_at(v.author, v.created_at) for v in asking} <= {"engineering", "sre"}


def test_postmortems_have_sections_and_no_alias_lists(default_world):
    for version in (v for v in default_world.artifacts if v.kind == "postmortem"):
        for heading in ("## Summary", "## Timeline", "## Impact", "## Root cause", "## Action items"):
            assert heading in version.body, (version.ref, heading)
        assert "also described as" not in version.body and "Mechanism:" not in version.body
        assert f"Root-cause category: {version.facts['mechanism']}" in version.body
        for alias in version.facts["mechanism_aliases"]:  # each said once, in a sentence, not as a list
            assert version.body.count(alias) >= 1 and ", ".join(version.facts["mechanism_aliases"][1:]) \
                not in version.body


def test_handbook_pages_have_sections_and_history(default_world):
    pages = [v for v in default_world.artifacts if v.kind == "page"]
    assert pages
    for page in pages:
        assert page.body.count("\n## ") >= 4, page.ref
        assert f"- r{page.version}: {page.facts['revision_note']}" in page.body


def test_meeting_notes_cite_earlier_posts_about_their_items(default_world):
    import re

    posts = {v.artifact_id: v for v in default_world.artifacts if v.kind == "chat_message"}
    cited = 0
    for notes in (v for v in default_world.artifacts if v.kind == "meeting_notes"):
        for channel, message_id in re.findall(r"\(raised in (#[\w-]+), (MSG-\d+)\)", notes.body):
            post = posts[message_id]
            assert post.created_at <= notes.created_at and post.facts["channel"] == channel
            assert any(post.facts.get(k) == item.get(k) for item in notes.facts["items"]
                       for k in ("case_id", "incident_id", "change_id", "postmortem_id") if k in item)
            cited += 1
    assert cited >= 20
