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

from orgbench.core.clock import format_ts, parse_ts
from simulator.model import Event
from benchmark_builders.groundeval.joins import field_values, joined, placeholders, render
from benchmark_builders.groundeval.tracks import (
    BUILTIN_TRACKS, COUNTERFACTUAL_TRACK, PERSPECTIVE_TRACK, SILENCE_TRACK, all_tracks, track,
)
from orgbench.core.storage import dumps

PERSPECTIVE, COUNTERFACTUAL, SILENCE = PERSPECTIVE_TRACK.name, COUNTERFACTUAL_TRACK.name, SILENCE_TRACK.name
#: orgbench's own tracks (every registered one, plugins' included: ``tracks.all_tracks()``).
TRACKS: tuple[str, ...] = tuple(t.name for t in BUILTIN_TRACKS)
#: The kinds of question in each of orgbench's tracks (the ratios in BuildConfig are over these).
KINDS: dict[str, tuple[str, ...]] = {t.name: t.kinds for t in BUILTIN_TRACKS}
#: The hard kinds (benchmark_builders/groundeval/hard_kinds.py): built from simulated worlds when their ratio is > 0.
HARD_KINDS: dict[str, tuple[str, ...]] = {t.name: t.hard_kinds for t in BUILTIN_TRACKS if t.hard_kinds}
DIFFICULTIES: tuple[str, ...] = ("easy", "hard")

DIRECTIONS: tuple[str, ...] = ("cause_to_effect", "effect_to_cause", "no_causal_link")
NO_LINK_MECHANISM = "no_causal_link"
NO_LINK_ALIASES: tuple[str, ...] = ("none", "no causal link", "no_link", "coincidence")

ANSWER_SCHEMAS: dict[str, Mapping[str, str]] = {t.name: t.answer_schema for t in BUILTIN_TRACKS}


def question_id(track_name: str, content: Mapping[str, Any]) -> str:
    """A stable id from the question's defining content: the track's prefix (``PER``, ``CF``, …) + 12 hex digits."""
    prefix = track(track_name).prefix
    digest = hashlib.sha256(dumps({"track": track_name, **content}).encode("utf-8")).hexdigest()
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
            "subject": dict(self.subject), "answer_schema": dict(track(self.track).answer_schema),
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
    event_type: str = ""      # the type of the event the question is about (for per-type caps)
    rule: str = ""            # the rule that made it (Counterfactual / Silence)
    rank: int = 0             # within a kind's hard pool, lower ranks are taken first
    pair: str = ""            # a pair (opposite verdicts, one effect): taken one after the other, worded alike


# -- rules -----------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class SearchItem:
    """One place a silence rule's response would be recorded: a subsystem and an id or query template."""

    subsystem: str
    template: str
    mode: str          # "id" | "query"


@dataclass(frozen=True, slots=True)
class CausalRule:
    """Cause events of one type lead to effect events of another when their join paths share a value."""

    name: str
    cause_event_type: str
    effect_event_type: str
    max_gap: timedelta | None            # None: no limit
    join: tuple[tuple[str, str], ...]
    aliases: tuple[str, ...] = ()
    mechanism_fact: str | None = None   # per-link mechanism stated in the effect's artifacts (and FACT_aliases)
    premise_template: str | None = None
    outcome_template: str | None = None
    outcome_changed: bool = True
    match: tuple[str, str] | None = None  # (path, value) a cause event must have
    source: str = ""                      # where the rule was declared (file: causal_links[i])

    def joined(self, cause: Event, effect: Event, subsystem_of: Mapping[str, str] | None = None) -> bool:
        """True if every join pair shares a value on the two events (no join: any pair of the types)."""
        return joined(self.join, cause, effect, subsystem_of or {})

    def matches(self, cause: Event, subsystem_of: Mapping[str, str] | None = None) -> bool:
        """True if the cause passes the rule's ``match_field`` / ``match_value`` filter (or there is none)."""
        return self.match is None or self.match[1] in field_values(cause, self.match[0], subsystem_of or {})


@dataclass(frozen=True, slots=True)
class SilenceRule:
    """A trigger that should be followed by a response, recorded in the named subsystems."""

    name: str
    trigger_event_type: str
    response_event_type: str
    max_gap: timedelta | None
    search_space_subsystems: tuple[str, ...]
    join: tuple[tuple[str, str], ...]
    response_label: str = ""
    search_space: tuple[SearchItem, ...] = ()
    match: tuple[str, str] | None = None
    source: str = ""

    def joined(self, trigger: Event, response: Event, subsystem_of: Mapping[str, str] | None = None) -> bool:
        """True if every join pair shares a value on the two events (no join: any response of the type)."""
        return joined(self.join, trigger, response, subsystem_of or {})

    def matches(self, trigger: Event, subsystem_of: Mapping[str, str] | None = None) -> bool:
        """True if the trigger passes the rule's match filter (or there is none)."""
        return self.match is None or self.match[1] in field_values(trigger, self.match[0], subsystem_of or {})

    def search_items(self, trigger: Event, subsystem_of: Mapping[str, str] | None = None) -> list[dict[str, str]]:
        """Where the response would be recorded: ``{subsystem, selector, mode, value}`` per place, nothing padded.

        ``search_space`` items are filled from the trigger (an id template whose one placeholder holds a list
        gives one item per id); the selector is the first value filled in (the rendered text when the
        template has none). Subsystems of ``search_space_subsystems`` no item covers get the trigger's join
        values (else its artifact ids) as selector.
        """
        lookup = subsystem_of or {}

        def resolve(path: str) -> tuple[str, ...]:
            return field_values(trigger, path, lookup)

        items: list[dict[str, str]] = []
        for item in self.search_space:
            names = placeholders(item.template)
            if item.mode == "id" and names and item.template == "{" + names[0] + "}":
                items += [{"subsystem": item.subsystem, "selector": v, "mode": "id", "value": v} for v in resolve(names[0])]
                continue
            text = render(item.template, resolve)
            if text is None:
                continue
            selector = resolve(names[0])[0] if names else text
            items.append({"subsystem": item.subsystem, "selector": selector, "mode": item.mode, "value": text})
        covered = {i.subsystem for i in self.search_space}
        fallback = self.selectors(trigger, lookup)
        for subsystem in self.search_space_subsystems:
            if subsystem not in covered and fallback:
                items.append({"subsystem": subsystem, "selector": fallback[0], "mode": "query", "value": fallback[0]})
        unique: list[dict[str, str]] = []
        for place in items:
            if place not in unique:
                unique.append(place)
        return unique

    def selectors(self, trigger: Event, subsystem_of: Mapping[str, str] | None = None) -> tuple[str, ...]:
        """The values a search must use to find this trigger's response (the join values, else its artifact ids)."""
        lookup = subsystem_of or {}
        values: list[str] = []
        for trigger_path, _ in self.join:
            for value in field_values(trigger, trigger_path, lookup):
                if value not in values:
                    values.append(value)
        if not values:
            values = list(field_values(trigger, "artifact_ids", lookup))
        return tuple(values)


def _hours(gap: timedelta | None) -> float | None:
    return None if gap is None else gap.total_seconds() / 3600


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
                 "effect_event_type": r.effect_event_type, "max_gap_hours": _hours(r.max_gap),
                 "premise_template": r.premise_template, "outcome_template": r.outcome_template,
                 "outcome_changed": r.outcome_changed, "match": list(r.match) if r.match else None,
                 "join": [{"cause": a, "effect": b} for a, b in r.join]}
                for r in self.causal
            ],
            "silence_pairs": [
                {"name": r.name, "trigger_event_type": r.trigger_event_type,
                 "response_event_type": r.response_event_type, "max_gap_hours": _hours(r.max_gap),
                 "search_space": [{"subsystem": i.subsystem, f"{i.mode}_template": i.template} for i in r.search_space],
                 "match": list(r.match) if r.match else None,
                 "search_space_subsystems": list(r.search_space_subsystems), "response_label": r.response_label,
                 "join": [{"trigger": a, "response": b} for a, b in r.join]}
                for r in self.silence
            ],
        }


@dataclass(frozen=True)
class BuildConfig:
    """How many questions per track, the kind and difficulty ratios, and the seed."""

    seed: int = 0
    # orgbench's own tracks by default: a plugin's track is built only when a config names it (load_build_config)
    counts: Mapping[str, int] = field(default_factory=lambda: {t.name: t.count for t in all_tracks() if t.builtin})
    ratios: Mapping[str, Mapping[str, float]] = field(default_factory=lambda: {
        t.name: dict(t.ratios) for t in all_tracks() if t.builtin})
    hard_share: Mapping[str, float] = field(default_factory=lambda: {t.name: 0.5 for t in all_tracks() if t.builtin})
    max_per_actor: int | None = None          # questions per actor, over all tracks
    max_per_event_type: int | None = None     # questions per subject event type (Perspective subject, effect, trigger)
    max_links_per_rule: int | None = None     # causal questions per causal rule
    perspective_actors: tuple[str, ...] | None = None   # the only actors Perspective questions ask about

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seed": self.seed, "counts": dict(self.counts),
                               "ratios": {t: dict(r) for t, r in self.ratios.items()}, "hard_share": dict(self.hard_share)}
        caps = {"max_per_actor": self.max_per_actor, "max_per_event_type": self.max_per_event_type,
                "max_links_per_rule": self.max_links_per_rule,
                "perspective_actors": list(self.perspective_actors) if self.perspective_actors is not None else None}
        out.update({k: v for k, v in caps.items() if v is not None})
        return out
