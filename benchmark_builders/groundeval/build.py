"""Build a GroundEval suite: choose questions by ratio and difficulty, and write contracts and truth apart.

``build_questions(world, rules, config)`` is pure (``assemble_questions`` also
returns a ``BuildSummary``: the split asked for and built per track and kind,
and the questions left out because every wording would reveal the answer);
``write_suite`` writes ``suite.json`` (with that summary), ``contracts.jsonl``
(what agents may see), ``truth.jsonl`` (never shown to agents), the corpus the
gated runtime serves (``world/``, the world files) and ``MANIFEST.json``, all
in a staged directory.
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass, replace
from datetime import timedelta
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from benchmark_builders.groundeval.contracts import BuildConfig, CausalRule, Question, Rules, SilenceRule
from benchmark_builders.groundeval.question_lint import question_problems
from benchmark_builders.groundeval.tracks import BUILTIN_TRACKS, Track, all_tracks, track
from benchmark_builders.groundeval.wording import word_question
from benchmark_builders.groundeval.worldview import WorldView
from orgbench.core.errors import InputError
from orgbench.core.storage import read_toml, staged_directory, write_json, write_jsonl, write_manifest
from simulator.world import World, save_world

SUITE_FORMAT = 1

#: Causal links and silence pairs of simulated worlds (docs/world.md names the event types and join keys).
WORLD_RULES = Rules(
    causal=(
        CausalRule("deploy_caused_incident", "deploy.completed", "incident.opened", timedelta(hours=24),
                   (("payload.change_id", "payload.change_id"),), (), mechanism_fact="mechanism"),
    ),
    silence=(
        SilenceRule("incident_postmortem", "incident.opened", "postmortem.published", timedelta(days=14),
                    ("postmortems",), (("payload.incident_id", "payload.incident_id"),), "a published postmortem"),
        SilenceRule("escalation_answer", "escalation.sent", "escalation.answered", timedelta(days=3),
                    ("email",), (("payload.escalation_id", "payload.escalation_id"),), "an answer to the escalation"),
    ),
)


def world_config(tracks: Iterable[Track] = BUILTIN_TRACKS) -> BuildConfig:
    """Build settings for simulated worlds: each track's world counts and ratios (its defaults where it has none),
    which ask for the hard kinds (hard_kinds.py) too."""
    tracks = tuple(tracks)
    return BuildConfig(
        counts={t.name: t.world_count if t.world_count is not None else t.count for t in tracks},
        ratios={t.name: dict(t.world_ratios if t.world_ratios is not None else t.ratios) for t in tracks},
        hard_share={t.name: 0.5 for t in tracks},
    )


#: orgbench's own tracks' world settings.
WORLD_CONFIG = world_config()


@dataclass(frozen=True)
class BuildSummary:
    """What a build asked for and what it made, per track and kind, and the questions left out for their wording."""

    requested: Mapping[str, Mapping[str, int]]
    built: Mapping[str, Mapping[str, int]]
    left_out: Mapping[str, int]      # per track: chosen questions whose every wording would reveal the answer

    def shortfalls(self) -> list[str]:
        """``track kind built/requested`` for every kind built short of its request, in track and kind order."""
        return [f"{track} {kind} {self.built.get(track, {}).get(kind, 0)}/{want}"
                for track, kinds in self.requested.items() for kind, want in kinds.items()
                if self.built.get(track, {}).get(kind, 0) < want]

    def note(self) -> str | None:
        """One line saying what fell short and why, or None when everything asked for was built."""
        short = self.shortfalls()
        if not short:
            return None
        dropped = sum(self.left_out.values())
        why = "not enough candidates in the source" + (
            f"; {dropped} left out because every wording would reveal the answer" if dropped else "")
        return f"groundeval: built fewer questions than requested ({', '.join(short)}): {why}"

    def to_json(self) -> dict[str, Any]:
        return {"requested": {t: dict(k) for t, k in self.requested.items()},
                "built": {t: dict(k) for t, k in self.built.items()},
                "left_out": {"wording_reveals_answer": dict(self.left_out)}}


def _split(count: int, ratios: Mapping[str, float], kinds: tuple[str, ...]) -> dict[str, int]:
    """``count`` split over the kinds by ratio, summing exactly to ``count`` (largest remainders, ties in kind order)."""
    total = sum(max(0.0, ratios.get(k, 0.0)) for k in kinds)
    if count <= 0 or total <= 0:
        return {k: 0 for k in kinds}
    exact = {k: count * max(0.0, ratios.get(k, 0.0)) / total for k in kinds}
    out = {k: int(exact[k]) for k in kinds}
    order = sorted(kinds, key=lambda k: (-(exact[k] - out[k]), kinds.index(k)))
    for k in order[:count - sum(out.values())]:
        out[k] += 1
    return out


class _Caps:
    """The config's caps (per actor, per event type, causal questions per rule) and one as_of per actor in Perspective."""

    def __init__(self, config: BuildConfig) -> None:
        self.config = config
        self.actors: dict[str, int] = {}
        self.types: dict[str, int] = {}
        self.rules: dict[str, int] = {}
        self.moments: set[tuple[str, str]] = set()

    def allows(self, q: Question) -> bool:
        """True if taking ``q`` breaks no cap."""
        c = self.config
        return not (
            (c.max_per_actor is not None and self.actors.get(q.contract.actor, 0) >= c.max_per_actor)
            or (c.max_per_event_type is not None and q.event_type
                and self.types.get(q.event_type, 0) >= c.max_per_event_type)
            or (c.max_links_per_rule is not None and q.truth.kind == "causal"
                and self.rules.get(q.rule, 0) >= c.max_links_per_rule)
            or (track(q.contract.track).one_question_per_moment and self._moment(q) in self.moments))

    def take(self, q: Question) -> None:
        """Count a chosen question against the caps."""
        self.actors[q.contract.actor] = self.actors.get(q.contract.actor, 0) + 1
        self.types[q.event_type] = self.types.get(q.event_type, 0) + 1
        if q.truth.kind == "causal":
            self.rules[q.rule] = self.rules.get(q.rule, 0) + 1
        if track(q.contract.track).one_question_per_moment:
            self.moments.add(self._moment(q))

    @staticmethod
    def _moment(q: Question) -> tuple[str, str]:
        return q.contract.actor, q.contract.as_of.isoformat()


def _choose(candidates: list[Question], chosen_track: Track, config: BuildConfig,
            finish: Callable[[Question], Question | None],
            caps: _Caps | None = None) -> tuple[list[Question], dict[str, int], int]:
    """The chosen questions of a track (each finished: worded, or None to leave it out), the split asked, the count left out."""
    name = chosen_track.name
    wanted = _split(int(config.counts.get(name, 0)), config.ratios.get(name, {}), chosen_track.kinds)
    hard_share = float(config.hard_share.get(name, 0.5))
    chosen: list[Question] = []
    left_out = 0
    unique: dict[str, Question] = {}
    for q in candidates:
        unique.setdefault(q.contract.question_id, q)

    def take(pool: list[Question], n: int, start: int = 0) -> tuple[list[Question], int]:
        nonlocal left_out
        picked: list[Question] = []
        index = start
        while len(picked) < n and index < len(pool):
            candidate = pool[index]
            index += 1
            if caps is not None and not caps.allows(candidate):
                continue
            done = finish(candidate)
            if done is None:
                left_out += 1
            else:
                picked.append(done)
                if caps is not None:
                    caps.take(done)
        return picked, index

    for kind in chosen_track.kinds:
        want = wanted[kind]
        rng = random.Random(f"{config.seed}:{name}:{kind}")
        pool = sorted((q for q in unique.values() if q.truth.kind == kind), key=lambda q: q.contract.question_id)
        hard = [q for q in pool if q.truth.difficulty == "hard"]
        easy = [q for q in pool if q.truth.difficulty != "hard"]
        rng.shuffle(hard)
        rng.shuffle(easy)
        hard = sorted(hard, key=lambda q: (q.rank, q.pair))
        if chosen_track.balanced_hard:
            hard = _alternating_answers(hard, chosen_track.verdict)
        picked_hard, next_hard = take(hard, round(want * hard_share))
        picked_easy, _ = take(easy, want - len(picked_hard))
        topped_up, _ = take(hard, want - len(picked_hard) - len(picked_easy), next_hard)
        chosen.extend(picked_hard + picked_easy + topped_up)
    return chosen, wanted, left_out


def _alternating_answers(pool: list[Question], verdict: str) -> list[Question]:
    """The pool reordered so that its gold answers take turns (a silence exists, then not, ...), each answer's
    questions keeping their order: any prefix the builder takes is balanced, and a base-rate guess scores half."""
    by_answer: dict[Any, list[Question]] = {}
    for q in pool:
        by_answer.setdefault(q.truth.gold.get(verdict), []).append(q)
    turns = list(by_answer.values())
    return [side[i] for i in range(max(map(len, turns), default=0)) for side in turns if i < len(side)]


def build_questions(world: World, rules: Rules, config: BuildConfig, name: str) -> list[Question]:
    """Every chosen question of every track, sorted by track and id, with no answer leaking into wording."""
    return assemble_questions(world, rules, config, name)[0]


def assemble_questions(world: World, rules: Rules, config: BuildConfig,
                       name: str) -> tuple[list[Question], BuildSummary]:
    """The chosen questions (as ``build_questions``) and the summary of what was asked for and built."""
    view = WorldView(world, name)
    rng = random.Random(f"{config.seed}:{name}")
    tracks = [t for t in all_tracks() if t.builtin or t.name in config.counts]
    pools = {t.name: list(t.load("candidates")(view, rules, random.Random(rng.random()), config)) for t in tracks}
    hard_rng = random.Random(f"{config.seed}:{name}:hard")   # one stream, drawn by the tracks in turn
    for t in tracks:
        if t.hard_candidates and any(config.ratios.get(t.name, {}).get(k, 0) > 0 for k in t.hard_kinds):
            pools[t.name] += t.load("hard_candidates")(view, rules, hard_rng)

    def finish(q: Question) -> Question | None:
        subjects = tuple(str(v) for v in _subject_ids(q.contract.subject))
        text = word_question(q.contract.track, q.pair or q.contract.question_id, q.wording, q.truth, subjects)
        if text is None or question_problems(text, q.contract.subject, q.truth):    # names a join: left out
            return None
        return replace(q, contract=replace(q.contract, question=text), wording={})

    questions: list[Question] = []
    requested: dict[str, dict[str, int]] = {}
    left_out: dict[str, int] = {}
    caps = _Caps(config)
    for t in tracks:
        chosen, requested[t.name], left_out[t.name] = _choose(pools[t.name], t, config, finish, caps)
        questions.extend(chosen)
    built = {t.name: {k: 0 for k in t.kinds} for t in tracks}
    for q in questions:
        built[q.truth.track][q.truth.kind] += 1
    for t in tracks:      # hard kinds nobody asked for are not listed
        for kind in t.hard_kinds:
            if not requested[t.name].get(kind) and not built[t.name][kind]:
                requested[t.name].pop(kind, None)
                built[t.name].pop(kind)
    order = {t.name: i for i, t in enumerate(tracks)}
    ordered = sorted(questions, key=lambda q: (order[q.contract.track], q.contract.question_id))
    return ordered, BuildSummary(requested, built, left_out)


def _subject_ids(subject: Mapping[str, Any]) -> Iterable[str]:
    for value in subject.values():
        if isinstance(value, Mapping):
            yield from _subject_ids(value)
        elif isinstance(value, (list, tuple)):
            yield from (v for v in value if isinstance(v, str))
        elif isinstance(value, str):
            yield value


def write_suite(out: Path, world: World, rules: Rules, config: BuildConfig, questions: list[Question],
                source: Mapping[str, Any], summary: BuildSummary | None = None) -> None:
    """Write the suite directory atomically (contracts, truth, corpus, manifest)."""
    counts: dict[str, dict[str, int]] = {}
    for q in questions:
        per = counts.setdefault(q.contract.track, {})
        per[q.truth.kind] = per.get(q.truth.kind, 0) + 1
    with staged_directory(Path(out)) as tmp:
        write_json(tmp / "suite.json", {
            "format": "groundeval-suite", "format_version": SUITE_FORMAT, "source": dict(source),
            "config": config.to_json(), "rules": rules.to_json(), "counts": counts, "questions": len(questions),
            **(summary.to_json() if summary is not None else {}),
        })
        write_jsonl(tmp / "contracts.jsonl", (q.contract.to_json() for q in questions))
        write_jsonl(tmp / "truth.jsonl", (q.truth.to_json() for q in questions))
        save_world(world, tmp / "world")
        write_manifest(tmp)


# -- configuration -----------------------------------------------------------------------------------

def _number(table: Mapping[str, Any], key: str, where: str, *, integer: bool = False) -> float:
    value = table[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or (integer and not isinstance(value, int)):
        raise InputError(f"{where}.{key}: expected a non-negative {'integer' if integer else 'number'}, got {value!r}")
    return value


def load_build_config(path: Path | None, base: BuildConfig | None = None,
                      **overrides: Any) -> tuple[BuildConfig, Rules | None]:
    """Read ``[groundeval]`` from a TOML file (every key optional, over ``base``); rules there replace the defaults."""
    base = base or BuildConfig()
    table: dict[str, Any] = {}
    where = "groundeval"
    if path is not None:
        data = read_toml(Path(path))
        table = data.get("groundeval", data)
        where = f"{path}: groundeval"
        if not isinstance(table, dict):
            raise InputError(f"{where}: expected a table [groundeval], got {table!r}")
    tracks = all_tracks()
    known = {"seed", "rules", "causal_links", "silence_pairs", *(t.name for t in tracks)}
    for key in table:
        if key not in known:
            raise InputError(f"{where}.{key}: unknown key (expected one of {', '.join(sorted(known))})")
    counts, ratios, hard = dict(base.counts), {t: dict(r) for t, r in base.ratios.items()}, dict(base.hard_share)
    for t in tracks:
        name = t.name
        if name not in table and name not in counts:
            continue            # a plugin's track the config does not name: not built
        section = table.get(name, {})
        if not isinstance(section, dict):
            raise InputError(f"{where}.{name}: expected a table")
        if name not in counts:  # a plugin's track the config names: its own defaults (a world's, for a world)
            own = world_config([t]) if base is WORLD_CONFIG else BuildConfig(
                counts={name: t.count}, ratios={name: dict(t.ratios)}, hard_share={name: 0.5})
            counts[name], ratios[name], hard[name] = own.counts[name], dict(own.ratios[name]), own.hard_share[name]
        for key in section:
            if key not in ("count", "hard", *t.kinds):
                raise InputError(f"{where}.{name}.{key}: unknown key")
        if "count" in section:
            counts[name] = int(_number(section, "count", f"{where}.{name}", integer=True))
        if "hard" in section:
            hard[name] = min(1.0, float(_number(section, "hard", f"{where}.{name}")))
        for kind in t.kinds:
            if kind in section:
                ratios.setdefault(name, {})[kind] = float(_number(section, kind, f"{where}.{name}"))
    seed = table.get("seed", base.seed)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise InputError(f"{where}.seed: expected an integer, got {seed!r}")
    seed = overrides.get("seed", seed)
    for name, count in overrides.get("counts", {}).items():
        counts[name] = count
    rules = None
    if "causal_links" in table or "silence_pairs" in table:
        from benchmark_builders.groundeval.domain_config import read_rules

        rules = read_rules(table, Path(path) if path else Path("<config>"))
    return replace(base, seed=seed, counts=counts, ratios=ratios, hard_share=hard), rules


def _note_on_stderr(line: str) -> None:
    print(line, file=sys.stderr)


def build_suite(out: Path, *, world_dir: Path | None = None, domain_dir: Path | None = None,
                config_path: Path | None = None, world: World | None = None, name: str | None = None,
                note: Callable[[str], None] | None = _note_on_stderr, allow_unknown_keys: bool = False,
                drop_unresolved_rules: bool = False, **overrides: Any) -> dict[str, int]:
    """Build and write a suite from a world directory, a GroundEval domain, or an in-memory World.

    When fewer questions were built than requested, ``note`` gets one line saying so (by default on stderr);
    with ``allow_unknown_keys`` an unknown domain-config key is a warning line there instead of an error, and
    with ``drop_unresolved_rules`` a rule whose path resolves for no event is left out with a warning line.
    """
    base = None
    if domain_dir is not None:
        from benchmark_builders.groundeval.importer import import_domain

        warn = note or _note_on_stderr
        world, rules, base = import_domain(Path(domain_dir), warn if allow_unknown_keys else None,
                                           warn if drop_unresolved_rules else None)
        name = name or f"domain:{Path(domain_dir).name}"
        source = {"domain": str(domain_dir)}
    else:
        if world is None:
            from simulator.world import load_world

            if world_dir is None:
                raise ValueError("build_suite needs a world_dir, a domain_dir or a world")
            world = load_world(Path(world_dir))
            source = {"world": str(world_dir)}
        else:
            source = {"world": name or "in-memory"}
        rules, base = WORLD_RULES, WORLD_CONFIG
        name = name or str(world.meta.get("name") or f"world-seed-{world.meta.get('seed', 0)}")
    config, config_rules = load_build_config(config_path, base, **overrides)
    if config_rules is not None:
        from benchmark_builders.groundeval.domain_config import check_rules

        view = WorldView(world, name)
        rules = check_rules(config_rules, view.events_by_type, view.subsystem_of,
                            note if drop_unresolved_rules else None)
    questions, summary = assemble_questions(world, rules, config, name)
    if not questions and summary.shortfalls():        # an empty suite would look finished and score nothing
        raise InputError(f"{next(iter(source.values()))}: no question could be built ({', '.join(summary.shortfalls())}):"
                         " not enough candidates in the source; nothing written")
    write_suite(Path(out), world, rules, config, questions, {**source, "name": name}, summary)
    line = summary.note()
    if line is not None and note is not None:
        note(line)
    counts: dict[str, int] = {}
    for q in questions:
        counts[q.contract.track] = counts.get(q.contract.track, 0) + 1
    return counts
