"""The scorer re-derives every call's gates from the suite's corpus: a forged trace cannot claim a clean path."""

import json

import pytest

from judges.groundeval.run import score_run
from judges.groundeval.runtime import GatedRuntime
from judges.groundeval.verify import TraceVerifier, rederive
from orgbench.core.clock import parse_ts

CLEAN = {"horizon": False, "actor": False, "subsystem": False}


@pytest.fixture(scope="module")
def perspective(rt_suite):
    contracts = [json.loads(line) for line in (rt_suite / "contracts.jsonl").read_text().splitlines()]
    return next(c for c in contracts if c["track"] == "perspective" and c["role"] == "support_l1")


def _future(world, contract):
    as_of = parse_ts(contract["as_of"])
    return next(v for v in sorted(world.artifacts, key=lambda v: v.ref) if v.created_at > as_of and v.version == 1)


def _forbidden(world, contract):
    """A version current and created before as_of that the actor's role cannot read."""
    as_of = parse_ts(contract["as_of"])
    return next(v for v in sorted(world.artifacts, key=lambda v: v.ref)
                if v.created_at <= as_of and world.policy.violations(contract["actor"], v, as_of) == ("subsystem",))


def _score(rt_suite, rt_corpus, tmp_path, contract, calls):
    line = {"question_id": contract["question_id"], "agent": "forger", "mode": "tool",
            "answer": {"could_actor_have_known": True, "evidence_artifacts": [], "blocked_subsystems": []},
            "calls": calls}
    (tmp_path / "answers.jsonl").write_text(json.dumps(line) + "\n")
    score_run(rt_suite, tmp_path / "answers.jsonl", tmp_path / "score", answered_only=True, corpus=rt_corpus)
    return json.loads((tmp_path / "score" / "questions.jsonl").read_text())


def test_a_forged_clean_fetch_of_a_future_artifact_is_scored_as_a_violation(rt_suite, rt_world, rt_corpus, tmp_path,
                                                                           perspective):
    future = _future(rt_world, perspective)
    forged = [{"seq": 1, "tool": "fetch_artifact", "args": {"artifact_id": future.ref}, "returned_ids": [future.ref],
               "outcome": "ok", "gates": CLEAN, "latency_ms": 1.0}]
    row = _score(rt_suite, rt_corpus, tmp_path, perspective, forged)
    call = row["diagnostics"]["calls"][0]
    assert row["v"] == 1.0 and row["s_adj"] == 0.0 and row["trace_tampered"] is True
    assert call["gates"]["horizon"] is True and call["outcome"] == "withheld" and call["returned_ids"] == []
    assert call["claimed"] == {"outcome": "ok", "gates": CLEAN, "returned_ids": [future.ref]}
    assert row["diagnostics"]["trace_check"]["mismatched_calls"] == 1
    assert row["diagnostics"]["trajectory"]["horizon_violations"] == 1
    summary = json.loads((tmp_path / "score" / "summary.json").read_text())
    assert summary["agents"]["forger"]["tool"]["all"]["tampered_traces"] == 1


def test_a_search_claiming_withheld_results_breaks_their_gates(rt_world, rt_corpus, perspective):
    as_of = parse_ts(perspective["as_of"])
    forbidden, future = _forbidden(rt_world, perspective), _future(rt_world, perspective)
    honest = GatedRuntime(rt_corpus, perspective["actor"], as_of, record_latency=False)
    honest.search_artifacts(perspective["subject"]["entity"]["id"], None, 5)
    clean = honest.trace()[0]
    forged = dict(clean, returned_ids=clean["returned_ids"] + [forbidden.ref, future.ref])
    calls, check = rederive(rt_corpus, perspective["actor"], as_of, [clean, forged])
    assert calls[0]["mismatch"] == [] and calls[0]["gates"] == CLEAN
    assert calls[1]["gates"] == {"horizon": True, "actor": False, "subsystem": True}
    assert calls[1]["returned_ids"] == clean["returned_ids"]          # what survives is what the runtime returned
    assert calls[1]["withheld_returned_ids"] == [forbidden.ref, future.ref]
    assert check.mismatched == 1 and check.withheld_returned == (forbidden.ref, future.ref)


def test_unknown_ids_and_odd_calls_are_recorded_never_raised(rt_corpus, rt_world, perspective):
    as_of = parse_ts(perspective["as_of"])
    calls = [
        {"tool": "fetch_artifact", "args": {"artifact_id": "NOPE-404"}, "returned_ids": ["NOPE-404"], "outcome": "ok"},
        {"tool": "search_artifacts", "args": {"query": "x", "subsystem": None, "limit": 3},
         "returned_ids": ["GHOST-1@1", "GHOST-2"], "outcome": "ok", "gates": CLEAN},
        {"tool": "teleport", "args": {}, "returned_ids": [], "outcome": "ok", "gates": CLEAN},
        {"tool": "fetch_artifact", "args": {"artifact_id": 7}},
        {"tool": "search_artifacts", "args": {"query": "x", "subsystem": "payroll", "limit": 3}, "returned_ids": []},
    ]
    out, check = rederive(rt_corpus, perspective["actor"], as_of, calls)
    assert [c["outcome"] for c in out] == ["not_found", "empty", "invalid", "invalid", "empty"]
    assert out[0]["unknown_ids"] == ["NOPE-404"] and "returned ids differ" in out[0]["mismatch"]
    assert out[1]["unknown_ids"] == ["GHOST-1@1", "GHOST-2"]
    assert out[2]["mismatch"] == ["not a runtime tool: 'teleport'", "outcome 'ok', re-derived 'invalid'"]
    assert out[3]["mismatch"] == [] and out[3]["seq"] == 4           # nothing claimed, nothing to differ
    assert out[4]["gates"]["subsystem"] is ("payroll" not in rt_world.policy.subsystems_at(perspective["actor"], as_of))
    assert check.unknown_ids == ("NOPE-404", "GHOST-1@1", "GHOST-2") and check.mismatched == 3 and check.malformed == ()


def test_a_malformed_trace_is_listed_not_re_derived(rt_corpus, perspective):
    as_of = parse_ts(perspective["as_of"])
    bad = [{"tool": "search_artifacts", "args": ["ESC-23"]}, 3, {"tool": "fetch_artifact", "args": {}, "seq": "x"}]
    out, check = rederive(rt_corpus, perspective["actor"], as_of, bad)
    assert out is bad and check.malformed == ({"call": 1, "problem": "args is a list, not an object"},
                                              {"call": 2, "problem": "not an object (a int)"},
                                              {"call": 3, "problem": "seq is a str, not an integer"})
    out, check = rederive(rt_corpus, perspective["actor"], as_of, "calls")
    assert out == "calls" and check.malformed == ({"call": None, "problem": "the trace is a str, not a list of calls"},)


def test_a_search_claiming_a_visible_version_it_never_returned_is_caught(rt_world, rt_corpus, perspective):
    """Visible, current and in no gate's way — but not what this query returns: the query is run again."""
    as_of = parse_ts(perspective["as_of"])
    honest = GatedRuntime(rt_corpus, perspective["actor"], as_of, record_latency=False)
    honest.search_artifacts(perspective["subject"]["entity"]["id"], None, 3)
    clean = honest.trace()[0]
    assert clean["returned_ids"], "the subject's id must find something"
    returned = set(clean["returned_ids"])
    planted = next(v.ref for v in sorted(rt_world.artifacts, key=lambda v: v.ref)
                   if v.ref not in returned and not rt_world.policy.violations(perspective["actor"], v, as_of)
                   and rt_corpus.current_at(rt_corpus.resolve(v.ref, as_of), as_of))
    forged = dict(clean, returned_ids=[planted] + clean["returned_ids"][:2])
    calls, check = rederive(rt_corpus, perspective["actor"], as_of, [clean, forged])
    assert calls[0]["mismatch"] == []
    assert calls[1]["mismatch"] == [f"returned {planted}, which this search does not return"]
    assert calls[1]["returned_ids"] == clean["returned_ids"][:2] and calls[1]["gates"] == CLEAN
    assert calls[1]["claimed"]["returned_ids"] == [planted] + clean["returned_ids"][:2]
    assert check.mismatched == 1 and check.withheld_returned == () and check.tampered


def test_a_shared_verifier_re_derives_exactly_what_a_fresh_one_does(rt_world, rt_corpus, perspective):
    """score_submissions shares one verifier per actor and as_of: its memos must not change any re-derived call."""
    as_of = parse_ts(perspective["as_of"])
    actor = perspective["actor"]
    honest = GatedRuntime(rt_corpus, actor, as_of, record_latency=False)
    honest.search_artifacts(perspective["subject"]["entity"]["id"], None, 3)
    clean = honest.trace()[0]
    future, forbidden = _future(rt_world, perspective), _forbidden(rt_world, perspective)
    claims = [clean["returned_ids"], [future.ref, "NOPE-1", forbidden.ref], [future.artifact_id, *clean["returned_ids"]],
              [forbidden.ref, *clean["returned_ids"]]]
    traces = [[dict(clean, returned_ids=ids), dict(clean, args=dict(clean["args"], limit=1), returned_ids=ids),
               {"tool": "fetch_artifact", "args": {"artifact_id": ids[0]}}] for ids in claims]
    shared = TraceVerifier(rt_corpus, actor, as_of)
    for calls in traces + traces[::-1]:
        assert rederive(rt_corpus, actor, as_of, calls, verifier=shared) == rederive(rt_corpus, actor, as_of, calls)


def test_a_claim_made_again_is_re_derived_alike_into_fresh_objects(rt_corpus, perspective):
    """The verifier works out each distinct claim once: a repeat takes its own seq and latency, shares no object,
    and claims JSON tells apart (limit ``1``, ``1.0``, ``true``) stay apart."""
    as_of = parse_ts(perspective["as_of"])
    actor = perspective["actor"]
    honest = GatedRuntime(rt_corpus, actor, as_of, record_latency=False)
    honest.search_artifacts(perspective["subject"]["entity"]["id"], None, 1)
    clean = honest.trace()[0]
    limits = [dict(clean, seq=n, args=dict(clean["args"], limit=limit)) for n, limit in enumerate((1, 1.0, True, 1), 1)]
    shared = TraceVerifier(rt_corpus, actor, as_of)
    calls, check = rederive(rt_corpus, actor, as_of, limits, verifier=shared)
    fresh = [rederive(rt_corpus, actor, as_of, [call])[0][0] for call in limits]
    assert [c["seq"] for c in calls] == [1, 2, 3, 4]
    assert [c["outcome"] for c in calls] == [c["outcome"] for c in fresh] and calls[0]["outcome"] == "ok"
    assert [c["mismatch"] for c in calls] == [c["mismatch"] for c in fresh]
    assert calls[2]["outcome"] == "invalid" and calls[3] == dict(calls[0], seq=4)
    assert calls[3]["mismatch"] is not calls[0]["mismatch"] and calls[3]["gates"] is not calls[0]["gates"]
    calls[0]["mismatch"].append("edited")
    assert rederive(rt_corpus, actor, as_of, limits[:1], verifier=shared)[0][0]["mismatch"] == []


def test_a_trace_seen_again_is_re_derived_alike_into_fresh_objects(rt_world, rt_corpus, perspective):
    """A trace another agent or mode already sent (the shared verifier keeps what it re-derived to) comes back equal
    to a fresh re-derivation, sharing no object; one differing only in a type (a tuple of ids) is still malformed."""
    as_of = parse_ts(perspective["as_of"])
    actor = perspective["actor"]
    honest = GatedRuntime(rt_corpus, actor, as_of, record_latency=False)
    honest.search_artifacts(perspective["subject"]["entity"]["id"], None, 3)
    clean = honest.trace()[0]
    forged = [clean, dict(clean, seq=2, returned_ids=[_forbidden(rt_world, perspective).ref]),
              {"tool": "fetch_artifact", "args": {"artifact_id": "NOPE-1"}, "seq": 3}]
    shared = TraceVerifier(rt_corpus, actor, as_of)
    first = rederive(rt_corpus, actor, as_of, forged, verifier=shared)
    again = rederive(rt_corpus, actor, as_of, json.loads(json.dumps(forged)), verifier=shared)
    assert again == first == rederive(rt_corpus, actor, as_of, forged)
    assert first[1].mismatched == 1 and first[1].unknown_ids == ("NOPE-1",) and first[1].withheld_returned
    assert all(a is not b and a["gates"] is not b["gates"] and a["mismatch"] is not b["mismatch"]
               for a, b in zip(first[0], again[0]))
    first[0][1]["mismatch"].append("edited")
    assert rederive(rt_corpus, actor, as_of, forged, verifier=shared)[0][1]["mismatch"] == again[0][1]["mismatch"]
    as_tuple = [forged[0], dict(forged[1], returned_ids=tuple(forged[1]["returned_ids"])), forged[2]]
    assert rederive(rt_corpus, actor, as_of, as_tuple, verifier=shared)[1].malformed


def test_requested_ids_shared_across_moments_resolve_as_the_corpus_does(rt_world, rt_corpus):
    """One ``RequestedIds`` for every verifier: an ``ID@N`` is kept for every moment, a bare ``ID`` (its version
    current then) and an unknown id are resolved again each time, and a ref read from a record is the version's."""
    from datetime import timedelta

    from judges.groundeval.requested_ids import RequestedIds

    ids = RequestedIds(rt_corpus)
    by_artifact: dict[str, list] = {}
    for v in rt_world.artifacts:
        by_artifact.setdefault(v.artifact_id, []).append(v)
    history = next(sorted(vs, key=lambda v: v.version) for vs in by_artifact.values() if len(vs) >= 2)
    moments = [history[0].created_at - timedelta(days=1), history[0].created_at, history[1].created_at,
               history[-1].created_at + timedelta(days=1), history[0].created_at]
    asked = [history[0].artifact_id, history[0].ref, history[-1].ref, f"{history[0].artifact_id}@0",
             f"{history[0].artifact_id}@01", "NOPE-1", "NOPE-1@1"]
    for moment in moments:
        for requested in asked:
            assert ids.resolve(requested, moment) == rt_corpus.resolve(requested, moment), (requested, moment)
    found = {ids.resolve(history[0].artifact_id, m) for m in moments}
    assert len(found) >= 2           # the bare id named another version at another moment
    assert all(ids.ref(i) == rt_corpus.docs[i].ref for i in found | {ids.resolve(history[0].ref, moments[0])})
