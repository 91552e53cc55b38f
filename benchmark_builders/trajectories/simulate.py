"""Simulated support-agent trajectories with step labels known by construction.

A support agent works one case of a world through tools (look up the case,
get the asset, check entitlement, search the knowledge base, create a
dispatch, update the case, email the customer); the simulated customer runs a
device check through a tool of its own. Steps carry their action only in
``tool_calls`` with empty content most of the time, some calls run in
parallel, and a few arguments are invalid JSON (truncated or double encoded).

Each trajectory may contain one constructed error -- a wrong tool, wrong
arguments, a skipped verification, a premature close or malformed arguments.
The error step and the steps that depend on it are labelled -1 until the agent
corrects it; correct tool steps are +1 and text-only steps are 0.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

from benchmark_builders.trajectories.records import ChatMessage, StepLabels, ToolCall, Trajectory
from simulator.case_facts import entitlement as entitlement_status
from benchmark_builders.trajectories.runbook_flow import case_facts_ready, runbook_trajectory
from simulator.packs import Pack, world_pack
from simulator.procedures import PROCEDURES, PROCEDURES_BY_CATEGORY, PROCEDURES_BY_ID, Procedure
from orgbench.core.storage import dumps

ERROR_KINDS = ("wrong_arguments", "wrong_tool", "skipped_verification", "premature_close", "invalid_json")

AGENT_TOOLS = ("lookup_case", "get_asset", "check_entitlement", "search_kb", "create_dispatch", "update_case",
               "email_customer")
CUSTOMER_TOOLS = ("run_device_check",)

_MODELS = ("Aster X2", "Aster X3", "Borealis 14", "Corvid Pro", "Delta Mini")
_FIRST = ("Ana", "Ben", "Chloe", "Dev", "Elif", "Femi", "Greta", "Hiro", "Ines", "Jonas")
_LAST = ("Okafor", "Lindqvist", "Moreau", "Tanaka", "Silva", "Novak", "Reyes", "Berg")
_COMPANIES = ("Northwind Freight", "Helix Labs", "Quarry & Co", "Bluebird Clinics", "Tessellate AG")
_ACTION = {"RB-BATTERY": "battery_replacement", "RB-FW-ROLLBACK": "firmware_rollback",
           "RB-ADV-EXCHANGE": "advance_exchange", "RB-ONSITE-DISPATCH": "onsite_visit",
           "RB-DATA-RECOVERY": "data_recovery", "RB-LICENSE-TRANSFER": "license_transfer",
           "RB-PASSWORD-RESET": "password_reset", "RB-BILLING-CREDIT": "billing_credit"}

SYSTEM_PROMPT = (
    "You are a customer-support agent for a hardware vendor. Work the customer's case with the tools: "
    "lookup_case, get_asset, check_entitlement, search_kb, create_dispatch, update_case, email_customer. "
    "Verify the entitlement before creating a dispatch, and do not close a case before the fix is delivered."
)


@dataclass(frozen=True, slots=True)
class SupportCase:
    """One support case as the agent meets it: id, runbook and the facts the tools answer with."""

    case_id: str
    procedure_id: str
    facts: Mapping[str, Any] = field(default_factory=dict)
    #: A case of another pack than the default: its runbook, the pack's runbooks and company
    #: (the agent's tools are the runbook's steps, ``runbook_flow``); None for the default pack's flow.
    runbook: Procedure | None = None
    library: tuple[Procedure, ...] = ()
    company: str = ""


def synthetic_cases(n: int, seed: int) -> list[SupportCase]:
    """``n`` support cases with facts drawn from a seeded stream (for worlds without cases)."""
    rng = random.Random(f"cases:{seed}")
    return [_complete_case(SupportCase(f"CASE-{10000 + i}", PROCEDURES[rng.randrange(len(PROCEDURES))].procedure_id),
                           rng) for i in range(n)]


def cases_from_world(world: Any, pack: Pack | None = None) -> list[SupportCase]:
    """The asset cases of a world under active entitlement: the latest version of each ticket naming a case. A world
    of another pack (``pack``; default: the one world.json names): its closed cases whose runbook facts were all
    recorded (``pack_cases``)."""
    pack = pack or world_pack(dict(getattr(world, "meta", None) or {}))
    if not pack.is_default:
        return pack_cases(world, pack)
    latest: dict[str, Any] = {}
    for version in world.artifacts:
        facts = version.facts or {}
        if version.kind not in ("ticket", "case", "support_case") and "case_id" not in facts:
            continue
        case_id = str(facts.get("case_id") or version.artifact_id)
        if not case_id.startswith("CASE-"):
            continue
        # the case's own record wins over a message that names the case (an email has no warranty dates)
        rank = (version.kind in ("ticket", "case", "support_case") or version.artifact_id == case_id, version.version)
        if case_id not in latest or rank >= latest[case_id][0]:
            latest[case_id] = (rank, version)
    cases = []
    for case_id in sorted(latest):
        facts = dict(latest[case_id][1].facts)
        if "entitlement" not in facts and "warranty_end" in facts and "opened_at" in facts:
            facts["entitlement"] = entitlement_status(str(facts["warranty_end"]), str(facts["opened_at"]))
        if "asset_serial" not in facts or facts.get("entitlement", "active") != "active":
            continue  # the agent flow here ends in a dispatch: it needs an asset under an active entitlement
        procedure_id = str(facts.get("procedure_id") or facts.get("procedure") or "")
        if procedure_id not in PROCEDURES_BY_ID:
            category = str(facts.get("category") or "")
            procedure_id = PROCEDURES_BY_CATEGORY[category].procedure_id if category in PROCEDURES_BY_CATEGORY \
                else PROCEDURES[sum(map(ord, case_id)) % len(PROCEDURES)].procedure_id
        rng = random.Random(f"world-case:{case_id}")
        cases.append(_complete_case(SupportCase(case_id, procedure_id, facts), rng))
    return cases


def pack_cases(world: Any, pack: Pack) -> list[SupportCase]:
    """A pack world's cases an agent can work step by step: the last ticket version of each case whose runbook
    (as of the case's revision) the pack has and whose step facts the world recorded, in case-id order."""
    latest: dict[str, Any] = {}
    for version in world.artifacts:
        facts = version.facts or {}
        if "procedure_id" in facts and "case_id" in facts:
            if facts["case_id"] not in latest or version.version >= latest[facts["case_id"]].version:
                latest[facts["case_id"]] = version
    runbooks = pack.runbooks
    cases = []
    for case_id in sorted(latest):
        facts = dict(latest[case_id].facts)
        revision = facts.get("procedure_revision", 1)
        if not runbooks.has_revision(str(facts["procedure_id"]), revision if isinstance(revision, int) else 0):
            continue
        runbook = runbooks.procedure(str(facts["procedure_id"]), revision)
        if case_facts_ready(runbook, facts):
            cases.append(SupportCase(case_id, runbook.procedure_id, facts, runbook, runbooks.procedures, pack.company))
    return cases


def _complete_case(case: SupportCase, rng: random.Random) -> SupportCase:
    """Fill the facts the tools need that the case does not state, from ``rng``."""
    facts = dict(case.facts)
    first, last = rng.choice(_FIRST), rng.choice(_LAST)
    defaults = {
        "case_id": case.case_id,
        "account_id": f"ACC-{rng.randrange(1000, 9999)}",
        "account_name": rng.choice(_COMPANIES),
        "contact_name": f"{first} {last}",
        "contact_email": f"{first.lower()}.{last.lower()}@example.com",
        "asset_serial": f"SN-{rng.randrange(100000, 999999)}",
        "asset_model": rng.choice(_MODELS),
        "warranty_end": f"202{rng.randrange(6, 9)}-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}",
        "contract_level": rng.choice(("basic", "next_business_day", "four_hour")),
        "diagnostic_code": f"{rng.choice(('BAT', 'FW', 'PSU', 'DSK'))}-0x{rng.randrange(16, 255):02X}",
        "priority": rng.choice(("P1", "P2", "P3")),
    }
    for key, value in defaults.items():
        facts.setdefault(key, value)
    facts["case_id"] = case.case_id
    return SupportCase(case.case_id, case.procedure_id, facts)


class _Recorder:
    """Builds one trajectory's messages and labels as the simulated conversation unfolds."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.messages: list[ChatMessage] = []
        self.labels: dict[int, int] = {}
        self.notes: dict[int, str] = {}

    def call_id(self) -> str:
        """A fresh call id from the trajectory's stream."""
        return "call_" + "".join(self.rng.choice("0123456789abcdef") for _ in range(10))

    def say(self, role: str, content: str, label: int | None = None) -> int:
        """Append a text-only message (optionally labelled); return its index."""
        self.messages.append(ChatMessage(role, content))
        index = len(self.messages) - 1
        if label is not None:
            self.labels[index] = label
        return index

    def act(self, role: str, calls: list[tuple[str, str, Any]], label: int | None, content: str = "",
            note: str | None = None) -> int:
        """Append a message making ``calls`` [(name, arguments json, result)] and their results."""
        made = [ToolCall(self.call_id(), name, arguments) for name, arguments, _ in calls]
        self.messages.append(ChatMessage(role, content, tuple(made)))
        index = len(self.messages) - 1
        if label is not None:
            self.labels[index] = label
        if note:
            self.notes[index] = note
        for call, (_, _, result) in zip(made, calls):
            self.messages.append(ChatMessage("tool", dumps(result), (), call.id, call.name))
        return index


def _args(**kwargs: Any) -> str:
    return dumps(kwargs)


def _open_case(rec: "_Recorder", f: Mapping[str, Any], cid: str, kb_first: bool, odd: Callable[[str], str],
               text: Callable[[tuple[str, ...]], str]) -> None:
    """The system prompt, the customer's request, (sometimes) a first knowledge-base search, the case lookup."""
    serial = f["asset_serial"]
    rec.say("system", SYSTEM_PROMPT)
    rec.say("user", f"Hello, this is {f['contact_name']} from {f['account_name']}. Our {f['asset_model']} "
                    f"(serial {serial}) has a problem and I opened {cid}. Can you help?")
    if kb_first:
        rec.act("assistant", [("search_kb", odd(_args(query=f"{f['asset_model']} problem")),
                               {"articles": [{"id": "KB-100", "title": f"{f['asset_model']} first steps"}]})], 1)
    rec.act("assistant", [("lookup_case", _args(case_id=cid),
                           {"case_id": cid, "account_id": f["account_id"], "status": "open",
                            "priority": f["priority"], "asset_serial": serial})], 1,
            text(("Let me pull up your case.", "Looking up the case now.")))


def _verify_asset(rec: "_Recorder", rng: random.Random, f: Mapping[str, Any], error: str | None, sequential: bool,
                  odd: Callable[[str], str], text: Callable[[tuple[str, ...]], str]) -> dict[str, Any]:
    """The asset and entitlement lookups (wrong serial and its correction, skipped check, sequential or parallel);
    the entitlement record the tools answer with."""
    serial = f["asset_serial"]
    asset = {"serial": serial, "model": f["asset_model"], "account_id": f["account_id"]}
    entitlement = {"serial": serial, "entitlement": "active", "warranty_end": f["warranty_end"],
                   "contract_level": f["contract_level"]}
    if error == "wrong_arguments":
        wrong = serial[:-1] + ("7" if serial[-1] != "7" else "4")
        rec.act("assistant", [("get_asset", _args(serial=wrong), {"error": f"asset {wrong} not found"}),
                              ("check_entitlement", _args(serial=wrong), {"error": f"no entitlement for {wrong}"})],
                -1, note="wrong_arguments")
        if rng.random() < 0.5:
            rec.act("assistant", [("search_kb", _args(query=f"{wrong} not found"), {"articles": []})], -1,
                    note="dependent")
        rec.act("assistant", [("get_asset", _args(serial=serial), asset),
                              ("check_entitlement", _args(serial=serial), entitlement)], 1,
                rng.choice(("", "Sorry, I mistyped the serial number; retrying with the right one.")),
                note="correction")
    elif error == "skipped_verification":
        rec.act("assistant", [("get_asset", _args(serial=serial), asset)], 1)
    elif sequential:
        rec.act("assistant", [("get_asset", odd(_args(serial=serial)), asset)], 1)
        rec.act("assistant", [("check_entitlement", _args(serial=serial), entitlement)], 1)
    else:
        rec.act("assistant", [("get_asset", _args(serial=serial), asset),
                              ("check_entitlement", _args(serial=serial), entitlement)], 1,
                text(("Checking the asset and its entitlement.",)))
    return entitlement


ERROR_RATE = 0.65
#: Share of correct steps whose arguments are double encoded yet accepted by the tool (labelled +1), so odd
#: argument JSON is no oracle for the labelled error.
ODD_BUT_ACCEPTED = 0.12


def simulate_trajectory(case: SupportCase, index: int, seed: int, error_rate: float = ERROR_RATE
                        ) -> tuple[Trajectory, StepLabels]:
    """One agent working ``case``; seeded by (seed, index) so every run is byte-identical."""
    if case.runbook is not None:
        return runbook_trajectory(case.case_id, case.runbook, case.facts, case.company, case.library, index, seed,
                                  error_rate, _Recorder)
    rng = random.Random(f"trajectory:{seed}:{index}")
    f = case.facts
    error = rng.choice(ERROR_KINDS) if rng.random() < error_rate else None
    rec = _Recorder(rng)
    serial, code, cid = f["asset_serial"], f["diagnostic_code"], case.case_id
    # chatty agent; lookups one after the other; a refined KB search; the case re-checked; a KB search first
    chatty, sequential, refine, recheck, kb_first = (rng.random() < p for p in (0.3, 0.4, 0.35, 0.3, 0.3))

    def odd(arguments: str) -> str:
        """Arguments double encoded (the tool accepts them) on a share of correct steps."""
        return dumps(arguments) if rng.random() < ODD_BUT_ACCEPTED else arguments

    def text(options: tuple[str, ...]) -> str:
        return rng.choice(options) if chatty and rng.random() < 0.5 else ""

    _open_case(rec, f, cid, kb_first, odd, text)
    entitlement = _verify_asset(rec, rng, f, error, sequential, odd, text)

    rec.say("assistant", "Could you run the device check on your unit and tell me the code it shows?", 0)
    rec.act("user", [("run_device_check", _args(serial=serial), {"diagnostic_code": code})], None)
    rec.say("user", f"The check says {code}.")

    article = {"articles": [{"id": f"KB-{rng.randrange(100, 999)}", "title": f"Resolving {code}",
                             "action": _ACTION.get(case.procedure_id, "dispatch")}]}
    if error == "wrong_tool":
        rec.act("assistant", [("get_asset", _args(serial=code), {"error": f"asset {code} not found"})], -1,
                note="wrong_tool")
        rec.act("assistant", [("search_kb", _args(query=code), article)], 1,
                rng.choice(("", "That was the wrong lookup; searching the knowledge base instead.")),
                note="correction")
    else:
        rec.act("assistant", [("search_kb", _args(query=code), article)], 1, text(("Searching the knowledge base.",)))
    if refine:
        rec.act("assistant", [("search_kb", odd(_args(query=f"{code} {f['asset_model']}")), article)], 1)
    if recheck:
        rec.act("assistant", [("lookup_case", _args(case_id=cid), {"case_id": cid, "status": "open"})], 1)

    if error == "premature_close":
        rec.act("assistant", [("update_case", _args(case_id=cid, status="closed", note="resolved per KB"),
                               {"case_id": cid, "status": "closed"})], -1, note="premature_close")
        rec.say("user", "Why was my case closed? The device is still not working.")
        rec.act("assistant", [("update_case", _args(case_id=cid, status="in_progress", note="reopened"),
                               {"case_id": cid, "status": "in_progress"})], 1,
                rng.choice(("", "Apologies, I closed the case too early. Reopening it now.")), note="correction")

    dispatch_id = f"DSP-{rng.randrange(10000, 99999)}"
    dispatch_args = _args(action=_ACTION.get(case.procedure_id, "dispatch"), case_id=cid, serial=serial)
    if error == "invalid_json":
        broken = dispatch_args[:-9] if rng.random() < 0.5 else dumps(dispatch_args)
        rec.act("assistant", [("create_dispatch", broken, {"error": "invalid arguments: expected a JSON object"})],
                -1, note="invalid_json")
        rec.act("assistant", [("create_dispatch", dispatch_args, {"dispatch_id": dispatch_id})], 1,
                rng.choice(("", "The request was malformed; sending it again.")), note="correction")
    elif error == "skipped_verification":
        rec.act("assistant", [("create_dispatch", dispatch_args, {"dispatch_id": dispatch_id})], -1,
                note="skipped_verification")
        rec.act("assistant", [("email_customer", _args(to=f["contact_email"], subject=f"Dispatch {dispatch_id}",
                                                       body=f"We created dispatch {dispatch_id} for {serial}."),
                               {"status": "sent"})], -1, note="dependent")
        rec.act("assistant", [("check_entitlement", _args(serial=serial), entitlement)], 1,
                rng.choice(("", "I should have verified the entitlement before dispatching; checking it now.")),
                note="correction")
    else:
        rec.act("assistant", [("create_dispatch", dispatch_args, {"dispatch_id": dispatch_id})], 1)

    if error != "skipped_verification":
        rec.act("assistant", [("email_customer", odd(_args(to=f["contact_email"], subject=f"Dispatch {dispatch_id}",
                                                           body=f"We created dispatch {dispatch_id} for {serial}.")),
                               {"status": "sent"})], 1)
    rec.act("assistant", [("update_case", _args(case_id=cid, status="resolved", note=f"dispatch {dispatch_id}"),
                           {"case_id": cid, "status": "resolved"})], 1)
    rec.say("assistant", f"Your dispatch {dispatch_id} is on its way; the case is resolved.", 0)

    trajectory_id = f"T-{seed}-{index:04d}"
    trajectory = Trajectory(trajectory_id, cid, tuple(rec.messages))
    return trajectory, StepLabels(trajectory_id, rec.labels, rec.notes)


#: Shared user requests per trajectory: 60 trajectories share 33 requests (as the paper's 30 share 22).
REQUESTS_PER_TRAJECTORY = 0.55


def simulate_trajectories(cases: Iterable[SupportCase], n: int, seed: int
                          ) -> tuple[list[Trajectory], list[StepLabels]]:
    """``n`` trajectories over the first ``ceil(0.55 n)`` cases, round robin: most requests recur as clusters."""
    cases = list(cases)
    if not cases:
        raise ValueError("no support cases to simulate")
    cases = cases[:max(1, -(-n * 55 // 100))]
    pairs = [simulate_trajectory(cases[i % len(cases)], i, seed) for i in range(n)]
    return [p[0] for p in pairs], [p[1] for p in pairs]
