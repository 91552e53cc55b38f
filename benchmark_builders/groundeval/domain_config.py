"""A GroundEval domain's ``config.yaml``: every key honoured or refused, rules, and the build settings it sets.

``read_rules`` turns ``causal_links`` / ``silence_pairs`` into Rules;
``read_settings`` turns the ratio, cap, seed and actor keys into a
BuildConfig. A key of neither kind is an error naming it and its file, or —
when the caller passes ``warn`` (``--allow-unknown-keys``) — one warning line
per key. Keys of upstream's LLM runner (provider, model, …) are refused the
same way: orgbench words questions from templates and runs agents with
``run-agent``.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from benchmark_builders.groundeval.contracts import (
    COUNTERFACTUAL, PERSPECTIVE, SILENCE, BuildConfig, CausalRule, Rules, SearchItem, SilenceRule,
)
from benchmark_builders.groundeval.joins import TOP_LEVEL, field_values, placeholders
from simulator.model import Event
from orgbench.core.errors import FormatError, InputError

Warn = Callable[[str], None] | None

TOP_KEYS = frozenset({
    "output_dir", "artifacts_dir", "events_file", "use_event_log_policy", "actors", "roles", "perspective",
    "perspective_actors", "causal_links", "silence_pairs", "easy_ratio", "medium_ratio", "hard_ratio",
    "max_perspective_questions", "max_counterfactual_questions", "max_silence_questions",
    "max_questions_per_actor", "max_questions_per_event_type", "max_links_per_spec", "seed",
})
#: Keys of upstream's own LLM runner and prose generator: refused (orgbench does not do what they ask).
RUNNER_KEYS = frozenset({
    "provider", "provider_path", "model", "api_key", "api_key_env", "base_url", "temperature", "max_tokens",
    "max_retries", "llm_question_prose", "llm_model", "trivial_search_space",
})
ROLE_KEYS = frozenset({"subsystems", "broadcast_event_types"})
PERSPECTIVE_KEYS = frozenset({"positive_ratio", "negative_permission_ratio", "negative_temporal_ratio",
                              "easy_ratio", "medium_ratio", "hard_ratio"})
CAUSAL_KEYS = frozenset({
    "name", "cause_event_type", "effect_event_type", "premise_template", "outcome_template", "outcome_changed",
    "match_field", "match_value", "max_gap_days", "max_gap_hours", "join", "mechanism_aliases", "aliases",
    "mechanism_fact", "link_field",
})
SILENCE_KEYS = frozenset({
    "name", "trigger_event_type", "response_event_type", "search_space_subsystems", "search_space",
    "search_space_selectors", "max_gap_days", "max_gap_hours", "match_field", "match_value", "join",
    "response_label",
})
JOIN_KEYS = frozenset({"cause", "effect", "trigger", "response"})
SEARCH_KEYS = frozenset({"subsystem", "id_template", "query_template"})
#: The upstream format's per-track caps (``max_<track>_questions``), for its three tracks.
_MAX_COUNTS = {f"max_{track}_questions": track for track in (PERSPECTIVE, COUNTERFACTUAL, SILENCE)}


class KeyCheck:
    """Checks mappings against their known keys; reports each unknown key once (error, or a warning line)."""

    def __init__(self, path: Path, warn: Warn) -> None:
        self.path, self.warn = path, warn
        self._told: set[tuple[str, str]] = set()

    def check(self, mapping: Mapping[str, Any], known: frozenset[str], at: str, section: str,
              line: int | None = None) -> None:
        """Raise (or warn once per key) for every key of ``mapping`` outside ``known``.

        ``at`` prefixes the key in an error (``causal_links[0].``), ``section`` in a warning (``causal_links[].``);
        ``line`` is the line of the file the mapping is on, for a file of one record a line (``path:line: key``).
        """
        for key in sorted(str(k) for k in mapping):
            if key in known:
                continue
            why = "not supported by orgbench" if key in RUNNER_KEYS or key == "require_cross_subsystem_cases" else "unknown key"
            if self.warn is None:
                raise FormatError(self.path, f"{at}{key}: {why} (--allow-unknown-keys ignores it)", line=line)
            if (section, key) not in self._told:
                self._told.add((section, key))
                self.warn(f"{self.path}: warning: {section}{key}: {why}, ignored")


def _gap(rule: Mapping[str, Any], where: str) -> timedelta | None:
    if "max_gap_days" in rule and "max_gap_hours" in rule:
        raise InputError(f"{where}: give max_gap_days or max_gap_hours, not both")
    for unit in ("days", "hours"):
        key = f"max_gap_{unit}"
        if key in rule:
            value = rule[key]
            if value is None:
                return None
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
                raise InputError(f"{where}.{key}: expected a positive number, got {value!r}")
            return timedelta(**{unit: float(value)})
    return None


def _field(name: Any, where: str) -> str:
    if not isinstance(name, str) or not name:
        raise InputError(f"{where}: expected a field path, got {name!r}")
    if name in TOP_LEVEL or "." in name:
        return name
    return f"facts.{name}"


def _mappings(raw: Any, at: str, expected: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """``raw`` read as a list of mappings (one mapping is a list of one): each with where it is, ``AT[i]``."""
    if isinstance(raw, dict):
        raw = [raw]
    if not isinstance(raw, list):
        raise InputError(f"{at}: expected a list of {expected}")
    for i, item in enumerate(raw):
        if not isinstance(item, dict):
            raise InputError(f"{at}[{i}]: expected a mapping")
        yield f"{at}[{i}]", item


def _join(rule: Mapping[str, Any], where: str, keys: KeyCheck, section: str) -> tuple[tuple[str, str], ...]:
    out = []
    for at, pair in _mappings(rule.get("join", []), f"{where}.join", "{cause, effect}"):
        keys.check(pair, JOIN_KEYS, at.split(": ", 1)[-1] + ".", f"{section}.join.")
        left = pair.get("cause", pair.get("trigger"))
        right = pair.get("effect", pair.get("response"))
        out.append((_field(left, f"{at}.cause"), _field(right, f"{at}.effect")))
    return tuple(out)


def _match(rule: Mapping[str, Any], where: str) -> tuple[str, str] | None:
    if "match_field" not in rule and "match_value" not in rule:
        return None
    if "match_field" not in rule or "match_value" not in rule:
        raise InputError(f"{where}: match_field and match_value go together")
    value = rule["match_value"]
    text = value if isinstance(value, str) else None
    if text is None:
        from orgbench.core.storage import dumps

        text = dumps(value)
    return _field(rule["match_field"], f"{where}.match_field"), text


def _text(rule: Mapping[str, Any], key: str, where: str) -> str | None:
    value = rule.get(key)
    if value is not None and (not isinstance(value, str) or not value):
        raise InputError(f"{where}.{key}: expected a non-empty string")
    return value


def _types(rule: Mapping[str, Any], names: tuple[str, ...], where: str) -> None:
    for key in names:
        if not isinstance(rule.get(key), str) or not rule.get(key):
            raise InputError(f"{where}.{key}: missing or not a string")


def _causal(rule: Mapping[str, Any], where: str, keys: KeyCheck) -> CausalRule:
    keys.check(rule, CAUSAL_KEYS, where.split(": ", 1)[-1] + ".", "causal_links[].")
    _types(rule, ("name", "cause_event_type", "effect_event_type"), where)
    aliases = rule.get("aliases") or rule.get("mechanism_aliases") or []
    if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
        raise InputError(f"{where}.aliases: expected a list of strings")
    mechanism_fact = rule.get("mechanism_fact")
    if mechanism_fact is not None and not isinstance(mechanism_fact, str):
        raise InputError(f"{where}.mechanism_fact: expected a fact name")
    if rule.get("link_field", "id") != "id":
        raise InputError(f"{where}.link_field: only 'id' is supported (joins say how events connect)")
    changed = rule.get("outcome_changed", True)
    if not isinstance(changed, bool):
        raise InputError(f"{where}.outcome_changed: expected true or false, got {changed!r}")
    return CausalRule(rule["name"], rule["cause_event_type"], rule["effect_event_type"], _gap(rule, where),
                      _join(rule, where, keys, "causal_links[]"), tuple(aliases), mechanism_fact,
                      _text(rule, "premise_template", where), _text(rule, "outcome_template", where), changed,
                      _match(rule, where), where)


def _search_space(rule: Mapping[str, Any], where: str, keys: KeyCheck) -> tuple[SearchItem, ...]:
    raw = rule.get("search_space", rule.get("search_space_selectors", []))
    items = []
    for at, item in _mappings(raw, f"{where}.search_space", "{subsystem, id_template | query_template}"):
        keys.check(item, SEARCH_KEYS, at.split(": ", 1)[-1] + ".", "silence_pairs[].search_space[].")
        if not isinstance(item.get("subsystem"), str) or not item["subsystem"]:
            raise InputError(f"{at}.subsystem: missing or not a string")
        modes = [m for m in ("id", "query") if item.get(f"{m}_template") is not None]
        if len(modes) != 1:
            raise InputError(f"{at}: give exactly one of id_template or query_template")
        template = item[f"{modes[0]}_template"]
        if not isinstance(template, str) or not template.strip():
            raise InputError(f"{at}.{modes[0]}_template: expected a non-empty string")
        items.append(SearchItem(item["subsystem"], template, modes[0]))
    return tuple(items)


def _silence(rule: Mapping[str, Any], where: str, keys: KeyCheck) -> SilenceRule:
    keys.check(rule, SILENCE_KEYS, where.split(": ", 1)[-1] + ".", "silence_pairs[].")
    _types(rule, ("trigger_event_type", "response_event_type"), where)
    items = _search_space(rule, where, keys)
    space = rule.get("search_space_subsystems")
    if space is None:
        space = sorted({i.subsystem for i in items})
    if not isinstance(space, list) or not space or not all(isinstance(s, str) and s for s in space):
        raise InputError(f"{where}.search_space_subsystems: expected a non-empty list of subsystem names "
                         "(or a search_space to derive it from)")
    name = rule.get("name") or f"{rule['trigger_event_type']}->{rule['response_event_type']}"
    label = rule.get("response_label") or "a " + rule["response_event_type"].replace("_", " ")
    return SilenceRule(str(name), rule["trigger_event_type"], rule["response_event_type"], _gap(rule, where),
                       tuple(space), _join(rule, where, keys, "silence_pairs[]"), str(label), items,
                       _match(rule, where), where)


def read_rules(config: Mapping[str, Any], path: Path, warn: Warn = None) -> Rules:
    """Causal links and silence pairs from a GroundEval config mapping (unknown keys: error, or ``warn``)."""
    keys = KeyCheck(path, warn)
    out: dict[str, list[Any]] = {"causal_links": [], "silence_pairs": []}
    for section, make in (("causal_links", _causal), ("silence_pairs", _silence)):
        rules = config.get(section) or []
        if not isinstance(rules, list):
            raise InputError(f"{path}: {section}: expected a list")
        for i, rule in enumerate(rules):
            where = f"{path}: {section}[{i}]"
            if not isinstance(rule, dict):
                raise InputError(f"{where}: expected a mapping")
            out[section].append(make(rule, where, keys))
    return Rules(tuple(out["causal_links"]), tuple(out["silence_pairs"]))


def _ratio(table: Mapping[str, Any], key: str, where: str) -> float:
    value = table[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise InputError(f"{where}{key}: expected a non-negative number, got {value!r}")
    return float(value)


def _cap(table: Mapping[str, Any], key: str, where: str) -> int:
    value = table[key]
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(f"{where}{key}: expected a non-negative integer, got {value!r}")
    return value


#: Upstream's difficulty ratios when a config names some but not all of them (medium's share goes to both grades).
DEFAULT_RATIOS = {"easy_ratio": 0.34, "medium_ratio": 0.33, "hard_ratio": 0.33}


def _hard_share(table: Mapping[str, Any], where: str) -> float | None:
    """hard / (easy + hard): orgbench grades questions easy or hard, so medium's share goes to both in proportion."""
    if not any(k in table for k in ("easy_ratio", "medium_ratio", "hard_ratio")):
        return None
    easy = _ratio(table, "easy_ratio", where) if "easy_ratio" in table else DEFAULT_RATIOS["easy_ratio"]
    hard = _ratio(table, "hard_ratio", where) if "hard_ratio" in table else DEFAULT_RATIOS["hard_ratio"]
    if "medium_ratio" in table:
        _ratio(table, "medium_ratio", where)
    return hard / (easy + hard) if easy + hard > 0 else 0.0


def read_settings(config: Mapping[str, Any], path: Path, actors: Mapping[str, Any], keys: KeyCheck) -> BuildConfig:
    """The build settings a domain config sets (ratios, caps, seed, perspective actors) over the defaults."""
    base = BuildConfig()
    where = f"{path}: "
    counts = dict(base.counts)
    ratios = {t: dict(r) for t, r in base.ratios.items()}
    hard = dict(base.hard_share)
    share = _hard_share(config, where)
    if share is not None:
        hard = dict.fromkeys(hard, share)
    section = config.get("perspective") or {}
    if not isinstance(section, dict):
        raise InputError(f"{where}perspective: expected a mapping")
    keys.check(section, PERSPECTIVE_KEYS, "perspective.", "perspective.")
    for key, kind in (("positive_ratio", "positive"), ("negative_temporal_ratio", "temporal_negative"),
                      ("negative_permission_ratio", "permission_negative")):
        if key in section:
            ratios[PERSPECTIVE][kind] = _ratio(section, key, f"{where}perspective.")
    share = _hard_share(section, f"{where}perspective.")
    if share is not None:
        hard[PERSPECTIVE] = share
    for key, track in _MAX_COUNTS.items():
        if key in config:
            counts[track] = _cap(config, key, where)
    caps = {field: _cap(config, key, where) for key, field in (
        ("max_questions_per_actor", "max_per_actor"), ("max_questions_per_event_type", "max_per_event_type"),
        ("max_links_per_spec", "max_links_per_rule")) if key in config}
    seed = config.get("seed", base.seed)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise InputError(f"{where}seed: expected an integer, got {seed!r}")
    chosen = config.get("perspective_actors")
    if chosen is not None:
        if not isinstance(chosen, list) or not all(isinstance(a, str) for a in chosen):
            raise InputError(f"{where}perspective_actors: expected a list of actor names")
        for name in chosen:
            if name not in actors:
                raise InputError(f"{where}perspective_actors: unknown actor {name!r}")
        chosen = tuple(chosen)
    return replace(base, seed=seed, counts=counts, ratios=ratios, hard_share=hard, perspective_actors=chosen, **caps)


def _paths(rule: CausalRule | SilenceRule) -> list[tuple[str, str, str]]:
    """(key, path, side) for every path a rule reads; side is "cause"/"trigger" or "effect"/"response"."""
    left, right = ("cause", "effect") if isinstance(rule, CausalRule) else ("trigger", "response")
    out = []
    for i, (a, b) in enumerate(rule.join):
        out += [(f"join[{i}].cause", a, left), (f"join[{i}].effect", b, right)]
    if rule.match is not None:
        out.append(("match_field", rule.match[0], left))
    if isinstance(rule, CausalRule):
        for key in ("premise_template", "outcome_template"):
            for name in placeholders(getattr(rule, key) or ""):
                side, _, path = name.partition(".")
                if side not in ("cause", "effect") or not path:
                    raise InputError(f"{rule.source}.{key}: placeholder {{{name}}} must start with cause. or effect.")
                out.append((key, path, side))
    else:
        for i, item in enumerate(rule.search_space):
            for name in placeholders(item.template):
                out.append((f"search_space[{i}].{item.mode}_template", name, "trigger"))
    return out


def check_rules(rules: Rules, events_by_type: Mapping[str, list[Event]], subsystem_of: Mapping[str, str],
                drop: Warn = None) -> Rules:
    """The rules, each of whose paths resolves on at least one event of its type (when that type has events).

    A rule with a path that resolves for no event is an error — or, with ``drop``, left out with a warning line.
    """
    kept: list[CausalRule | SilenceRule] = []
    every: list[CausalRule | SilenceRule] = [*rules.causal, *rules.silence]
    for rule in every:
        problem = _unresolved(rule, events_by_type, subsystem_of)
        if problem is None:
            kept.append(rule)
        elif drop is None:
            raise InputError(f"{problem}: fix the path, or build with --drop-unresolved-rules to leave the rule "
                             "out with a warning")
        else:
            drop(f"warning: {problem}; rule left out")
    return Rules(tuple(r for r in kept if isinstance(r, CausalRule)), tuple(r for r in kept if isinstance(r, SilenceRule)))


def _unresolved(rule: CausalRule | SilenceRule, events_by_type: Mapping[str, list[Event]],
                subsystem_of: Mapping[str, str]) -> str | None:
    """The first path of a rule that resolves for no event of its type, as an error line (None: all resolve)."""
    if isinstance(rule, CausalRule):
        types = {"cause": rule.cause_event_type, "effect": rule.effect_event_type}
    else:
        types = {"trigger": rule.trigger_event_type, "response": rule.response_event_type}
    for key, path, side in _paths(rule):
        events = events_by_type.get(types[side], [])
        if events and not any(field_values(e, path, subsystem_of) for e in events):
            return (f"{rule.source or rule.name} ({rule.name}).{key}: path {path!r} resolves for no "
                    f"event of type {types[side]!r}")
    return None
