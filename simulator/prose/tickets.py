"""Ticket versions: the case record as its last editor left it, a header of fields and a line in their voice.

A ticket is a record, so its facts stay in fields (labels may vary, values
never do); what varies is the layout (a field list, a one-line summary or a
short paragraph), the field names, and the editor's note, which a level-1
engineer writes differently from level 2 or a manager. The draft's variant
seeds the grammar.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Mapping

from simulator.ledger import Draft
from simulator.prose.grammar import Dice, Grammar, Records, Rng, tidy
from simulator.prose.voice import GRAMMAR, Speaker, pick, speaker

#: Facts the header states; any other fact is listed under its label.
_HEADER = ("case_id", "account_name", "contact_name", "contact_email", "case_status", "priority", "opened_at",
           "contract_level", "asset_serial", "asset_model", "purchase_date", "warranty_end", "account_id",
           "procedure_id", "category", "steps_completed")
_HEADER_SET = frozenset(_HEADER)
#: Field names by fact, several per fact (people name ticket fields differently).
LABELS: dict[str, tuple[str, ...]] = {
    "case_status": ("Status", "State", "Status"),
    "priority": ("Priority", "Prio", "Priority"),
    "opened_at": ("Opened", "Created", "Opened on"),
    "contract_level": ("Contract", "Support level", "Contract level"),
    "procedure_id": ("Runbook", "Procedure", "Playbook"),
    "contact_name": ("Contact", "Requester", "Customer contact"),
}

TICKET = Grammar({
    "note_l1": ["[Update from|Note from|Last touch by|Last update by]", "[Worked by|Updated by|Handled by]"],
    "note_l2": ["[L2 note from|Level 2 update by|Escalation desk,]", "[Owner|Taken by]"],
    "note_lead": ["[Manager note from|Reviewed by|Lead review,]"],
    "aside_l1": ["", "", "[Customer was [helpful|patient|in a hurry]|Spoke to the contact by phone|Will check "
                 "back [tomorrow|this afternoon]|Waiting on parts|Nothing unusual so far]."],
    "aside_l2": ["", "", "[Checked the history first|Reviewed the diagnostics before acting|Kept the customer in "
                 "the loop|Flagged for the weekly review]."],
})


def _label(key: str, rng: Rng) -> str:
    """The field name of ``key``: one of its ``LABELS`` (a draw), else the fact's label (no draw)."""
    labels = LABELS.get(key)
    return labels[int(rng.random() * len(labels))] if labels is not None else _phrases().label(key)


def _phrases() -> ModuleType:
    """``simulator.prose.phrases``, imported on first use, not at the top: it reads the packs, which import
    this package."""
    found = _LOADED.get("phrases")
    if found is None:
        from simulator.prose import phrases

        found = _LOADED["phrases"] = phrases
    return found


_LOADED: dict[str, ModuleType] = {}


def _extras(f: Mapping[str, Any], names: Mapping[str, str], rng: Rng, phrases: ModuleType) -> list[str]:
    actor_facts, get = phrases.ACTOR_FACTS, names.get
    return [f"{_label(key, rng)}: {get(f[key], f[key]) if key in actor_facts else f[key]}"
            for key in phrases.fact_keys(f, _HEADER_SET)]


def _header(f: Mapping[str, Any], rng: Rng) -> str:
    status, prio, opened = (f"{_label(k, rng)}: {f[k]}" for k in ("case_status", "priority", "opened_at"))
    contract, runbook = f"{_label('contract_level', rng)}: {f['contract_level']}", \
        f"{_label('procedure_id', rng)}: {f['procedure_id']} ({f['category']})"
    contact = f"{f['contact_name']} <{f['contact_email']}>"
    layout = int(rng.random() * 4)
    if layout == 0:
        return (f"Case {f['case_id']} for {f['account_name']} ({f['account_id']}). {_label('contact_name', rng)}: "
                f"{contact}.\n{runbook}. {status}, {prio}, {opened}, {contract}.")
    if layout == 1:
        return (f"{f['case_id']} · {f['account_name']} / {f['account_id']} · {contact}\n"
                + " | ".join((status, prio, opened, contract, runbook)))
    if layout == 2:
        fields = [("Case", f["case_id"]), ("Account", f"{f['account_name']} ({f['account_id']})"),
                  (_label("contact_name", rng), contact)]
        return "\n".join(f"{k}: {v}" for k, v in fields) + "\n" + "\n".join((status, prio, opened, contract, runbook))
    return (f"Ticket {f['case_id']} — {f['category']} case opened {f['opened_at']} by {contact} of "
            f"{f['account_name']}, account {f['account_id']}.\nIt is {f['case_status']} at priority "
            f"{f['priority']}, handled under {f['procedure_id']} on a {f['contract_level']} contract.")


def _asset(f: Mapping[str, Any], rng: Rng) -> str:
    if not f.get("asset_serial"):
        return ""
    serial, coverage = GRAMMAR.words.get("serial", "serial"), GRAMMAR.words.get("coverage", "warranty")
    return pick(rng, (
        f"Asset: {f['asset_model']}, {serial} {f['asset_serial']}, purchased {f['purchase_date']}, {coverage} "
        f"until {f['warranty_end']}.",
        f"{f['asset_model']} ({serial} {f['asset_serial']}) bought {f['purchase_date']}; {coverage} until "
        f"{f['warranty_end']}.",
        f"Asset {f['asset_model']} / {serial} {f['asset_serial']} / purchased {f['purchase_date']} / {coverage} "
        f"until {f['warranty_end']}"))


def _steps(f: Mapping[str, Any], rng: Rng) -> str:
    done = f.get("steps_completed") or []
    if not done:
        return pick(rng, ("No runbook steps completed yet.", "Steps completed: none yet.", "Nothing done yet."))
    return pick(rng, (f"Steps completed: {', '.join(done)}.", f"Done so far: {', '.join(done)}.",
                      f"Completed: {' → '.join(done)}.", f"Steps completed ({len(done)}): {', '.join(done)}."))


def level(context: Mapping[str, Any]) -> str:
    """The writer's seniority when they wrote (``team`` and ``role`` in the context): lead, l2 or l1."""
    if "manager" in str(context.get("role", "")):
        return "lead"
    return "l2" if context.get("team") == "support_l2" else "l1"


def ticket(draft: Draft, cast: Mapping[str, Speaker], names: Mapping[str, str], records: Records) -> str:
    """One version of a ticket: header fields, the asset, other facts by label, steps done, the editor's note."""
    f, c, rng = draft.facts, draft.context, Dice(draft.variant)
    who = speaker(cast, draft.author)
    name = who.name or names.get(draft.author, str(draft.author))
    seniority = level(c)
    lines = [_header(f, rng), _asset(f, rng), *_extras(f, names, rng, _phrases()), _steps(f, rng)]
    note = str(c.get("note", "updated"))
    lead = TICKET.pool(f"note_{seniority}", rng)
    aside = TICKET.pool("aside_l2" if seniority != "l1" else "aside_l1", rng)
    lines.append(tidy(f"{lead} {name}: {note}.") + (" " + tidy(aside) if aside else ""))
    return "\n".join(line for line in lines if line)
