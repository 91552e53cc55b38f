"""The gated runtime: gates before ranking, indistinguishable withholding, recorded calls, and a leak probe."""

import random
from datetime import timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from judges.groundeval.postings import LOWERED_TO_ASCII
from judges.groundeval.runtime import GatedRuntime, Postings, not_found, tokenize


def test_tokenize_keeps_ids_and_their_parts():
    assert tokenize("See CHG-118, on 2026-01-05!") == ["see", "chg-118", "chg", "118", "on", "2026-01-05", "2026", "01", "05"]


@settings(max_examples=200, deadline=None)
@given(texts=st.lists(st.text(alphabet="abZ09-_.:/@ \n\x00\u212a\u0130\u00e9\u2014\u03a3", max_size=30), max_size=12),
       block=st.integers(1, 5))
def test_postings_count_the_tokens_of_tokenize(texts, block):
    """The block tokenizer (one pass over a block's joined texts) against ``tokenize`` text by text: NULs in a text,
    characters that lower-case to ASCII (Kelvin sign, dotted capital I), joiners doubled or at either end."""
    postings, lengths = Postings.of_texts(texts, block)
    counts: dict[str, dict[int, int]] = {}
    for i, text in enumerate(texts):
        tokens = tokenize(text)
        assert lengths[i] == len(tokens)
        for token in tokens:
            counts.setdefault(token, {})[i] = counts.get(token, {}).get(i, 0) + 1
    assert len(lengths) == len(texts) and set(postings.terms) == set(counts)
    for term, found in counts.items():
        docs, tf = postings.get(term)
        assert docs.tolist() == sorted(found) and tf.tolist() == [found[i] for i in sorted(found)]


def test_fetch_of_withheld_and_missing_ids_look_the_same(rt_world, rt_corpus):
    ticket = next(v for v in rt_world.artifacts if v.subsystem == "ticketing")
    engineer = next(a.actor_id for a in rt_world.actors if a.role == "engineer" and a.actor_id not in ticket.acl.participants)
    runtime = GatedRuntime(rt_corpus, engineer, ticket.created_at + timedelta(days=1))
    withheld = runtime.fetch_artifact(ticket.artifact_id)
    missing = runtime.fetch_artifact("CASE-99999")
    assert withheld == not_found(ticket.artifact_id) and missing == not_found("CASE-99999")
    assert withheld["message"].replace(ticket.artifact_id, "X") == missing["message"].replace("CASE-99999", "X")
    first, second = runtime.trace()
    assert (first["outcome"], first["gates"]) == ("withheld", {"horizon": False, "actor": False, "subsystem": True})
    assert (second["outcome"], second["gates"]) == ("not_found", {"horizon": False, "actor": False, "subsystem": False})
    assert first["latency_ms"] is not None and first["args"] == {"artifact_id": ticket.artifact_id}


def test_future_versions_are_withheld_by_the_horizon(rt_world, rt_corpus):
    incident = next(v for v in rt_world.artifacts if v.kind == "incident" and v.version == 2)
    actor = incident.author
    runtime = GatedRuntime(rt_corpus, actor, incident.created_at - timedelta(minutes=1), record_latency=False)
    current = runtime.fetch_artifact(incident.artifact_id)["artifact"]
    assert current["version"] == 1 and current["id"] == f"{incident.artifact_id}@1"
    assert "error" in runtime.fetch_artifact(incident.ref)
    assert runtime.trace()[1]["gates"]["horizon"] is True and runtime.trace()[1]["latency_ms"] is None
    hits = runtime.search_artifacts(incident.artifact_id, None, 50)["results"]
    assert incident.ref not in [h["id"] for h in hits]


def test_search_outside_the_role_is_empty_and_recorded(rt_world, rt_corpus):
    support = next(a.actor_id for a in rt_world.actors if a.role == "support_l1")
    runtime = GatedRuntime(rt_corpus, support, rt_world.events[-1].ts)
    assert runtime.search_artifacts("incident", "deploys", 5) == {"results": [], "count": 0}
    assert runtime.search_artifacts("zzzunknownterm", None, 5) == {"results": [], "count": 0}
    calls = runtime.trace()
    assert calls[0]["gates"]["subsystem"] is True and calls[1]["gates"]["subsystem"] is False
    assert runtime.search_artifacts(42, None, 5)["error"] == "invalid_arguments"


def test_bm25_ranks_the_named_record_first(rt_world, rt_corpus):
    engineer = next(a.actor_id for a in rt_world.actors if a.role == "engineer")
    runtime = GatedRuntime(rt_corpus, engineer, rt_world.events[-1].ts)
    results = runtime.search_artifacts("CHG-7 deploy", "deploys", 3)["results"]
    assert results[0]["artifact_id"] == "CHG-7" and len(results) == 3
    assert [r["score"] for r in results] == sorted((r["score"] for r in results), reverse=True)
    assert runtime.trace()[0]["returned_ids"] == [r["id"] for r in results]


def test_leak_probe_against_the_policy(rt_world, rt_corpus):
    """Thousands of random searches and fetches; the policy itself says nothing withheld came back."""
    rng = random.Random(20260105)
    policy = rt_world.policy
    versions = {v.ref: v for v in rt_world.artifacts}
    ids = sorted({v.artifact_id for v in rt_world.artifacts}) + ["NOPE-1", "CASE-1"]
    refs = sorted(versions)
    words = sorted({t for v in rt_world.artifacts for t in tokenize(v.title)})
    actors = [a.actor_id for a in rt_world.actors] + ["P-999"]
    start, end = rt_world.events[0].ts - timedelta(days=1), rt_world.events[-1].ts + timedelta(days=1)
    subsystems = [None, "ticketing", "deploys", "incidents", "postmortems", "chat", "email", "hr"]
    checked = 0
    for _ in range(100):
        actor = rng.choice(actors)
        moment = start + (end - start) * rng.random()
        runtime = GatedRuntime(rt_corpus, actor, moment)
        for _ in range(40):
            if rng.random() < 0.5:
                query = " ".join(rng.choice(words) for _ in range(rng.randint(1, 3)))
                result = runtime.search_artifacts(query, rng.choice(subsystems), rng.randint(1, 50))
                for hit in result["results"]:
                    version = versions[hit["id"]]
                    assert policy.can_see(actor, version, moment), (actor, moment, hit["id"])
                    history = [v for v in rt_world.versions(version.artifact_id) if v.created_at <= moment]
                    assert history[-1] is version                             # the as-of version, never a later one
                    assert hit["snippet"] == version.body[:200] and hit["title"] == version.title
                assert result["count"] == len(result["results"])
            else:
                target = rng.choice(ids) if rng.random() < 0.5 else rng.choice(refs)
                result = runtime.fetch_artifact(target)
                if "artifact" in result:
                    assert policy.can_see(actor, versions[result["artifact"]["id"]], moment)
                else:
                    assert result == not_found(target)
                    call = runtime.trace()[-1]
                    if target in versions:
                        assert policy.violations(actor, versions[target], moment) and call["outcome"] == "withheld"
                        assert [g for g, broken in call["gates"].items() if broken] == \
                            sorted(policy.violations(actor, versions[target], moment), key=("horizon", "actor", "subsystem").index)
            checked += 1
    assert checked == 4000


def test_context_holds_only_what_the_gates_allow_within_budget(rt_world, rt_corpus, rt_suite):
    from judges.groundeval.context import build_context
    from judges.groundeval.traces import load_suite

    versions = {v.ref: v for v in rt_world.artifacts}
    _, contracts = load_suite(rt_suite)
    for contract in contracts[::3]:
        runtime = GatedRuntime(rt_corpus, contract.actor, contract.as_of, record_latency=False)
        context = build_context(contract, runtime, budget=3000)
        assert context.used <= 3000 and len(context.items) == len(set(context.ids()))
        assert all(rt_world.policy.can_see(contract.actor, versions[ref], contract.as_of) for ref in context.ids())
        assert all(not any(call["gates"].values()) for call in runtime.trace())
        assert all(f"[{ref}]" in context.render() for ref in context.ids())


def test_visible_mask_is_the_policy_at_that_moment(rt_world, rt_corpus):
    """The lookup-table mask says, for every version, exactly what the policy and the version history say."""
    rng = random.Random(7)
    actors = [a.actor_id for a in rt_world.actors] + ["P-999"]
    start, end = rt_world.events[0].ts - timedelta(days=1), rt_world.events[-1].ts + timedelta(days=1)
    for _ in range(25):
        actor, moment = rng.choice(actors), start + (end - start) * rng.random()
        mask = rt_corpus.visible_mask(actor, moment)
        expected = [rt_corpus.current_at(i, moment) and rt_world.policy.can_see(actor, v, moment)
                    for i, v in enumerate(rt_corpus.docs)]
        assert mask.tolist() == expected


def test_the_characters_lowered_to_ascii_are_all_listed():
    """The block tokenizer lowers the bytes (ASCII only) unless a text holds one of these; this Python agrees."""
    found = [c for c in map(chr, range(128, 0x110000)) if any(ord(x) < 128 for x in c.lower())]
    assert tuple(found) == LOWERED_TO_ASCII


def test_a_search_ranks_the_same_whatever_the_session_searched_before(rt_world, rt_corpus):
    """Term weights kept per session (unfiltered, then narrowed to a subsystem, or the reverse) change no result."""
    rng = random.Random(11)
    words = sorted({t for v in rt_world.artifacts for t in tokenize(f"{v.title} {v.body}")})
    common = ["the", "a", "to", "of", "and"]
    subsystems = [None, "ticketing", "deploys", "incidents", "chat", "email"]
    employed = [a.actor_id for a in rt_world.actors]
    for _ in range(10):
        actor = rng.choice(employed)
        moment = rt_world.events[0].ts + (rt_world.events[-1].ts - rt_world.events[0].ts) * (0.3 + 0.7 * rng.random())
        shared = GatedRuntime(rt_corpus, actor, moment, record_latency=False)
        searches = [(" ".join(rng.choice(words + common) for _ in range(rng.randint(1, 5))), rng.choice(subsystems),
                     rng.randint(1, 50)) for _ in range(12)]
        searches += [(q, None if s else "chat", n) for q, s, n in searches]      # the same terms, other filter
        for query, subsystem, limit in searches:
            fresh = GatedRuntime(rt_corpus, actor, moment, record_latency=False)
            assert shared.search_artifacts(query, subsystem, limit) == fresh.search_artifacts(query, subsystem, limit)
            assert shared.ranked_ids(query, subsystem, limit) == tuple(
                rt_corpus.docs[i].ref for i in fresh.ranked_versions(query, subsystem, limit))
