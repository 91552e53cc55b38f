"""A hand-made domain in the public GroundEval format's shapes, with its truth worked out by hand.

Shapes: joins on ``artifact_ids.tickets`` with list values, a causal link
with no gap limit (a change two months before the outage still joins), a
silence pair with ``max_gap_hours`` and ``search_space`` id and query
templates (no ``search_space_subsystems``), ``match_field``, premise and
outcome templates, mixed time zones (``c1`` at 08:00+02:00 is *before* ``c2``
at 07:30Z), renamed ``events_file`` / ``artifacts_dir``, and artifact files
whose extra fields (``status``) are facts.
"""

from __future__ import annotations

import json
from pathlib import Path

CONFIG = """
actors: {ana: ops, ben: ops, cleo: finance}
roles:
  ops: {subsystems: [tickets, changes, wiki], broadcast_event_types: [outage_declared]}
  finance: {subsystems: [ledger]}
events_file: log.jsonl
artifacts_dir: records
output_dir: ./ignored
causal_links:
  - name: change_broke_service
    cause_event_type: change_applied
    effect_event_type: outage_declared
    premise_template: "change {cause.artifact_ids.changes} had not been applied"
    outcome_template: "outage {effect.id} would not have been declared"
    outcome_changed: true
    join: [{cause: artifact_ids.tickets, effect: artifact_ids.tickets}]
  - name: outage_reviewed
    cause_event_type: outage_declared
    effect_event_type: review_written
    match_field: facts.impact
    match_value: high
    join: [{cause: artifact_ids.tickets, effect: artifact_ids.tickets}]
silence_pairs:
  - trigger_event_type: outage_declared
    response_event_type: review_written
    max_gap_hours: 48
    search_space:
      - {subsystem: wiki, query_template: "review {artifact_ids.tickets}"}
      - {subsystem: tickets, id_template: "{artifact_ids.tickets}"}
    join: [{cause: artifact_ids.tickets, effect: artifact_ids.tickets}]
"""

EVENTS = [
    {"id": "c0", "type": "change_applied", "timestamp": "2026-02-01T00:00:00Z", "actors": ["ana"],
     "artifact_ids": {"changes": "CH-0", "tickets": "T-2"}, "facts": {"service": "web"}},
    {"id": "c1", "type": "change_applied", "timestamp": "2026-04-01T08:00:00+02:00", "actors": ["ana"],
     "artifact_ids": {"changes": "CH-1", "tickets": ["T-1", "T-9"]}, "facts": {"service": "api"}},
    {"id": "c2", "type": "change_applied", "timestamp": "2026-04-01T07:30:00Z", "actors": ["ben"],
     "artifact_ids": {"changes": "CH-2", "tickets": "T-5"}, "facts": {"service": "db"}},
    {"id": "o1", "type": "outage_declared", "timestamp": "2026-04-01T10:00:00-01:00", "actors": ["ana"],
     "artifact_ids": {"tickets": ["T-9", "T-2"]}, "facts": {"impact": "high"}},
    {"id": "r1", "type": "review_written", "timestamp": "2026-04-02T09:00:00Z", "actors": ["ben"],
     "artifact_ids": {"wiki": "W-1", "tickets": "T-2"}, "facts": {}},
    {"id": "l1", "type": "invoice_posted", "timestamp": "2026-04-03T00:00:00+09:00", "actors": ["cleo"],
     "artifact_ids": {"ledger": "L-1"}, "facts": {"amount": 1200}},
    {"id": "o2", "type": "outage_declared", "timestamp": "2026-04-05T12:00:00Z", "actors": ["ben"],
     "artifact_ids": {"tickets": "T-5"}, "facts": {"impact": "low"}},
    {"id": "r2", "type": "review_written", "timestamp": "2026-04-09T00:00:00Z", "actors": ["ben"],
     "artifact_ids": {"wiki": "W-2", "tickets": "T-5"}, "facts": {}},
]

ARTIFACTS = {
    "changes/CH-0.json": {"timestamp": "2026-02-01T00:00:00Z", "title": "CH-0 web config", "body": "Web config change."},
    "changes/CH-1.json": {"timestamp": "2026-04-01T08:00:00+02:00", "title": "CH-1 api pool", "body": "Api pool size."},
    "changes/CH-2.json": {"timestamp": "2026-04-01T07:30:00Z", "title": "CH-2 db index", "body": "Db index."},
    "tickets/T-1.json": {"timestamp": "2026-01-15T00:00:00Z", "title": "T-1", "body": "Ticket one.", "status": "open"},
    "tickets/T-2.json": {"timestamp": "2026-01-15T00:00:00Z", "title": "T-2", "body": "Ticket two.", "status": "open"},
    "tickets/T-5.json": {"timestamp": "2026-01-15T00:00:00Z", "title": "T-5", "body": "Ticket five.", "status": "open"},
    "tickets/T-9.json": {"timestamp": "2026-01-15T00:00:00Z", "title": "T-9", "body": "Ticket nine.", "status": "open"},
    "wiki/W-1.json": {"timestamp": "2026-04-02T09:00:00Z", "title": "Review of the api outage", "body": "Review T-2."},
    "wiki/W-2.json": {"timestamp": "2026-04-09T00:00:00Z", "title": "Review of the db outage", "body": "Review T-5."},
    "ledger/L-1.json": {"timestamp": "2026-04-02T15:00:00Z", "title": "L-1 invoice", "body": "Invoice."},
}

#: Counterfactual pairs the rules make, worked out by hand (decoy: the nearest unjoined cause before the effect).
COUNTERFACTUAL_TRUTH = {
    ("c0", "o1"): "causal",      # T-2 shared, two months apart: no gap limit
    ("c1", "o1"): "causal",      # T-9 shared (list values)
    ("c2", "o1"): "decoy",       # 07:30Z is after c1 (06:00Z) — the nearest cause, and no ticket shared
    ("c2", "o2"): "causal",      # T-5
    ("c1", "o2"): "decoy",       # nearest unjoined before o2 (c2 joins)
    ("o1", "r1"): "causal",      # outage_reviewed: impact high, T-2
    ("o1", "r2"): "decoy",       # o2 is filtered out by match_value; o1 shares no ticket with r2
}
#: Silence: o1 got review r1 within 48 h; o2's review r2 came after its window.
SILENCE_TRUTH = {"o1": True, "o2": False}
EVENT_TIMES = {"c0": "2026-02-01T00:00:00Z", "c1": "2026-04-01T06:00:00Z", "c2": "2026-04-01T07:30:00Z",
               "o1": "2026-04-01T11:00:00Z", "l1": "2026-04-02T15:00:00Z", "o2": "2026-04-05T12:00:00Z"}


def could_know_by_hand(actor: str, event_id: str, as_of_utc: str) -> bool:
    """Ops (ana, ben) read tickets and changes; cleo reads only the ledger; nothing is known before its event."""
    readers = {"cleo"} if event_id == "l1" else {"ana", "ben"}
    return actor in readers and as_of_utc >= EVENT_TIMES[event_id]     # both are ...Z texts: same format


def write_shapes_domain(root: Path, config: str = CONFIG) -> Path:
    """Write the domain under ``root`` and return it."""
    for rel, obj in ARTIFACTS.items():
        path = root / "records" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(obj), encoding="utf-8")
    (root / "log.jsonl").write_text("".join(json.dumps(e) + "\n" for e in EVENTS), encoding="utf-8")
    (root / "config.yaml").write_text(config, encoding="utf-8")
    return root
