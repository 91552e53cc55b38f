"""Re-derive every call's gate outcome from the suite's own corpus and policy: a trace is a claim, not a verdict.

An external agent writes its own trace, so the scorer takes nothing in it on
trust. For each call it works out what the gated runtime would have done for
the contract's actor at ``as_of`` (the contract, not the trace, says who and
when):

- ``fetch_artifact`` / ``cite_artifact``: the requested id is resolved exactly
  as the runtime resolves it (``ID@N``, or ``ID`` → its version current at
  ``as_of``); the gates broken are ``AccessPolicy.violations``; the outcome is
  ok, withheld, not_found or invalid, and the returned ids are the runtime's
  (that one version, or none).
- ``search_artifacts``: arguments the runtime would reject (``call_args``) give ``invalid``; a
  subsystem outside the actor's role breaks the subsystem gate and returns
  nothing; every claimed returned id is checked — unknown ids, ids the gates
  withhold (the gates they break count as broken by the call), versions not
  current at ``as_of``, ids outside the subsystem filter, ids the search
  itself does not return (the query is run again through the gated runtime,
  once per distinct query, subsystem and limit), more ids than the limit.
  The returned ids kept are the claimed ones the runtime did return; the
  outcome is ok if any is left, else empty.
- any other tool is not the runtime's: outcome invalid.

Each re-derived call keeps what the trace claimed (``claimed``: outcome,
gates, and the returned ids when they differ) and lists under ``mismatch`` how
the claim differs. A call whose claim leaves a field out is not counted as a
mismatch for that field; a call that claims something the runtime would not
have done is. Unknown ids are recorded, never raised. A trace that is not a
list, or holds a call of the wrong shape (``call_shape.call_problem``: not an
object, ``tool`` not a string, ``args`` not an object, odd ``seq``,
``returned_ids``, ``outcome`` or ``gates``), is not re-derived: every problem is
listed and the scorer scores the question 0 as malformed.

Re-derivation is the cost of scoring an external trace: what a requested id
names is worked out once per corpus (``requested_ids``); a version the actor's
``visible_mask`` shows at ``as_of`` breaks no gate and is current, and only the
others have their gates decided (once per version); search re-runs once
per distinct (query, subsystem, limit), on the verifier for the contract's
actor and ``as_of``, which ``score_submissions`` shares across every contract
with that actor and moment, and every agent and mode. The verifier also keeps
what each distinct claim re-derived to (tool, arguments, returned ids, outcome
and gates, as text: ``1``, ``1.0`` and ``true`` stay apart), so a call
that several agents, modes or traces make alike is worked out once; a whole
trace sent again (the same context built for every agent) is looked up whole.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from judges.groundeval.call_args import DEFAULT_LIMIT, capped, fetch_problem, search_problem
from judges.groundeval.requested_ids import RequestedIds
from judges.groundeval.runtime import Corpus, GatedRuntime
from judges.groundeval.call_shape import ShapedCalls, trace_problems
from simulator.policy import GATES, SUBSYSTEM

FETCHES = ("fetch_artifact", "cite_artifact")
SEARCH = "search_artifacts"
_CLEAN: tuple[str, ...] = ()
#: Argument values whose ``repr`` tells every distinct value apart (the shape check fixed the other fields' types).
_PLAIN = frozenset((str, int, float, bool, type(None)))


@dataclass(frozen=True, slots=True)
class TraceCheck:
    """What re-deriving one trace found: mismatched calls, unknown ids, withheld ids claimed, malformed calls."""

    calls: int
    mismatched: int
    unknown_ids: tuple[str, ...]
    withheld_returned: tuple[str, ...]
    malformed: tuple[dict[str, Any], ...] = ()

    @property
    def tampered(self) -> bool:
        """True when any call claims something the gated runtime would not have done."""
        return self.mismatched > 0

    def to_json(self) -> dict[str, Any]:
        return {"calls": self.calls, "mismatched_calls": self.mismatched, "unknown_ids": list(self.unknown_ids),
                "withheld_returned_ids": list(self.withheld_returned), "malformed_calls": len(self.malformed),
                "tampered": self.tampered}


def _claimed_gates(gates: dict[str, bool]) -> tuple[str, ...]:
    """The gates a call claims it broke, in precedence order."""
    return tuple(g for g in GATES if gates.get(g))


_GATES_JSON: dict[tuple[str, ...], dict[str, bool]] = {}


def _gates_json(broken: tuple[str, ...]) -> dict[str, bool]:
    """The gates object of a call (a fresh dict each time: rows are written, and may be edited, one by one)."""
    template = _GATES_JSON.get(broken)
    if template is None:
        template = _GATES_JSON[broken] = {g: g in broken for g in GATES}
    return dict(template)


@dataclass(frozen=True, slots=True)
class _Derived:
    """What one claimed call re-derives to, apart from its ``seq`` and latency (shared by every call claiming alike)."""

    outcome: str
    gates: tuple[str, ...]
    returned: tuple[str, ...]
    mismatch: tuple[str, ...]
    unknown: tuple[str, ...]
    withheld: tuple[str, ...]
    same_ids: bool


class TraceVerifier:
    """Re-derives calls for one contract's actor at one moment against a suite's corpus."""

    def __init__(self, corpus: Corpus, actor_id: str, as_of: datetime, *, ids: RequestedIds | None = None) -> None:
        self.corpus = corpus
        self.actor_id = actor_id
        self.as_of = as_of
        self.ids = ids if ids is not None else RequestedIds(corpus)
        self.readable = frozenset(corpus.policy.subsystems_at(actor_id, as_of))
        self._visible: bytes | None = None
        self._gates: dict[int, tuple[str, ...]] = {}
        self._runtime: GatedRuntime | None = None
        self._searches: dict[tuple[str, str | None, int], frozenset[int]] = {}
        self._derived: dict[str, _Derived] = {}
        self._traces: dict[str, tuple[tuple[_Derived, ...], TraceCheck]] = {}

    def _search_results(self, query: str, subsystem: str | None, limit: int) -> frozenset[int]:
        """The versions the gated runtime returns for this search (run once per distinct query, subsystem and limit)."""
        key = (query, subsystem, capped(limit))
        found = self._searches.get(key)
        if found is None:
            if self._runtime is None:
                self._runtime = GatedRuntime(self.corpus, self.actor_id, self.as_of, record_latency=False)
            found = self._searches[key] = frozenset(self._runtime.ranked_versions(*key))
        return found

    def _shown(self) -> bytes:
        """For each version, 1 if it is current at as_of and no gate withholds it from the actor (``visible_mask``)."""
        if self._visible is None:
            self._visible = self.corpus.visible_mask(self.actor_id, self.as_of).tobytes()
        return self._visible

    def _subsystem_code(self, subsystem: Any) -> int | None:
        """The corpus's code of a search's subsystem filter: None if there is none, -1 if no version has it."""
        if subsystem is None:
            return None
        return next((code for code, name in enumerate(self.corpus.subsystems) if name == subsystem), -1)

    def _broken(self, index: int) -> tuple[str, ...]:
        """The gates that withhold version ``index`` (none when the mask shows it: no gate and current)."""
        if self._shown()[index]:
            return _CLEAN
        gates = self._gates.get(index)
        if gates is None:
            gates = self._gates[index] = self.corpus.policy.violations(self.actor_id, self.corpus.docs[index], self.as_of)
        return gates

    def _fetch(self, args: dict[str, Any], unknown: list[str]) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
        if fetch_problem(args) is not None:
            return "invalid", _CLEAN, ()
        requested = args["artifact_id"]
        index = self.ids.resolve(requested, self.as_of)
        if index is None:
            unknown.append(requested)
            return "not_found", _CLEAN, ()
        broken = self._broken(index)
        if broken:
            return "withheld", broken, ()
        return "ok", _CLEAN, (self.ids.ref(index),)

    def _search(self, args: dict[str, Any], claimed_ids: list[str], unknown: list[str], withheld: list[str],
                mismatch: list[str]) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
        query, subsystem, limit = args.get("query"), args.get("subsystem"), args.get("limit", DEFAULT_LIMIT)
        valid = search_problem(args) is None
        broken: set[str] = set()
        answers_nothing = not valid or (subsystem is not None and subsystem not in self.readable)
        if valid and answers_nothing:
            broken.add(SUBSYSTEM)
        kept: list[str] = []
        results: frozenset[int] | None = None
        resolve, as_of, shown = self.ids.resolve, self.as_of, self._shown()
        code = self._subsystem_code(subsystem)
        codes = self.corpus.subsystem_code
        for ref in claimed_ids:
            index = resolve(ref, as_of)
            if index is None:
                unknown.append(ref)
                continue
            if not shown[index]:      # a gate withholds it, or it is not current (else the mask would show it)
                gates = self._broken(index)
                if gates:
                    broken.update(gates)
                    withheld.append(ref)
                    mismatch.append(f"returned withheld {ref}")
                    continue
                if not self.corpus.current_at(index, as_of):
                    mismatch.append(f"returned {ref}, not current at as_of")
                    continue
            if code is not None and codes[index] != code:
                mismatch.append(f"returned {ref}, outside subsystem {subsystem}")
            elif answers_nothing:
                mismatch.append(f"returned {ref} from a search the runtime answers with nothing")
            else:
                if results is None:
                    results = self._search_results(str(query), subsystem, limit)     # valid: a string
                if index not in results:
                    mismatch.append(f"returned {ref}, which this search does not return")
                else:
                    kept.append(self.ids.ref(index))
        if valid and len(claimed_ids) > capped(limit):
            mismatch.append("more results than the limit")
        order = tuple(g for g in GATES if g in broken) if broken else _CLEAN
        if not valid:
            return "invalid", order, ()
        return ("ok" if kept else "empty"), order, tuple(kept)

    def _derived_once(self, raw: dict[str, Any]) -> _Derived:
        """What a well-formed claimed call re-derives to, worked out once per distinct claim.

        The claim's ``seq`` and ``latency_ms`` take no part (``call`` copies them from each call as it comes). The
        key is the rest as text: its ``repr`` when every argument is a string, number, boolean or null, else JSON
        (a tuple's JSON starts ``[``, its repr ``(``: the two never meet); the shape check before (exact types) keeps
        apart what the text would not.
        """
        get = raw.get
        args: dict[str, Any] = raw["args"]
        claim = (get("tool"), args, get("returned_ids"), get("outcome"), get("gates"))
        if all(value.__class__ in _PLAIN for value in args.values()):
            key = repr(claim)          # exact for these types (``1``, ``1.0``, ``True`` apart); cheaper than JSON
        else:
            try:
                key = json.dumps(claim)
            except (TypeError, ValueError):       # arguments that are not JSON (a caller's own objects): uncached
                return self._derive(raw)
        found = self._derived.get(key)
        if found is None:
            found = self._derived[key] = self._derive(raw)
        return found

    def _derive(self, raw: dict[str, Any]) -> _Derived:
        """One well-formed claimed call re-derived (``call`` adds what is particular to each call)."""
        unknown: list[str] = []
        withheld: list[str] = []
        mismatch: list[str] = []
        tool = raw["tool"]
        args = raw["args"]
        claimed_raw = raw.get("returned_ids")
        claimed_ids: list[str] = claimed_raw if claimed_raw is not None else []
        if tool in FETCHES:
            outcome, gates, returned = self._fetch(args, unknown)
            for ref in claimed_ids:   # ids a fetch claims beyond what it would have returned
                if ref in returned:
                    continue
                index = self.ids.resolve(ref, self.as_of)
                if index is None:
                    unknown.append(ref)
                elif self._broken(index):
                    withheld.append(ref)
        elif tool == SEARCH:
            outcome, gates, returned = self._search(args, claimed_ids, unknown, withheld, mismatch)
        else:
            outcome, gates, returned = "invalid", _CLEAN, ()
            mismatch.append(f"not a runtime tool: {tool!r}")
        claimed_outcome = raw.get("outcome")
        claimed_gates_raw = raw.get("gates")
        if claimed_outcome is not None and claimed_outcome != outcome:
            mismatch.append(f"outcome {claimed_outcome!r}, re-derived {outcome!r}")
        if claimed_gates_raw is not None:
            claimed_gates = _claimed_gates(claimed_gates_raw)
            if claimed_gates != gates:
                mismatch.append(f"gates {list(claimed_gates)!r}, re-derived {list(gates)}")
        same_ids = claimed_raw is None or tuple(claimed_ids) == returned
        if tool in FETCHES and not same_ids:
            mismatch.append("returned ids differ")
        return _Derived(outcome, gates, returned, tuple(mismatch), tuple(dict.fromkeys(unknown)),
                        tuple(dict.fromkeys(withheld)), same_ids)

    def trace(self, calls: list[dict[str, Any]]) -> tuple[ShapedCalls, TraceCheck]:
        """A well-formed trace (``trace_problems`` finds nothing) re-derived: ``rederive``'s answer.

        A trace sent again (another agent or mode built the same context, say) is looked up whole, keyed like a
        claim (its ``repr`` when every argument is a string, number, boolean or null), and comes back as fresh
        objects from the calls as re-derived the first time.
        """
        plain = all(value.__class__ in _PLAIN for raw in calls for value in raw["args"].values())
        key = repr(calls) if plain else None
        seen = self._traces.get(key) if key is not None else None
        if seen is not None:
            emit = self._emit
            return ShapedCalls(emit(position, raw, derived)[0]
                               for position, (raw, derived) in enumerate(zip(calls, seen[0]), start=1)), seen[1]
        out = ShapedCalls()
        derived_calls = []
        mismatched = 0
        unknown: list[str] = []
        withheld: list[str] = []
        for position, raw in enumerate(calls, start=1):
            derived = self._derived_once(raw)
            derived_calls.append(derived)
            call, mismatch, call_unknown, call_withheld = self._emit(position, raw, derived)
            out.append(call)
            if mismatch:
                mismatched += 1
            if call_unknown:
                unknown.extend(call_unknown)
            if call_withheld:
                withheld.extend(call_withheld)
        check = TraceCheck(len(calls), mismatched, tuple(dict.fromkeys(unknown)), tuple(dict.fromkeys(withheld)))
        if key is not None:
            self._traces[key] = (tuple(derived_calls), check)
        return out, check

    def call(self, position: int, raw: dict[str, Any]) -> tuple[dict[str, Any], list[str], list[str], list[str]]:
        """One well-formed call re-derived (``call_shape.call_problem(raw, claim=True)`` is None), with its claim.

        Returns the call and what differed: its mismatches, unknown ids and withheld ids claimed as returned
        (fresh objects every time: rows are written, and may be edited, one by one).
        """
        return self._emit(position, raw, self._derived_once(raw))

    @staticmethod
    def _emit(position: int, raw: dict[str, Any], derived: _Derived) -> tuple[dict[str, Any], list[str], list[str], list[str]]:
        """``call``'s answer for a claimed call that re-derives to ``derived``."""
        claimed_raw = raw.get("returned_ids")
        claim: dict[str, Any] = {"outcome": raw.get("outcome"), "gates": raw.get("gates")}
        if not derived.same_ids:
            claim["returned_ids"] = claimed_raw
        seq = raw.get("seq")
        mismatch = list(derived.mismatch)
        out = {"seq": seq if seq is not None else position, "tool": raw["tool"], "args": raw["args"],
               "returned_ids": list(derived.returned), "outcome": derived.outcome, "gates": _gates_json(derived.gates),
               "latency_ms": raw.get("latency_ms"), "claimed": claim, "mismatch": mismatch}
        unknown = list(derived.unknown)
        withheld = list(derived.withheld)
        if unknown:
            out["unknown_ids"] = unknown
        if withheld:
            out["withheld_returned_ids"] = withheld
        return out, mismatch, unknown, withheld


def rederive(corpus: Corpus, actor_id: str, as_of: datetime, calls: Any, *,
             verifier: TraceVerifier | None = None) -> tuple[Any, TraceCheck]:
    """The calls with gate outcomes re-derived for the actor at as_of, and what differed.

    A malformed trace (not a list, or any call of the wrong shape) comes back unchanged, its problems listed in
    ``TraceCheck.malformed`` (the scorer scores it 0). ``verifier`` (for this corpus, actor and as_of) may be passed
    in to reuse its gate decisions, search re-runs and whole traces across traces.
    """
    problems = trace_problems(calls, claim=True)
    if problems:
        return calls, TraceCheck(len(calls) if isinstance(calls, list) else 0, 0, (), (), tuple(problems))
    if verifier is None:
        verifier = TraceVerifier(corpus, actor_id, as_of)
    return verifier.trace(calls)
