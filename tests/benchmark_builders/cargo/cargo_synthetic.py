"""Synthetic completed support cases for fast CARGO tests (facts shaped like the simulator's)."""

from __future__ import annotations

import random
from functools import lru_cache
from datetime import date, timedelta

from benchmark_builders.cargo.cases import SupportCase, case_from_facts, open_case_from_facts, with_history
from simulator.procedures import PROCEDURES

_COMPANIES = ("Acme Corp", "Globex Ltd", "Initech", "Umbrella Health", "Stark Logistics", "Wayne Foods",
              "Hooli Labs", "Vandelay Imports", "Soylent Systems", "Tyrell Analytics")
_PEOPLE = ("Ana Ruiz", "Ben Okafor", "Chen Wei", "Dara Singh", "Eli Novak", "Fay Moreau", "Gus Lind")
_CODES = {"battery": "BAT-0x4", "firmware": "FW-0x2", "hardware_failure": "PSU-0x0", "account_access": "AUTH-0x0",
          "onsite": "MB-0x5", "licensing": "LIC-0x0", "billing": "SLA-0x0", "data_loss": "RAID-0x6"}


def synthetic_cases(world_seed: int, per_procedure: int = 5) -> list[SupportCase]:
    """``per_procedure`` completed cases of every runbook, with distinct identifiers."""
    rng = random.Random(f"synthetic:{world_seed}")
    cases = []
    counter = 0
    for procedure in PROCEDURES:
        for _ in range(per_procedure):
            counter += 1
            n = world_seed * 1000 + counter
            opened = date(2026, 3, 1) + timedelta(days=rng.randint(0, 60))
            warranty = opened + timedelta(days=rng.randint(-200, 400))
            person = rng.choice(_PEOPLE)
            facts = {
                "procedure_id": procedure.procedure_id,
                "steps_completed": [s.step_id for s in procedure.steps],
                "case_id": f"CASE-{10000 + n}", "account_id": f"ACC-{2000 + rng.randint(0, 999)}",
                "account_name": rng.choice(_COMPANIES), "contact_name": person,
                "contact_email": person.split()[0].lower() + f"{n}@example.com",
                "contract_level": rng.choice(("basic", "next_business_day", "four_hour")),
                "case_status": "resolved", "priority": rng.choice(("P1", "P2", "P3", "P4")),
                "opened_at": opened.isoformat(), "asset_serial": f"SN{rng.randint(100000, 999999)}",
                "asset_model": "ThinkBook 14", "purchase_date": (warranty - timedelta(days=1095)).isoformat(),
                "warranty_end": warranty.isoformat(),
                "entitlement": "active" if warranty >= opened else "expired",
                "diagnostic_code": _CODES[procedure.category] + rng.choice("1ACE"),
                "firmware_version": f"4.2.{rng.randint(5, 9)}", "target_firmware": f"4.2.{rng.randint(1, 4)}",
                "backup_id": f"BKP-{9000 + n}", "dispatch_id": f"DSP-{55000 + n}",
                "visit_date": (opened + timedelta(days=3)).isoformat(), "rma_number": f"RMA-{7700 + n}",
                "license_key": f"LIC-{rng.getrandbits(24):06X}", "target_account_id": f"ACC-{3000 + n}",
                "reset_token_id": f"RST-{rng.getrandbits(32):08x}", "invoice_id": f"INV-{30100 + n}",
                "credit_amount": rng.choice((150, 250, 500)), "credit_id": f"CRD-{4000 + n}",
                "approver": f"E{100 + rng.randint(0, 50):04d}", "log_bundle_id": f"LOG-{60000 + n}",
                "recovery_job_id": f"RJ-{800 + n}",
            }
            case = case_from_facts(world_seed, facts)
            assert case is not None
            cases.append(case)
            # the same case as of a moment mid-case, and (every other case) a twin still open at the world's end
            half = len(procedure.steps) // 2
            written = {f for step in procedure.steps[half:] for f in step.writes}
            snapshot = {**{k: v for k, v in facts.items() if k not in written}, "case_status": "in_progress",
                        "steps_completed": facts["steps_completed"][:half]}
            cases.append(open_case_from_facts(world_seed, snapshot, "mid_case"))
            if counter % 2:
                counter += 1
                cases.append(open_case_from_facts(world_seed, {**snapshot, "case_id": f"CASE-{10001 + n}"},
                                                  "open_at_end"))
    opened = [(c.case_id, c.facts["account_id"], c.facts["opened_at"]) for c in cases]
    return [with_history(c, opened) for c in cases]


@lru_cache(maxsize=1)
def default_world_suite():
    """The default suite (246 items) built from the ten default CARGO worlds, once per test process."""
    from benchmark_builders.cargo import suite_from_world_objects
    from benchmark_builders.cargo.worlds import DEFAULT_SEEDS, simulate_worlds

    return suite_from_world_objects(simulate_worlds(DEFAULT_SEEDS))
