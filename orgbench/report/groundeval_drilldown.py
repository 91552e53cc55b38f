"""Drill-down records for the HTML report: one per scored (question, agent), with the calls behind the score.

A record is ``{"id", "title", "fields", "sections"}`` (the format of
``orgbench/report``): ``fields`` are short filterable strings (question,
track, kind, agent, mode, outcome, s_adj), ``sections`` the question with its
actor and as_of, the agent's answer, the score parts and the re-derived tool
calls with the gate outcome per gate. Long texts and lists are cut with
"… N more" so a study's file stays small enough to embed.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Mapping

from benchmark_builders.groundeval.contracts import Contract
from judges.groundeval.question_score import QuestionScore
from orgbench.core.clock import format_ts
from simulator.policy import GATES

MAX_CALLS = 4      # calls shown per record (notable ones first), then "… N more"
MAX_IDS = 2        # returned ids shown per call
MAX_TEXT = 900     # characters of an answer
MAX_ARGS = 60      # characters of a call's arguments
#: how the calls table names the runtime's tools (the trace keeps their full names)
TOOL_NAMES = {"search_artifacts": "search", "fetch_artifact": "fetch", "cite_artifact": "cite"}


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… {len(text) - limit} more characters"


def _ids(ids: Any) -> str:
    if not isinstance(ids, list):
        return str(ids)
    shown = ", ".join(str(i) for i in ids[:MAX_IDS])
    return shown + (f" … {len(ids) - MAX_IDS} more" if len(ids) > MAX_IDS else "")


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, list):
        return _ids(value) if value else "—"
    return str(value)


def _args(tool: Any, args: Any) -> str:
    """Arguments as a short phrase: the id for a fetch, the quoted query (subsystem, non-default limit) for a search."""
    if isinstance(args, dict) and tool in ("fetch_artifact", "cite_artifact") and set(args) == {"artifact_id"}:
        text = str(args["artifact_id"])
    elif isinstance(args, dict) and tool == "search_artifacts" and set(args) <= {"query", "subsystem", "limit"}:
        text = json.dumps(args.get("query"), ensure_ascii=False)
        if args.get("subsystem") is not None:
            text += f" in {args['subsystem']}"
        if args.get("limit", 10) != 10:
            text += f", limit {args.get('limit')}"
    else:
        text = json.dumps(args, ensure_ascii=False, sort_keys=True)
    return _cut(text, MAX_ARGS)


def _notable(call: Any) -> bool:
    """A call worth showing first: malformed, breaking a gate, or claiming what the runtime would not have done."""
    if not isinstance(call, dict):
        return True
    gates = call.get("gates")
    return bool(call.get("mismatch")) or (isinstance(gates, dict) and any(gates.values()))


def _shown(calls: list[Any]) -> list[tuple[int, Any]]:
    """At most MAX_CALLS (position, call) pairs in trace order: notable calls first, then the earliest others."""
    notable = [i for i, c in enumerate(calls) if _notable(c)][:MAX_CALLS]
    taken = set(notable)
    rest = [i for i in range(len(calls)) if i not in taken][:MAX_CALLS - len(notable)]
    return [(i + 1, calls[i]) for i in sorted(notable + rest)]


def _calls_section(calls: list[Any]) -> dict[str, Any]:
    if not calls:
        return {"heading": "Tool calls", "text": "No tool calls."}
    rows: list[list[str]] = []
    for position, call in _shown(calls):
        if not isinstance(call, dict):
            rows.append([str(position), "(malformed call)", "", "", "", "", "", ""])
            continue
        raw_gates = call.get("gates")
        gates = raw_gates if isinstance(raw_gates, dict) else {}
        outcome = str(call.get("outcome"))
        if call.get("mismatch"):
            outcome += f" (claimed {call.get('claimed', {}).get('outcome')})"
        tool = call.get("tool")
        rows.append([str(call.get("seq", position)), TOOL_NAMES.get(tool, str(tool)) if isinstance(tool, str) else str(tool),
                     _args(tool, call.get("args")),
                     _ids(call.get("returned_ids", [])), outcome]
                    + ["broken" if gates.get(g) else "ok" for g in GATES])
    if len(calls) > MAX_CALLS:
        rows.append(["…", f"{len(calls) - MAX_CALLS} more", "", "", "", "", "", ""])
        rows.sort(key=lambda r: (r[0] == "…", int(r[0]) if r[0].isdigit() else 0))
    return {"heading": "Tool calls (gates re-derived)",
            "columns": ["#", "tool", "arguments", "returned ids", "outcome", *GATES], "rows": rows}


#: shorter names for the scorer's longest part names (the rest are shown as they are, underscores as spaces)
PART_NAMES = {"cause_evidence_found": "cause found", "effect_evidence_found": "effect found",
              "evidence_coverage": "coverage", "search_space_coverage": "coverage", "uncovered_subsystems": "uncovered",
              "dead_end_recovery": "recovery", "evidence_overlap": "evidence", "blocked_overlap": "blocked"}


def _parts(parts: Mapping[str, Any]) -> str:
    """Score parts as one phrase; the per-gate violation counts grouped first."""
    violations = [f"{k[:-len('_violations')]} {v}" for k, v in parts.items() if k.endswith("_violations")]
    others = [f"{PART_NAMES.get(k, k.replace('_', ' '))} {_value(v)}" for k, v in parts.items()
              if not k.endswith("_violations")]
    return "; ".join(([f"violations: {', '.join(violations)}"] if violations else []) + [", ".join(others)]) or "—"


def record(row: QuestionScore, contract: Contract, answer: Any, seed: int | None = None) -> dict[str, Any]:
    """One drill-down record for a scored answer, its contract and the raw answer the agent gave."""
    qid, agent, mode = row.question_id, row.agent, row.mode
    outcome = "correct" if row.answer_correct else "wrong"
    s_adj = f"{row.s_adj:.2f}"
    where = f"actor {contract.actor} ({contract.role or 'no role'}) · as of {format_ts(contract.as_of)}"
    if seed is not None:
        where += f" · seed {seed}"
    answer_text = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False, sort_keys=True,
                                                                          separators=(",", ":"))
    diagnostics = row.diagnostics
    check = diagnostics.get("trace_check")
    calls_note = f"{row.n_calls} calls"
    if check:
        mismatched = check["mismatched_calls"]
        calls_note += f"; {mismatched} claims differ from the re-derived gates" if mismatched else "; claims match"
    if row.malformed:
        calls_note += f"; scored 0: {row.malformed}"
    parts = [["S_answer", _value(row.s_answer), _parts(diagnostics.get("answer", {}))],
             ["S_traj", _value(row.s_traj), _parts(diagnostics.get("trajectory", {}))],
             ["v", _value(row.v), calls_note],
             ["S_adj", _value(row.s_adj), ""]]
    calls = diagnostics.get("calls", [])
    return {
        "id": f"{qid}:{agent}:{mode}",
        "title": f"{qid} · {agent}",
        "fields": {"question": qid, "track": str(row.track), "kind": str(row.kind), "agent": agent, "mode": mode,
                   "outcome": outcome, "s_adj": s_adj, "scoring": str(row.scoring)},
        "sections": [
            {"heading": "Question", "text": f"{contract.question}\n\n{where}"},
            {"heading": "Answer", "text": _cut(answer_text, MAX_TEXT)},
            {"heading": "Score parts", "columns": ["score", "value", "parts"], "rows": parts},
            _calls_section(calls if isinstance(calls, list) else []),
        ],
    }


def records(rows: Iterable[QuestionScore], contracts: Mapping[str, Contract], answers: Mapping[tuple, Any],
            seeds: Mapping[str, int] | None = None) -> list[dict[str, Any]]:
    """Records for every scored answer whose question is in ``contracts``, sorted by id.

    ``answers`` maps (question_id, agent, mode) to the raw answer; ``seeds`` question id → world seed.
    """
    out = []
    for row in rows:
        contract = contracts.get(row.question_id)
        if contract is None:
            continue
        key = (row.question_id, row.agent, row.mode)
        out.append(record(row, contract, answers.get(key), (seeds or {}).get(row.question_id)))
    return sorted(out, key=lambda r: r["id"])
