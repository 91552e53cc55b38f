"""No candidate gives itself away: read alone, a P2 answer is as consistent as a correct one.

The scan reads the candidate text as a NoRef judge would (plus the opening day, which every answer
leaves unstated), so it checks the rendered suite, not the builder's own bookkeeping.
"""

from __future__ import annotations

import random
import re
from datetime import date
from dataclasses import replace

import pytest

from benchmark_builders.cargo.answers import correct_answer
from benchmark_builders.cargo.perturb import contradict, contradictable_facts, self_inconsistencies
from cargo_synthetic import default_world_suite, synthetic_cases

_STATUS = re.compile(r"\bstatus (open|in progress|pending customer|resolved|closed)\b")


def _one(pattern: str, text: str) -> str | None:
    found = re.search(pattern, text)
    return found.group(1) if found else None


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def text_inconsistencies(candidate: str, opened_at: str) -> list[str]:
    """What a reader of the candidate alone (knowing the opening day) can tell is wrong with it."""
    out = []
    statuses = set(_STATUS.findall(candidate))
    if re.search(r"\bresolved the case\b", candidate, re.I) and statuses - {"resolved", "closed"}:
        out.append(f"narrates resolving the case, states status {sorted(statuses)}")
    if len(statuses) > 1:
        out.append(f"states two statuses {sorted(statuses)}")
    entitled = _one(r"\bentitlement (active|expired)\b", candidate)
    warranty_end = _one(r"\bwarranty end (\d{4}-\d{2}-\d{2})", candidate)
    if entitled and warranty_end and entitled != ("active" if warranty_end >= opened_at else "expired"):
        out.append(f"entitlement {entitled} with warranty end {warranty_end}, opened {opened_at}")
    current = _one(r"\bfirmware version (\d+\.\d+\.\d+)", candidate)
    target = _one(r"\btarget firmware (\d+\.\d+\.\d+)", candidate)
    if current and target and _version(target) >= _version(current):
        out.append(f"rolled back from {current} to {target}")
    visit = _one(r"\bvisit date (\d{4}-\d{2}-\d{2})", candidate)
    if visit and visit < opened_at:
        out.append(f"visit {visit} before the case opened {opened_at}")
    if re.search(r"\b[A-Z]+-[1-9]x[0-9A-F]", candidate):
        out.append("a diagnostic code not shaped 0x..")
    if any(len(part) > 1 and part[0] == "0" for v in re.findall(r"\d+\.\d+\.\d+", candidate) for part in v.split(".")):
        out.append("a version with a leading zero")
    return out


def _scan(suite) -> dict[str, list[str]]:
    items = {i["item_id"]: i for i in suite.items}
    found = {}
    for truth in suite.truth:
        item = items[truth["item_id"]]
        opened_at = _one(r"Opened on: (\d{4}-\d{2}-\d{2})", item["live_context"])
        problems = text_inconsistencies(item["candidate"], opened_at)
        if problems:
            found[f"{truth['family']} {truth['item_id']}"] = problems
    return found


def _status_changes(suite) -> list[tuple[str, str]]:
    return [(c["original"], c["new"]) for t in suite.truth if t["family"] == "P2"
            for c in t["perturbation"]["changes"] if c["field"] == "case_status"]


def test_no_candidate_of_the_synthetic_suite_contradicts_itself(synthetic_suite):
    assert _scan(synthetic_suite) == {}
    assert _status_changes(synthetic_suite) == []  # status and entitlement are no longer contradicted


@pytest.mark.slow          # builds the default suite (47 s, loaded machine)
def test_no_candidate_of_the_default_suite_contradicts_itself():
    suite = default_world_suite()
    assert _scan(suite) == {}
    kinds = suite.meta["p2_kinds"]
    assert sum(kinds.values()) == 50 and set(kinds) == {"date", "identifier", "count", "days"} and min(kinds.values()) >= 3
    fields = {c["field"] for t in suite.truth if t["family"] == "P2" for c in t["perturbation"]["changes"]}
    assert not fields & {"case_status", "entitlement", "case_id", "account_id", "account_name", "asset_serial"}


def test_the_scan_catches_what_the_old_contradictions_did():
    old = ("Verified the warranty entitlement of the asset (asset serial SN-1, warranty end 2027-03-20): "
           "entitlement expired. Rolled the firmware back (target firmware 5.6.23, firmware version 5.0.25). "
           "Resolved the case (dispatch DSP-1): status in progress.")
    assert len(text_inconsistencies(old, "2026-02-03")) == 3


def _case(status: str):
    """A synthetic on-site dispatch case (it states a status, an entitlement, a warranty end and a visit)."""
    base = next(c for c in synthetic_cases(0) if c.procedure_id == "RB-ONSITE-DISPATCH")
    return replace(base, facts={**base.facts, "case_status": status})


def test_only_a_resolved_status_is_contradicted_and_only_to_closed():
    closed, resolved = _case("closed"), _case("resolved")
    assert "case_status" not in contradictable_facts(correct_answer(closed))
    answer, record = contradict(correct_answer(resolved), resolved.facts, random.Random(0), kind="status")
    assert record["changes"] == [{"field": "case_status", "original": "resolved", "new": "closed"}]
    # a closed case falls back to an identifier
    _, record = contradict(correct_answer(closed), closed.facts, random.Random(0), kind="status")
    assert record["changes"][0]["field"] != "case_status"


@pytest.mark.parametrize("seed", range(20))
def test_a_changed_entitlement_takes_its_warranty_end_along(seed):
    case = _case("resolved")
    answer, record = contradict(correct_answer(case), case.facts, random.Random(seed), n_values=2, kind="entitlement")
    assert [c["field"] for c in record["changes"]] == ["entitlement", "warranty_end"]
    assert self_inconsistencies(answer.values(), case.facts) == []
    assert answer.values()["entitlement"] != case.facts["entitlement"]


def _gap(value: str, anchor: str) -> tuple[str, int] | None:
    """Days between two ISO dates, or patch versions between two versions of one line; None if unrelated."""
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", anchor):
        return "days", (date.fromisoformat(value) - date.fromisoformat(anchor)).days
    v, a = re.fullmatch(r"(\d+\.\d+)\.(\d+)", value), re.fullmatch(r"(\d+\.\d+)\.(\d+)", anchor)
    if v and a and v.group(1) == a.group(1):
        return "patches", int(v.group(2)) - int(a.group(2))
    return None


@pytest.mark.slow          # scans the default worlds (35 s, loaded machine)
def test_every_contradicting_value_is_a_value_of_that_field_elsewhere_in_its_world():
    """Recomputed from the worlds' raw ticket facts, not from the builder's pool.

    A date or version the candidate ties to another fact it states (a warranty end to the purchase day, a rollback
    target to the running firmware) may instead sit at a gap from another date or version in the live context or the
    candidate that the same field shows from some other fact somewhere in its world.
    """
    from benchmark_builders.cargo.worlds import DEFAULT_SEEDS, simulate_worlds

    seen: dict[tuple[int, str], set[str]] = {}
    gaps: dict[tuple[int, str], set[tuple[str, int]]] = {}
    for world in simulate_worlds(DEFAULT_SEEDS):
        for version in world.artifacts:
            facts = {n: str(v) for n, v in version.facts.items() if isinstance(v, (str, int)) and not isinstance(v, bool)}
            for name, value in facts.items():
                seen.setdefault((world.seed, name), set()).add(value)
                for other, anchor in facts.items():
                    gap = _gap(value, anchor) if other != name else None
                    if gap is not None:
                        gaps.setdefault((world.seed, name), set()).add(gap)
    suite = default_world_suite()
    items = {i["item_id"]: i for i in suite.items}
    for truth in suite.truth:
        if truth["family"] != "P2":
            continue
        item = items[truth["item_id"]]
        for change in truth["perturbation"]["changes"]:
            if "derived" in change:  # a wrong computation, not a world value: test_open_and_derived.py
                continue
            key = (truth["world_seed"], change["field"])
            text = item["live_context"] + "\n" + str(item.get("candidate", ""))
            stated = set(re.findall(r"\d{4}-\d{2}-\d{2}|\d+\.\d+\.\d+", text)) - {change["new"]}
            tied = {_gap(change["new"], value) for value in stated} & gaps.get(key, set())
            assert change["new"] in seen[key] or tied, change
            assert change["new"] not in item["live_context"] and change["new"] not in item["question"]
            assert change["new"] not in item["reference"]


_ENTITY_LABELS = ("Case", "Account", "Customer", "Contact name", "Contact email", "Asset serial", "Purchase date",
                  "Warranty end", "Opened on", "Backup", "Dispatch", "Visit date", "RMA", "Invoice", "Credit",
                  "Log bundle", "Recovery job")


@pytest.mark.slow          # builds the default suite (7-18 s, loaded machine)
def test_no_entity_of_the_live_case_appears_in_its_reference():
    """Read from the texts: no live-context entity value (ids, names, emails, dates) is in the reference."""
    suite = default_world_suite()
    shared = []
    for item in suite.items:
        for line in item["live_context"].splitlines()[1:]:
            label, _, value = line.partition(": ")
            if label in _ENTITY_LABELS and re.search(rf"(?<![\w-]){re.escape(value)}(?![\w-])", item["reference"]):
                shared.append((item["item_id"], label, value))
    assert shared == []
