"""GroundEval track ``authorship``: "did PERSON write RECORD?", answered from the record's own page.

Kinds: ``author`` (the person wrote the record's first version: yes) and
``not_author`` (another person of the world: no). The asking actor is the
record's author, one day after writing it, so the record is in reach; the one
piece of evidence is that first version. bm25 (and every reading agent
without its own reading here) fetches the record and compares its author;
zero-shot says yes. S_answer is the verdict; S_traj is whether the record was
read (context mode: cited).
"""

from __future__ import annotations

import random
from datetime import timedelta
from pathlib import Path
from typing import Any

from benchmark_builders.groundeval.contracts import BuildConfig, Contract, Question, Rules, Truth, question_id
from benchmark_builders.groundeval.tracks import Track
from benchmark_builders.groundeval.worldview import WorldView, floor_minute
from judges.groundeval.track_behaviour import TrackBehaviour

NAME = "authorship"


def candidates(view: WorldView, rules: Rules, rng: random.Random, config: BuildConfig) -> list[Question]:
    """Questions about first versions their authors can still read a day later, half of them with another person."""
    people = sorted(a.actor_id for a in view.actors)
    firsts = sorted((v for v in view.world.artifacts if v.version == 1 and v.author in people),
                    key=lambda v: v.ref)
    rng.shuffle(firsts)
    out: list[Question] = []
    for index, version in enumerate(firsts[: 4 * max(1, int(config.counts.get(NAME, 0)))]):
        at = floor_minute(min(version.created_at + timedelta(days=1), view.end))
        if not view.policy.can_see(version.author, version, at):
            continue
        kind = "author" if index % 2 == 0 else "not_author"
        person = version.author if kind == "author" else rng.choice([p for p in people if p != version.author])
        subject = {"record": version.artifact_id, "person": person}
        qid = question_id(NAME, {"world": view.name, **subject})
        contract = Contract(qid, NAME, view.name, version.author, view.nearest_role(version.author, at),
                            view.readable_subsystems(version.author, at), at, "", subject)
        gold = {"wrote_it": kind == "author", "evidence_artifacts": [version.ref]}
        truth = Truth(qid, NAME, kind, "easy", gold, (version.ref,), (version.ref,), (), (), (), (), (),
                      f"{version.ref} was written by {version.author}")
        out.append(Question(contract, truth, dict(subject), version.kind))
    return out


def read_record(contract: Contract, reader: Any) -> dict[str, Any]:
    """Fetch the record and compare its author with the person asked about."""
    record = reader.fetch(contract.subject["record"])
    if record is None:
        return {"wrote_it": False, "evidence_artifacts": [], "reasoning": "could not read the record"}
    return {"wrote_it": record.get("author") == contract.subject["person"], "evidence_artifacts": [record["id"]],
            "reasoning": f"{record['id']} names its author"}


def say_yes(contract: Contract, reader: Any) -> dict[str, Any]:
    """zero-shot: people write what they are asked about."""
    return {"wrote_it": True, "evidence_artifacts": [], "reasoning": "it sounds like theirs"}


def score(reading: Any) -> tuple[float, dict[str, Any], float, dict[str, Any]]:
    """S_answer: the verdict; S_traj: the record read (and, in context mode, cited)."""
    seen = reading.tally.fetched & reading.cited if reading.context else reading.tally.fetched
    read = not reading.truth.required.isdisjoint(seen)
    return (float(reading.verdict_ok), {"verdict": reading.verdict_ok}, float(read), {"record_read": read})


BEHAVIOUR = TrackBehaviour(score=score, readings={"bm25": read_record, "zero-shot": say_yes})

AUTHORSHIP = Track(
    name=NAME, prefix="AUT", kinds=("author", "not_author"),
    answer_schema={"wrote_it": "bool", "evidence_artifacts": "[artifact id]", "reasoning": "str"},
    required=(("wrote_it", bool),), verdict="wrote_it", weights=(0.5, 0.5),
    count=6, ratios={"author": 0.5, "not_author": 0.5},
    candidates="orgbench_toys.track:candidates", behaviour="orgbench_toys.track:BEHAVIOUR",
    may_name={"author": ("record", "person"), "not_author": ("record", "person")},
    blank={"wrote_it": False}, templates=str(Path(__file__).with_name("templates")),
    summary="did this person write this record? (a toy plugin track)",
)
