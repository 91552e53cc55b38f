"""The verdict schema is bounded: its longest answer, counted from the schema and from the grammar sent, fits the budget."""

from __future__ import annotations

import json
import re

import pytest

from judges.backends.gbnf import schema_grammar
from judges.backends.local import DEFAULT_MAX_TOKENS
from judges.verdict import parse_verdict
from judges.verdict_schema import (
    CLAIM_CHARS, MAX_CLAIMS, longest_answer, longest_instance, token_bound, verdict_schema,
)


def test_the_longest_verdict_ends_inside_the_local_token_budget():
    schema = verdict_schema()
    text = longest_answer(schema)
    assert len(text.encode()) == 492 and token_bound(schema) == 493 <= DEFAULT_MAX_TOKENS
    assert schema_grammar(schema).longest_answer_bytes == 492      # the grammar sent admits nothing longer
    verdict = parse_verdict(text)
    assert verdict.verdict == "cannot_decide" and len(verdict.claims) == MAX_CLAIMS == 3
    assert set(verdict.dimensions) == set(schema["properties"]["dimensions"]["properties"])
    pattern = schema["properties"]["claims"]["items"]["properties"]["text"]["pattern"]
    assert all(re.fullmatch(pattern, claim.text) and len(claim.text) == CLAIM_CHARS == 64 for claim in verdict.claims)


def test_six_claims_of_200_characters_could_not_end_in_512_tokens():
    """The bound before issue 16 was fixed (its numbers and whitespace had none): 1,621 bytes even written compact."""
    assert token_bound(verdict_schema(max_claims=6, max_claim_chars=200)) == 1621


@pytest.mark.parametrize("part, why", [
    ({"type": "number"}, "a number value without an enum"),
    ({"type": "array", "items": {"enum": [1]}}, "an array without maxItems"),
    ({"type": "string", "maxLength": 5}, "without the one-byte pattern"),
    ({"type": "object", "properties": {}}, "an object open to other keys"),
])
def test_an_unbounded_part_has_no_longest_answer_and_no_grammar(part, why):
    with pytest.raises(ValueError, match=why):
        longest_instance(part)
    with pytest.raises(ValueError, match="no bounded grammar"):
        schema_grammar(part)


def test_the_grammar_writes_json_dumps_layout_and_lets_optional_members_out():
    schema = {"type": "object", "additionalProperties": False, "required": ["v"], "properties": {
        "d": {"type": "object", "additionalProperties": False, "properties": {"a": {"enum": [0, 0.5]},
                                                                                "b": {"enum": [1]}}},
        "v": {"type": "string", "enum": ["pass", "fail"]}}}
    grammar = schema_grammar(schema)
    assert grammar.text == (
        'root ::= answer\n'
        'answer-d-a ::= "0" | "0.5"\n'
        'answer-d-a-kv ::= "\\"a\\": " answer-d-a\n'
        'answer-d-b ::= "1"\n'
        'answer-d-b-kv ::= "\\"b\\": " answer-d-b\n'
        'answer-d-from1 ::= answer-d-b-kv\n'
        'answer-d-from0 ::= answer-d-a-kv (", " answer-d-from1)? | answer-d-from1\n'
        'answer-d ::= "{" answer-d-from0? "}"\n'
        'answer-d-kv ::= "\\"d\\": " answer-d\n'
        'answer-v ::= "\\"pass\\"" | "\\"fail\\""\n'
        'answer-v-kv ::= "\\"v\\": " answer-v\n'
        'answer-from1 ::= answer-v-kv\n'
        'answer-from0 ::= answer-d-kv ", " answer-from1 | answer-from1\n'
        'answer ::= "{" answer-from0 "}"\n')
    longest = json.dumps(longest_instance(schema))
    assert longest == '{"d": {"a": 0.5, "b": 1}, "v": "pass"}'
    assert grammar.longest_answer_bytes == len(longest) == 38


def test_llama_cpps_own_converter_allows_a_run_of_whitespace_per_gap_as_docs_judges_md_says():
    """Why a grammar of our own (docs/judges.md): llama.cpp's JSON-schema-to-GBNF converter lets every gap between
    tokens hold a run of newlines and spaces. Its ``space`` rule is read from the llama.cpp the local extra installs
    (xllamacpp's server library holds the converter's rule text); skipped without it."""
    import importlib.util
    import mmap
    from pathlib import Path

    spec = importlib.util.find_spec("xllamacpp")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("xllamacpp (the local extra) is not installed: no llama.cpp converter to read")
    rule: list[int] = []
    for library in sorted(p for where in spec.submodule_search_locations for p in Path(where).glob("*.so*")):
        with open(library, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as image:
            found = re.search(rb'\| " " \| "\\n"\{(\d+),(\d+)\} \[ \\t\]\{(\d+),(\d+)\}', image)
            rule = [int(n) for n in found.groups()] if found else []
        if rule:
            break
    assert rule, "no llama.cpp space rule in xllamacpp's libraries"
    longest = max(1, rule[1] + rule[3])            # one space, or up to rule[1] newlines then up to rule[3] blanks
    docs = " ".join((Path(__file__).parents[2] / "docs" / "judges.md").read_text(encoding="utf-8").split())
    assert f"llama.cpp's GBNF converter allows up to {longest} bytes of whitespace per gap" in docs
