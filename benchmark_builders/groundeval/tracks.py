"""GroundEval's tracks, each declared once as a ``Track`` record, and the registry that holds them.

A track is everything that is *about* one kind of question: its kinds and
hard kinds, its answer schema and the typed fields a scorer needs, its
verdict field, its scoring weights, its default build split, the builder
functions that make its candidates, the subject fields its wording may name,
the answer that says "no". Its judge-side behaviour (how each built-in agent
reads it and how the scorer scores it) is a ``TrackBehaviour`` in ``judges/``,
which builders never name: orgbench's own in
``judges/groundeval/track_readings.py`` under the track's name, a plugin's at
its record's ``behaviour``. Nothing outside these two branches on a track's
name. Functions a record names in another module are ``module:attr`` paths
read on first use.

orgbench's own tracks are Perspective, Counterfactual and Silence; a separate
package adds one under the entry-point group ``orgbench.groundeval_tracks``
(name = the track's name, value = ``module:attr`` of its ``Track``; see
docs/plugins.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Iterable, Mapping

from orgbench.core.errors import InputError
from orgbench.core.registry import Registry, accept_instance, load_attr

ENTRY_POINT_GROUP = "orgbench.groundeval_tracks"
_NULLABLE_STR = (str, type(None))   # "no such event / no mechanism"
#: A ``required`` field's Python type -> its JSON Schema type.
_JSON_TYPES: dict[Any, str] = {bool: "boolean", str: "string", int: "integer", float: "number", type(None): "null",
                               dict: "object", list: "array"}
#: An ``answer_schema`` entry that is a plain type name -> its JSON Schema type (for the schema sent to models).
_NAMED_TYPES: dict[str, str] = {"str": "string", "bool": "boolean", "int": "integer", "float": "number"}


@dataclass(frozen=True)
class Track:
    """One GroundEval track: what its questions and answers are, how it is built, read and scored."""

    name: str
    prefix: str                                  # question ids: PREFIX-<12 hex digits>
    kinds: tuple[str, ...]                       # its kinds of question, in table order
    answer_schema: Mapping[str, str]             # shown to agents in every contract ("[...]": a list of strings)
    required: tuple[tuple[str, Any], ...]        # answer fields the scorer needs, with their types
    verdict: str                                 # the boolean answer field that is its verdict
    weights: tuple[float, float]                 # (w_answer, w_traj) of S_adj
    count: int                                   # questions a build asks for by default
    ratios: Mapping[str, float]                  # the default split over its kinds
    candidates: str                              # "module:attr": f(view, rules, rng, config) -> [Question]
    hard_kinds: tuple[str, ...] = ()             # kinds built only when their ratio is > 0
    hard_candidates: str = ""                    # "module:attr": f(view, rules, rng) -> [Question] of hard kinds
    world_count: int | None = None               # a simulated world's build (default: count, ratios)
    world_ratios: Mapping[str, float] | None = None
    may_name: Mapping[str, tuple[str, ...]] = field(default_factory=dict)   # kind -> subject fields wording names
    blank: Mapping[str, Any] = field(default_factory=dict)   # a "no" answer's fields (beyond evidence, reasoning)
    blank_from_subject: tuple[str, ...] = ()     # fields of ``blank`` a "no" answer copies from the subject
    templates: str = ""                          # folder of its wording template ``<name>.j2`` (default: orgbench's)
    balanced_hard: bool = True                   # hard questions are taken with verdicts in turn
    one_question_per_moment: bool = False        # at most one question per (actor, as_of)
    behaviour: str = ""                          # a plugin's: "module:attr" of its judges-side ``TrackBehaviour``
    summary: str = ""
    truth: str = ""                              # how its ground truth is decided (the report's definition)
    builtin: bool = False                        # one of orgbench's own (set on its records only)

    def lists(self) -> tuple[str, ...]:
        """The answer fields that are lists of strings, in schema order."""
        return tuple(k for k, v in self.answer_schema.items() if v.startswith("["))

    @cached_property
    def answer_json_schema(self) -> dict[str, Any]:
        """The answer as a JSON Schema document (draft 7): what the scorer validates and a model is asked to follow.

        An object; each ``required`` field present with its type; each list field (``[...]``), when given, an
        array of strings; every field of ``answer_schema`` described by its entry there.
        """
        properties: dict[str, dict[str, Any]] = {key: {"description": text} for key, text in self.answer_schema.items()}
        for key, kind in self.required:
            kinds = kind if isinstance(kind, tuple) else (kind,)
            names = [_JSON_TYPES[k] for k in kinds]
            properties.setdefault(key, {})["type"] = names[0] if len(names) == 1 else names
        for key in self.lists():
            properties[key] = {**properties[key], "type": "array", "items": {"type": "string"}}
        return {"title": f"{self.name} answer", "type": "object", "properties": properties,
                "required": [key for key, _ in self.required]}

    @cached_property
    def model_answer_schema(self) -> dict[str, Any]:
        """The answer schema a model is sent (``submit_answer``'s ``answer``): ``answer_json_schema`` without its
        title, each field it leaves untyped (one the scorer does not read, as ``reasoning``) typed as its
        ``answer_schema`` entry names it (``str``: a string), so a server can build its grammar from every field.
        An answer that follows it follows ``answer_json_schema``."""
        schema = self.answer_json_schema
        properties = {key: spec if "type" in spec or spec["description"] not in _NAMED_TYPES
                      else {**spec, "type": _NAMED_TYPES[spec["description"]]}
                      for key, spec in schema["properties"].items()}
        return {"type": "object", "properties": properties, "required": schema["required"]}

    def load(self, attr: str) -> Any:
        """The object one of its ``module:attr`` fields names (None when the field is empty)."""
        path = getattr(self, attr)
        return load_attr(path, f"GroundEval track {self.name!r} {attr}") if path else None

    def blank_answer(self, subject: Mapping[str, Any]) -> dict[str, Any]:
        """The answer that says "no": evidence and reasoning empty, its own fields at their defaults."""
        answer: dict[str, Any] = {"evidence_artifacts": [], "reasoning": ""}
        for key, value in self.blank.items():
            answer[key] = subject.get(key, value) if key in self.blank_from_subject else (
                list(value) if isinstance(value, list) else value)
        return answer


_BUILDERS = "benchmark_builders.groundeval"

PERSPECTIVE_TRACK = Track(
    name="perspective", prefix="PER", builtin=True,
    kinds=("positive", "temporal_negative", "permission_negative"),
    answer_schema={"could_actor_have_known": "bool", "evidence_artifacts": "[artifact id]",
                   "blocked_subsystems": "[subsystem]", "reasoning": "str"},
    required=(("could_actor_have_known", bool),), verdict="could_actor_have_known", weights=(0.40, 0.60),
    count=40, ratios={"positive": 0.4, "temporal_negative": 0.3, "permission_negative": 0.3},
    candidates=f"{_BUILDERS}.perspective:track_candidates",
    may_name=dict.fromkeys(("positive", "temporal_negative", "permission_negative"), ("entity", "artifacts", "value")),
    blank={"could_actor_have_known": False, "blocked_subsystems": []},
    balanced_hard=False, one_question_per_moment=True,
    summary="could this actor have known this fact at this moment?",
    truth="the access policy at that moment and when the fact was first stated.",
)
_CF_NAMES = ("cause_entity", "effect_entity", "cause_event_id", "effect_event_id", "cause_records", "effect_records")
COUNTERFACTUAL_TRACK = Track(
    name="counterfactual", prefix="CF", builtin=True,
    kinds=("causal", "decoy", "indirect", "named_decoy"), hard_kinds=("indirect", "named_decoy"),
    answer_schema={"outcome_changed": "bool", "causal_mechanism": "str (mechanism name, or no_causal_link)",
                   "cause_event_id": "str", "effect_event_id": "str",
                   "mechanism_direction": "cause_to_effect | effect_to_cause | no_causal_link",
                   "evidence_artifacts": "[artifact id]", "actors": "[actor id]", "reasoning": "str"},
    required=(("outcome_changed", bool), ("causal_mechanism", _NULLABLE_STR), ("cause_event_id", _NULLABLE_STR),
              ("effect_event_id", _NULLABLE_STR), ("mechanism_direction", str)),
    verdict="outcome_changed", weights=(0.50, 0.50),
    count=30, ratios={"causal": 0.5, "decoy": 0.5, "indirect": 0.0, "named_decoy": 0.0},
    world_count=48, world_ratios={"causal": 0.5, "decoy": 0.5, "indirect": 0.2, "named_decoy": 0.4},
    candidates=f"{_BUILDERS}.counterfactual:track_candidates",
    hard_candidates=f"{_BUILDERS}.hard_kinds:counterfactual_track_candidates",
    may_name=dict.fromkeys(("causal", "decoy", "indirect", "named_decoy"), _CF_NAMES),
    blank={"outcome_changed": False, "causal_mechanism": "no_causal_link", "cause_event_id": "",
           "effect_event_id": "", "mechanism_direction": "no_causal_link", "actors": []},
    blank_from_subject=("cause_event_id", "effect_event_id"),
    summary="did this cause change this outcome?",
    truth="causal links joined by key, plus decoys close in time with no join (truth: no causal link).",
)
_TRIGGER = ("trigger_entity", "trigger_event_id", "trigger_records")
SILENCE_TRACK = Track(
    name="silence", prefix="SIL", builtin=True,
    kinds=("exists", "absence", "indirect"), hard_kinds=("indirect",),
    answer_schema={"exists": "bool", "evidence_artifacts": "[artifact id]", "reasoning": "str"},
    required=(("exists", bool),), verdict="exists", weights=(0.30, 0.70),
    count=30, ratios={"exists": 0.5, "absence": 0.5, "indirect": 0.0},
    world_count=40, world_ratios={"exists": 0.375, "absence": 0.375, "indirect": 0.25},
    candidates=f"{_BUILDERS}.silence:track_candidates",
    hard_candidates=f"{_BUILDERS}.hard_kinds:silence_track_candidates",
    # exists/absence may name the trigger's own ids (its incident_id, escalation_id); indirect not the
    # incident it was about: that is the join
    may_name={"exists": (*_TRIGGER, "selectors"), "absence": (*_TRIGGER, "selectors"), "indirect": _TRIGGER},
    blank={"exists": False},
    summary="was the response to this trigger recorded (and could the actor have found it)?",
    truth="triggers with and without a response, and the search space where the response would be recorded.",
)
BUILTIN_TRACKS: tuple[Track, ...] = (PERSPECTIVE_TRACK, COUNTERFACTUAL_TRACK, SILENCE_TRACK)

TRACK_REGISTRY: Registry[Track] = Registry("GroundEval track", ENTRY_POINT_GROUP, lambda: BUILTIN_TRACKS,
                                           lambda t: t.name, accept_instance(Track))
_BY_NAME: dict[str, Any] = {}


def all_tracks() -> tuple[Track, ...]:
    """Every registered track: orgbench's own in table order, then the plugins' by name."""
    return TRACK_REGISTRY.all()


def track(name: str) -> Track:
    """The track called ``name``; InputError naming every known track otherwise."""
    registered = TRACK_REGISTRY.all()
    if _BY_NAME.get("") is not registered:      # rebuilt after a registry clear (a plugin installed)
        _BY_NAME.clear()
        _BY_NAME.update({t.name: t for t in registered}, **{"": registered})
    found = _BY_NAME.get(name) if name else None
    if found is None:
        raise InputError(f"unknown GroundEval track {name!r} (known: {', '.join(t.name for t in registered)}; "
                         "a plugin's track needs its package installed)")
    return found


def track_names(present: Iterable[str | None] = ()) -> tuple[str, ...]:
    """Tracks a table lists: orgbench's own, then each plugin track that is ``present`` (in registry order; None,
    the track of an answer to no question of the suite, names none)."""
    seen = set(present)
    return tuple(t.name for t in all_tracks() if t.builtin or t.name in seen)


def track_kinds() -> dict[str, tuple[str, ...]]:
    """Every registered track and its kinds of question (the GroundEval study's parts)."""
    return {t.name: t.kinds for t in all_tracks()}
