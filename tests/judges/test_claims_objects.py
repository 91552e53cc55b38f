"""A check of what an entitlement covers, done on something else, is a wrong action at that step (claims._object_errors).

The examples are written here in free prose, not in the generator's wording."""

from __future__ import annotations

from judges.claims import read_procedure

REFERENCE = """Closed ticket CASE-3 (Acme, ACC-9)
- Verified the contract covers on-site service (serial SN-1, contract four hour): entitlement active
- Ran remote diagnostics (serial SN-1): code PSU-0x0C
- Scheduled a field technician visit: dispatch DSP-7, visit 2026-01-12
- Emailed the customer the visit date
- Resolved the case after the visit report was filed: closed"""
LIVE = {"active": "entitlement", "SN-2": "asset serial", "PSU-0x0A": "diagnostic code", "DSP-8": "dispatch", "2026-02-03": "visit date"}
REST = (" Then I ran remote diagnostics on SN-2 and got PSU-0x0A. I scheduled a field technician visit, dispatch DSP-8 "
        "for 2026-02-03, emailed the customer the visit date, and resolved the case after the visit report was filed.")


def _errors(first: str) -> list[str]:
    return [e for e in read_procedure(first + REST, REFERENCE, LIVE).errors if e.startswith("another action at a step")]


def test_a_coverage_of_another_service_is_another_action():
    assert _errors("First I checked that the customer's entitlement includes data recovery for SN-2.")


def test_a_check_of_something_else_in_place_of_the_coverage_is_another_action():
    assert _errors("First I verified the warranty entitlement of the asset SN-2.")
    assert _errors("Checked the warranty of SN-2: fine.")


def test_the_same_coverage_in_other_words_or_a_bare_state_is_no_error():
    assert not _errors("First I made sure their contract covers on-site visits for SN-2.")
    assert not _errors("On-site service is covered by the contract for SN-2.")
    assert not _errors("Checked the entitlement for SN-2: active.")      # what the step yields
    assert not _errors("Contract check for SN-2: active.")
    assert not _errors("The entitlement was verified as active for SN-2.")


def test_an_exemplar_of_another_procedure_says_nothing_about_what_the_check_covers():
    other = ("First I verified the warranty entitlement of the asset SN-2. Then I swapped the battery pack, "
             "posted the invoice credit and closed the account review.")
    assert not [e for e in read_procedure(other, REFERENCE, LIVE).errors if e.startswith("another action at a step")]
