"""The rewrite rules on hand-written bodies: which fact values a rewrite must keep, and which ids are foreign."""

from __future__ import annotations

from orgbench.prose.rules import clean_reply, identifiers, judge_rewrite, required_values

BODY = "Case CASE-10001 for Hall and Sons is open, priority P4. Contact ian@hall.example; opened 2026-01-05."
FACTS = {"case_id": "CASE-10001", "account_name": "Hall and Sons", "case_status": "open", "priority": "P4",
         "contact_email": "ian@hall.example", "opened_at": "2026-01-05", "strategic": False,
         "procedure_revision": 1, "steps": [{"step_id": "triage"}], "message_id": "MSG-7"}


def test_only_the_values_the_grammar_states_are_required_in_its_order():
    # "1" is inside CASE-10001 only, False and MSG-7 are not said at all, "triage" neither
    assert required_values(BODY, FACTS) == ["CASE-10001", "Hall and Sons", "open", "P4", "ian@hall.example",
                                            "2026-01-05"]


def test_a_rewrite_with_every_value_and_no_new_id_is_kept():
    rewrite = "Hall and Sons raised CASE-10001 on 2026-01-05 (ian@hall.example); still open at P4. Cheers, MSG-7"
    assert judge_rewrite(BODY, FACTS, rewrite).kept


def test_a_missing_value_is_named():
    verdict = judge_rewrite(BODY, FACTS, "Hall and Sons raised a case on 2026-01-05, ian@hall.example, open, P4.")
    assert (verdict.kept, verdict.reason, verdict.detail) == (False, "missing_fact", "CASE-10001")


def test_a_value_inside_a_longer_token_does_not_count():
    verdict = judge_rewrite(BODY, FACTS, "CASE-100012 Hall and Sons open P4 ian@hall.example 2026-01-05")
    assert (verdict.reason, verdict.detail) == ("missing_fact", "CASE-10001")


def test_invented_ids_of_every_shape_are_foreign():
    kept = "CASE-10001 Hall and Sons open P4 ian@hall.example 2026-01-05"
    for invented in ("INC-7", "SEV1", "bob@hall.example", "2026-02-01", "#sre-oncall", "P-0042"):
        verdict = judge_rewrite(BODY, FACTS, f"{kept}, see {invented}")
        assert (verdict.reason, verdict.detail) == ("foreign_id", invented), invented


def test_identifiers_and_replies():
    assert identifiers("P4 and SN-J4JF866J at 2026-01-07T09:34:27Z in #deploys") == [
        "P4", "SN-J4JF866J", "2026-01-07T09:34:27Z", "#deploys"]
    assert judge_rewrite(BODY, FACTS, "   ").reason == "empty"
    assert clean_reply("```text\nHello CASE-1\n```") == "Hello CASE-1"
    assert clean_reply("```\nHello\n```") == "Hello"
    assert clean_reply("  plain  ") == "plain"
