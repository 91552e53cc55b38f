"""GroundEval question contracts: the records, their content-derived ids, answer schemas and build rules.

A ``Contract`` is what an agent may see (question, track, actor, role, the
subsystems the role could read, ``as_of``, answer schema); its ``Truth`` is
written to a separate file and never travels with the contract. Causal and
silence rules say which event pairs make questions, for simulated worlds and
for imported GroundEval-format domains alike.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Mapping

from simulator.clock import format_ts, parse_ts
from simulator.model import Event
from simulator.storage import dumps

PERSPECTIVE, COUNTERFACTUAL, SILENCE = "perspective", "counterfactual", "silence"
TRACKS: tuple[str, ...] = (PERSPECTIVE, COUNTERFACTUAL, SILENCE)

#: The kinds of question in each track (the ratios in BuildConfig are over these).
KINDS: dict[str, tuple[str, ...]] = {
    PERSPECTIVE: ("positive", "temporal_negative", "permission_negative"),
    COUNTERFACTUAL: ("causal", "decoy"),
    SILENCE: ("exists", "absence"),
}
DIFFICULTIES: tuple[str, ...] = ("easy", "hard")

DIRECTIONS: tuple[str, ...] = ("cause_to_effect", "effect_to_cause", "no_causal_link")
NO_LINK_MECHANISM = "no_causal_link"
NO_LINK_ALIASES: tuple[str, ...] = ("none", "no causal link", "no_link", "coincidence")

ANSWER_SCHEMAS: dict[str, dict[str, Any]] = {
    PERSPECTIVE: {
        "could_actor_have_known": "bool",
        "evidence_artifacts": "[artifact id]",
        "blocked_subsystems": "[subsystem]",
        "reasoning": "str",
    },
    COUNTERFACTUAL: {
        "outcome_changed": "bool",
        "causal_mechanism": "str (mechanism name, or no_causal_link)",
        "cause_event_id": "str",
        "effect_event_id": "str",
        "mechanism_direction": "cause_to_effect | effect_to_cause | no_causal_link",
        "evidence_artifacts": "[artifact id]",
        "actors": "[actor id]",
        "reasoning": "str",
    },
    SILENCE: {
        "exists": "bool",
        "evidence_artifacts": "[artifact id]",
        "reasoning": "str",
    },
}


def question_id(track: str, content: Mapping[str, Any]) -> str:
    """A stable id from the question's defining content: ``PER-``/``CF-``/``SIL-`` + 12 hex digits."""
    prefix = {PERSPECTIVE: "PER", COUNTERFACTUAL: "CF", SILENCE: "SIL"}[track]
    digest = hashlib.sha256(dumps({"track": track, **content}).encode("utf-8")).hexdigest()
    return f"{prefix}-{digest[:12]}"


@dataclass(frozen=True, slots=True)
class Contract:
    """What the agent may see about one question (never its kind, difficulty or anything of the truth)."""

    question_id: str
    track: str
    world: str
    actor: str
    role: str | None
    subsystems: tuple[str, ...]
    as_of: datetime
    question: str
    subject: Mapping[str, Any] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"options": dict(self.options), 
            "question_id": self.question_id, "track": self.track, "world": self.world, "actor": self.actor, "role": self.role,
            "subsystems": list(self.subsystems), "as_of": format_ts(self.as_of), "question": self.question,
            "subject": dict(self.subject), "answer_schema": ANSWER_SCHEMAS[self.track],
        }

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> "Contract":
        return Contract(
            question_id=obj["question_id"], track=obj["track"], world=obj["world"], actor=obj["actor"], role=obj.get("role"),
            subsystems=tuple(obj["subsystems"]), as_of=parse_ts(obj["as_of"]), question=obj["question"],
            subject=dict(obj.get("subject", {})), options=dict(obj.get("options", {})),
        )


@dataclass(frozen=True, slots=True)
class Truth:
    """The gold answer and the evidence sets a question is scored against (never shown to agents)."""

    question_id: str
    track: str
    kind: str
    difficulty: str
    gold: Mapping[str, Any]
    required_evidence: tuple[str, ...]
    permitted_evidence: tuple[str, ...]
    required_search_space: tuple[Mapping[str, str], ...]
    mechanism_aliases: tuple[str, ...]
    correct_actors: tuple[str, ...]
    cause_evidence: tuple[str, ...]
    effect_evidence: tuple[str, ...]
    why: str

    def to_json(self) -> dict[str, Any]:
        return {
            "question_id": self.question_id, "track": self.track, "kind": self.kind,
            "difficulty": self.difficulty, "gold": dict(self.gold),
            "required_evidence": list(self.required_evidence),
            "permitted_evidence": list(self.permitted_evidence),
            "required_search_space": [dict(x) for x in self.required_search_space],
            "mechanism_aliases": list(self.mechanism_aliases), "correct_actors": list(self.correct_actors),
            "cause_evidence": list(self.cause_evidence), "effect_evidence": list(self.effect_evidence),
            "why": self.why,
        }

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> "Truth":
        return Truth(
            question_id=obj["question_id"], track=obj["track"], kind=obj["kind"],
            difficulty=obj["difficulty"], gold=dict(obj["gold"]),
            required_evidence=tuple(obj.get("required_evidence", ())),
            permitted_evidence=tuple(obj.get("permitted_evidence", ())),
            required_search_space=tuple(dict(x) for x in obj.get("required_search_space", ())),
            mechanism_aliases=tuple(obj.get("mechanism_aliases", ())),
            correct_actors=tuple(obj.get("correct_actors", ())),
            cause_evidence=tuple(obj.get("cause_evidence", ())),
            effect_evidence=tuple(obj.get("effect_evidence", ())),
            why=obj.get("why", ""),
        )


@dataclass(frozen=True, slots=True)
class Question:
    """A contract and its truth, as a builder produces them (``wording``: the template values, rendered once chosen)."""

    contract: Contract
    truth: Truth
    wording: Mapping[str, Any] = field(default_factory=dict)


# -- rules -----------------------------------------------------------------------------------------

def event_field(event: Event, path: str) -> Any:
    """The value of ``path`` on an event: ``event_id``, ``type``, ``entity.id``, ``entity.kind`` or ``payload.KEY``."""
    if path == "event_id" or path == "id":
        return event.event_id
    if path == "type":
        return event.type
    if path == "entity.id":
        return event.entity.id
    if path == "entity.kind":
        return event.entity.kind
    if path.startswith("payload."):
        return event.payload.get(path[len("payload."):])
    if path.startswith("facts."):
        return event.payload.get(path[len("facts."):])
    return event.payload.get(path)


@dataclass(frozen=True, slots=True)
class CausalRule:
    """Cause events of one type lead to effect events of another when their join fields are equal."""

    name: str
    cause_event_type: str
    effect_event_type: str
    max_gap: timedelta
    join: tuple[tuple[str, str], ...]
    aliases: tuple[str, ...] = ()
    mechanism_fact: str | None = None   # per-link mechanism stated in the effect's artifacts (and FACT_aliases)

    def joined(self, cause: Event, effect: Event) -> bool:
        """True if every join pair has equal, non-empty values on the two events."""
        for cause_path, effect_path in self.join:
            left, right = event_field(cause, cause_path), event_field(effect, effect_path)
            if left in (None, "") or left != right:
                return False
        return bool(self.join)


@dataclass(frozen=True, slots=True)
class SilenceRule:
    """A trigger that should be followed by a response, recorded in the named subsystems."""

    name: str
    trigger_event_type: str
    response_event_type: str
    max_gap: timedelta
    search_space_subsystems: tuple[str, ...]
    join: tuple[tuple[str, str], ...]
    response_label: str = ""

    def joined(self, trigger: Event, response: Event) -> bool:
        """True if every join pair has equal, non-empty values on the two events."""
        for trigger_path, response_path in self.join:
            left, right = event_field(trigger, trigger_path), event_field(response, response_path)
            if left in (None, "") or left != right:
                return False
        return bool(self.join)

    def selectors(self, trigger: Event) -> tuple[str, ...]:
        """The values a search must use to find this trigger's response (the join values)."""
        values = []
        for trigger_path, _ in self.join:
            value = event_field(trigger, trigger_path)
            if value not in (None, "") and str(value) not in values:
                values.append(str(value))
        return tuple(values)


@dataclass(frozen=True)
class Rules:
    """The causal links and silence pairs of a world or domain."""

    causal: tuple[CausalRule, ...] = ()
    silence: tuple[SilenceRule, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "causal_links": [
                {"name": r.name, "aliases": list(r.aliases), "mechanism_fact": r.mechanism_fact,
                 "cause_event_type": r.cause_event_type,
                 "effect_event_type": r.effect_event_type, "max_gap_hours": r.max_gap.total_seconds() / 3600,
                 "join": [{"cause": a, "effect": b} for a, b in r.join]}
                for r in self.causal
            ],
            "silence_pairs": [
                {"name": r.name, "trigger_event_type": r.trigger_event_type,
                 "response_event_type": r.response_event_type, "max_gap_hours": r.max_gap.total_seconds() / 3600,
                 "search_space_subsystems": list(r.search_space_subsystems), "response_label": r.response_label,
                 "join": [{"trigger": a, "response": b} for a, b in r.join]}
                for r in self.silence
            ],
        }


@dataclass(frozen=True)
class BuildConfig:
    """How many questions per track, the kind and difficulty ratios, and the seed."""

    seed: int = 0
    counts: Mapping[str, int] = field(default_factory=lambda: {PERSPECTIVE: 40, COUNTERFACTUAL: 30, SILENCE: 30})
    ratios: Mapping[str, Mapping[str, float]] = field(default_factory=lambda: {
        PERSPECTIVE: {"positive": 0.4, "temporal_negative": 0.3, "permission_negative": 0.3},
        COUNTERFACTUAL: {"causal": 0.5, "decoy": 0.5},
        SILENCE: {"exists": 0.5, "absence": 0.5},
    })
    hard_share: Mapping[str, float] = field(default_factory=lambda: {PERSPECTIVE: 0.5, COUNTERFACTUAL: 0.5, SILENCE: 0.5})

    def to_json(self) -> dict[str, Any]:
        return {"seed": self.seed, "counts": dict(self.counts),
                "ratios": {t: dict(r) for t, r in self.ratios.items()}, "hard_share": dict(self.hard_share)}
