"""The fast JSONL writers give exactly the canonical bytes of ``dumps(record.to_json())``."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from hypothesis import given, settings
from hypothesis import strategies as st

from orgbench.core.clock import format_ts
from orgbench.core.canonical_lines import Stamps, artifact_lines, each_json, event_lines
from simulator.model import Acl, ArtifactVersion, EntityRef, Event, ParentLink
from orgbench.core.storage import dumps


def test_every_record_of_a_world_matches_its_canonical_line(default_world):
    stamps = Stamps()
    events = list(event_lines(default_world.events, stamps))
    assert events == [dumps(e.to_json()) + "\n" for e in default_world.events]
    versions = list(artifact_lines(default_world.artifacts, stamps))
    assert versions == [dumps(v.to_json()) + "\n" for v in default_world.artifacts]
    assert any(e.parents for e in default_world.events)
    assert any(v.acl.audience for v in default_world.artifacts)


texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)
values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | texts,
                      lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
                      max_leaves=6)
moments = st.datetimes(min_value=datetime(1000, 1, 1), max_value=datetime(9998, 1, 1),
                       timezones=st.sampled_from([timezone.utc, timezone(timedelta(hours=5, minutes=30))]))
entities = st.builds(EntityRef, texts, texts)


@settings(max_examples=150, deadline=None)
@given(texts, moments, st.lists(texts, max_size=3), entities, st.dictionaries(texts, values, max_size=4),
       st.lists(st.builds(ParentLink, texts, st.dictionaries(texts, texts, max_size=2)), max_size=2))
def test_odd_events_match_their_canonical_line(text, moment, actors, entity, payload, parents):
    event = Event(text, moment, text, tuple(actors), text, entity, payload, tuple(parents), tuple(actors))
    assert list(event_lines([event])) == [dumps(event.to_json()) + "\n"]


@settings(max_examples=150, deadline=None)
@given(texts, st.integers(), moments, entities, st.dictionaries(texts, values, max_size=4),
       st.builds(Acl, st.none() | texts, st.none() | st.lists(texts, max_size=2).map(tuple),
                 st.lists(texts, max_size=2).map(tuple)))
def test_odd_artifact_versions_match_their_canonical_line(text, number, moment, entity, facts, acl):
    version = ArtifactVersion(text, number, text, text, moment, text, entity, text, text + "\n\"é\x00", facts, acl)
    assert list(artifact_lines([version])) == [dumps(version.to_json()) + "\n"]


@given(moments)
def test_timestamps_keep_their_rfc3339_text(moment):
    utc = moment.astimezone(timezone.utc)
    pattern = "%Y-%m-%dT%H:%M:%S.%fZ" if utc.microsecond else "%Y-%m-%dT%H:%M:%SZ"
    assert format_ts(moment) == utc.strftime(pattern)


def test_records_with_fields_of_other_types_still_get_their_canonical_line():
    moment = datetime(2026, 1, 5, 9, 30, tzinfo=timezone.utc)
    event = Event("EV-1", moment, None, ("P-1", 7), "chat", EntityRef("dm", None), {"n": 1.5}, (), ())
    version = ArtifactVersion("A-1", 1, "chat", "dm", moment, "P-1", EntityRef("dm", "D-1"), None, "text",
                              {"k": [1, None]}, Acl(space=None, audience=None, participants=()))
    assert list(event_lines([event])) == [dumps(event.to_json()) + "\n"]
    assert list(artifact_lines([version])) == [dumps(version.to_json()) + "\n"]


def test_every_code_point_is_written_as_the_encoder_writes_it():
    # the lines hold no JSON of their own making: every text goes through json's encoder; this pins the
    # batching (each_json) over every code point, lone surrogates and the separator's NUL included
    points = [chr(c) for c in range(0x110000)]
    for start in range(0, len(points), 4096):
        block = points[start:start + 4096]
        pieces = each_json(block)
        assert len(pieces) == len(block)
        assert "[" + ",".join(pieces) + "]" == json.dumps(block, ensure_ascii=False, separators=(",", ":"))
    moment = datetime(2026, 1, 5, 9, 30, tzinfo=timezone.utc)
    for start in range(0, len(points), 0x8000):
        text = "".join(points[start:start + 0x8000])
        event = Event(text, moment, text, (text, "P-1"), text, EntityRef(text, text), {text: text}, (), (text,))
        assert list(event_lines([event, event])) == [dumps(event.to_json()) + "\n"] * 2


def test_ascii_and_other_bodies_are_written_as_the_encoder_writes_them():
    # an ASCII body goes through the encoder's ASCII path, except one holding DEL (which that path escapes)
    moment = datetime(2026, 1, 5, 9, 30, tzinfo=timezone.utc)
    ascii_points = [chr(c) for c in range(128)]
    bodies = [*ascii_points, "".join(ascii_points), "".join(ascii_points[:127]), "plain text", "a\x7fb", "é\x7f", ""]
    versions = [ArtifactVersion("A-1", n, "wiki", "page", moment, "P-1", EntityRef("page", "A-1"), "t", body, {},
                                Acl()) for n, body in enumerate(bodies)]
    assert list(artifact_lines(versions)) == [dumps(v.to_json()) + "\n" for v in versions]


tricky = st.text(alphabet=st.sampled_from(['\x00', '"', ",", "\\", "u", "0", "[", "]", "{", "}", "\ud800", "é"]),
                 max_size=8)
tricky_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | tricky,
                             lambda inner: st.lists(inner, max_size=3) | st.dictionaries(tricky, inner, max_size=3),
                             max_leaves=8)


@settings(max_examples=100, deadline=None)
@given(st.lists(tricky_values, max_size=8))
def test_values_encoded_together_are_cut_back_into_each_ones_json(values):
    # the separator itself (NUL) inside a value, quotes and commas around it: the pieces are still each value's
    assert each_json(values) == [dumps(v) for v in values]


def test_a_batch_whose_payloads_hold_the_separator_still_gets_its_canonical_lines():
    moment = datetime(2026, 1, 5, 9, 30, tzinfo=timezone.utc)
    events = [Event(f"EV-{i}", moment, "chat", ("P-1",), "chat", EntityRef("dm", "D-1"),
                    {"n": ["\x00", i], "m": '","\x00",'}, (ParentLink("EV-0", {"k": "\x00"}),), ()) for i in range(300)]
    assert list(event_lines(events)) == [dumps(e.to_json()) + "\n" for e in events]
    odd = Event("EV-1", moment, "chat", (["P-1"],), "chat", EntityRef("dm", "D-1"), {}, (), ())  # unhashable actor
    assert list(event_lines([events[0], odd])) == [dumps(e.to_json()) + "\n" for e in (events[0], odd)]
