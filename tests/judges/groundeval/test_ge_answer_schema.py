"""GroundEval answers follow their track's JSON Schema: validated by fastjsonschema, problems named as before; models
are sent the schema with every field typed."""

from __future__ import annotations

import itertools
import json
import random

import fastjsonschema
import pytest

from benchmark_builders.groundeval.tracks import BUILTIN_TRACKS, track
from judges.groundeval.scoring import parse_answer

VALUES = [True, False, None, 0, 1.5, "", "x", [], ["a"], ["a", 1], [None], {}, {"a": 1}, ("t",)]


def _oracle(raw, name):
    """The hand check the scorer made before answers had a JSON Schema (kept here as an independent reading)."""
    record = track(name)
    for key, kind in record.required:
        if key not in raw:
            return f"missing field {key}"
        if not isinstance(raw[key], kind):
            kinds = kind if isinstance(kind, tuple) else (kind,)
            return f"field {key} is a {type(raw[key]).__name__}, not " + " or ".join(
                "null" if k is type(None) else k.__name__ for k in kinds)
    for key in record.lists():
        value = raw.get(key, [])
        if not isinstance(value, (list, tuple)) or not all(isinstance(item, str) for item in value):
            return f"field {key} is not a list of strings"
    return None


@pytest.mark.parametrize("name", [t.name for t in BUILTIN_TRACKS])
def test_every_answer_is_judged_and_named_as_the_hand_check_did(name):
    rng = random.Random(name)
    schema = track(name).answer_json_schema
    fields = list(schema["properties"])
    checked = 0
    for _ in range(3000):
        answer = {key: rng.choice(VALUES) for key in fields if rng.random() < 0.8}
        if rng.random() < 0.3:                             # a valid answer with one field changed
            answer = {**track(name).blank_answer({}), **dict(itertools.islice(answer.items(), 1))}
        expected = _oracle(answer, name)
        assert parse_answer(answer, name) == ((None, expected) if expected else (answer, None)), answer
        text = json.dumps(answer)                          # as an agent's text: a tuple becomes a list
        assert parse_answer(text, name)[1] == _oracle(json.loads(text), name)
        checked += expected is None
    assert checked > 100                                   # valid answers were drawn too


def test_the_schema_is_a_json_schema_document_the_validator_reads():
    schema = track("counterfactual").answer_json_schema
    validate = fastjsonschema.compile(schema)
    blank = track("counterfactual").blank_answer({"cause_event_id": "E-1", "effect_event_id": "E-2"})
    assert validate(blank) == blank
    assert schema["required"] == ["outcome_changed", "causal_mechanism", "cause_event_id", "effect_event_id",
                                  "mechanism_direction"]
    assert schema["properties"]["cause_event_id"]["type"] == ["string", "null"]
    assert schema["properties"]["actors"] == {"description": "[actor id]", "type": "array",
                                              "items": {"type": "string"}}
    with pytest.raises(fastjsonschema.JsonSchemaValueException):
        validate({**blank, "outcome_changed": "yes"})


@pytest.mark.parametrize("raw, problem", [
    ("{", "answer is not JSON"), ("[1]", "answer is a list, not an object"), ({}, "missing field exists"),
    ({"exists": 1}, "field exists is a int, not bool"),
    ({"exists": True, "evidence_artifacts": "A-1"}, "field evidence_artifacts is not a list of strings"),
])
def test_the_one_line_problems(raw, problem):
    assert parse_answer(raw, "silence") == (None, problem)


@pytest.mark.parametrize("name", [t.name for t in BUILTIN_TRACKS])
def test_the_schema_sent_to_models_types_every_field_and_asks_no_more_than_the_scorer_accepts(name):
    sent, scored = track(name).model_answer_schema, track(name).answer_json_schema
    assert sent["properties"]["reasoning"] == {"description": "str", "type": "string"}
    assert "type" not in scored["properties"]["reasoning"]            # the scorer never reads it
    assert all("type" in spec for spec in sent["properties"].values())
    assert sent["type"] == scored["type"] == "object" and sent["required"] == scored["required"]
    assert sent.keys() == {"type", "properties", "required"}               # no title: inspect's tools carry none
    follows, accepted = fastjsonschema.compile(sent), fastjsonschema.compile(scored)
    rng = random.Random(name)
    kept = 0
    for _ in range(2000):
        answer = {**track(name).blank_answer({}), **{key: rng.choice(VALUES) for key in sent["properties"]
                                                     if rng.random() < 0.3}}
        try:
            follows(answer)
        except fastjsonschema.JsonSchemaValueException:
            continue
        assert accepted(answer) == answer
        kept += 1
    assert kept > 50


@pytest.mark.parametrize("name", [t.name for t in BUILTIN_TRACKS])
def test_llama_cpp_builds_a_grammar_from_the_schema_sent(name):
    """llama-cpp-python's function calling builds the argument grammar from the tool's parameters (it falls back
    to any JSON when it cannot): every field typed, it can."""
    grammar = pytest.importorskip("llama_cpp.llama_grammar", reason="the local extra (llama-cpp-python)")
    from judges.groundeval.llm_agent import submit_tool

    parameters = submit_tool(name)["function"]["parameters"]
    assert parameters["properties"]["answer"]["required"] == track(name).model_answer_schema["required"]
    assert grammar.LlamaGrammar.from_json_schema(json.dumps(parameters), verbose=False)
