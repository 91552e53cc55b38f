"""Parsing judge answers into verdicts: fences, reasoning, trailing commas, and what stays unparsed."""

from __future__ import annotations

import json

import pytest

from judges.verdict import Claim, Verdict, parse_verdict

GOOD = {"dimensions": {"accuracy": 4, "procedure": "3.5"},
        "claims": [{"text": "status is open", "status": "Supported"},
                   {"text": "due 2026-03-05", "status": "contradicted"}],
        "verdict": "fail"}


def test_plain_json_object():
    verdict = parse_verdict(json.dumps(GOOD))
    assert verdict == Verdict("fail", {"accuracy": 4.0, "procedure": 3.5},
                              (Claim("status is open", "supported"), Claim("due 2026-03-05", "contradicted")))
    assert verdict.penalized is True
    assert verdict.parsed


def test_code_fence_after_reasoning_with_braces():
    text = ("Let me think. The reference uses {case_id} placeholders and the map {\"a\": 1}.\n"
            "A draft: {\"verdict\": \"pass\"} — no, wait, the date is contradicted.\n"
            "```json\n" + json.dumps(GOOD, indent=2) + "\n```\nThat is my answer.")
    verdict = parse_verdict(text)
    assert verdict.verdict == "fail"
    assert verdict.dimensions == {"accuracy": 4.0, "procedure": 3.5}
    assert len(verdict.claims) == 2


def test_last_valid_verdict_wins():
    text = '{"verdict": "fail"} on reflection {"verdict": "pass", "dimensions": {}, "claims": []}'
    assert parse_verdict(text).verdict == "pass"
    assert parse_verdict(text).penalized is False


def test_trailing_commas_and_smart_quotes_are_repaired():
    text = '```\n{"dimensions": {"accuracy": 5,}, "claims": [], "verdict": \u201ccannot decide\u201d,}\n```'
    verdict = parse_verdict(text)
    assert verdict.verdict == "cannot_decide"
    assert verdict.dimensions == {"accuracy": 5.0}
    assert verdict.penalized is None


@pytest.mark.parametrize("label, expected", [("PASS", "pass"), (" Fail ", "fail"), ("cannot-decide", "cannot_decide")])
def test_verdict_labels_are_normalised(label, expected):
    assert parse_verdict(json.dumps({"verdict": label})).verdict == expected


@pytest.mark.parametrize("text", [
    "", None, "The answer looks fine to me.", '{"verdict": "maybe"}', '{"score": 3}',
    '```json\n{"verdict": "pass", "claims": [\n```',  # cut off mid-object
])
def test_unparseable_is_unparsed_not_pass(text):
    verdict = parse_verdict(text)
    assert verdict.verdict == "unparsed"
    assert not verdict.parsed
    assert verdict.penalized is None
    assert verdict.to_json() == {"verdict": "unparsed", "dimensions": {}, "claims": []}


def test_bad_dimensions_and_claims_are_dropped_not_fatal():
    text = json.dumps({"verdict": "pass", "dimensions": {"a": "high", "b": True, "c": 2},
                       "claims": ["loose string", {"status": "supported"}, {"text": "x", "status": "supported"}]})
    verdict = parse_verdict(text)
    assert verdict.dimensions == {"c": 2.0}
    assert verdict.claims == (Claim("x", "supported"),)


def test_to_json_sorts_dimensions():
    verdict = parse_verdict(json.dumps({"verdict": "pass", "dimensions": {"z": 1, "a": 2}}))
    assert list(verdict.to_json()["dimensions"]) == ["a", "z"]


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_scores = st.dictionaries(st.text(min_size=1, max_size=12), st.integers(0, 10), max_size=4)
_claims = st.lists(st.fixed_dictionaries({"text": st.text(max_size=30),
                                          "status": st.sampled_from(["supported", "contradicted", "unverifiable"])}),
                   max_size=4)


@settings(max_examples=150, deadline=None)
@given(prose=st.text(max_size=200), dims=_scores, claims=_claims, label=st.sampled_from(["pass", "fail", "cannot_decide"]),
       fenced=st.booleans(), indent=st.sampled_from([None, 2]))
def test_any_reasoning_then_the_answer_parses_to_the_answer(prose, dims, claims, label, fenced, indent):
    answer = json.dumps({"dimensions": dims, "claims": claims, "verdict": label}, indent=indent)
    text = prose + ("\n```json\n" + answer + "\n```" if fenced else "\n" + answer)
    verdict = parse_verdict(text)
    assert verdict.verdict == label
    assert verdict.dimensions == {k: float(v) for k, v in dims.items()}
    assert verdict.to_json()["claims"] == [{"status": c["status"], "text": c["text"]} for c in claims]
