"""A second, separate truth check for suites built from GroundEval-format domains.

It reads the domain's own files (config.yaml, events.jsonl, artifacts/) and a
built suite's contracts and truth, recomputes every gold verdict from the
domain alone and lists the questions whose gold disagrees. It imports nothing
from orgbench: its reading of the format is written here from the format's
description, not from the builder.

    python tests/benchmark_builders/groundeval/truth_recheck.py DOMAIN SUITE
"""

from __future__ import annotations

import json
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import yaml


def instant(text: str) -> datetime:
    """An ISO time as an aware instant (no zone: UTC)."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


class Domain:
    """The raw domain: config, events in time order, artifacts with subsystem and creation time."""

    def __init__(self, root: Path) -> None:
        self.config = yaml.safe_load((root / "config.yaml").read_text(encoding="utf-8"))
        events_path = root / self.config.get("events_file", "events.jsonl")
        rows = [json.loads(line) for line in events_path.read_text(encoding="utf-8").splitlines() if line.strip()]
        for n, row in enumerate(rows):
            row["_at"], row["_n"] = instant(row["timestamp"]), n
        self.events = sorted(rows, key=lambda r: (r["_at"], r["_n"]))
        self.by_id = {e["id"]: e for e in self.events}
        self.artifacts: dict[str, dict[str, Any]] = {}
        for path in sorted((root / self.config.get("artifacts_dir", "artifacts")).glob("*/*.json")):
            obj = json.loads(path.read_text(encoding="utf-8"))
            stamp = obj.get("timestamp", obj.get("created_at", obj.get("date")))
            own = {k: v for k, v in obj.items()
                   if k not in ("id", "subsystem", "title", "body", "facts", "author", "timestamp", "created_at", "date")}
            own.update(obj.get("facts") or {})
            self.artifacts[obj.get("id", path.stem)] = {"subsystem": path.parent.name, "at": instant(stamp), "own": own}
        roles = self.config["roles"]
        self.reads = {a: set(roles[r].get("subsystems") or []) for a, r in self.config["actors"].items()}
        self.log_policy = self.config.get("use_event_log_policy", True)
        self.broadcast: dict[str, set[str]] = {}
        for actor, role in self.config["actors"].items():
            for kind in roles[role].get("broadcast_event_types") or []:
                self.broadcast.setdefault(kind, set()).add(actor)

    # -- paths ---------------------------------------------------------------------------------

    def ids_of(self, event: dict[str, Any], subsystem: str | None = None) -> list[str]:
        """The artifact ids an event lists (in one subsystem, or all)."""
        out = []
        for sub, value in sorted((event.get("artifact_ids") or {}).items()):
            if subsystem is None or sub == subsystem:
                out += value if isinstance(value, list) else [value]
        return out

    def values(self, event: dict[str, Any], path: str) -> set[str]:
        """A path's values on the raw record (a bare name that is no record field is a fact)."""
        if path in ("id", "type", "timestamp", "actors"):
            raw: Any = event.get(path)
        elif "." not in path:
            raw = (event.get("facts") or {}).get(path)
        else:
            raw = event
            for part in path.split("."):
                raw = raw.get(part) if isinstance(raw, dict) else None
        items = raw if isinstance(raw, list) else [raw]
        return {x if isinstance(x, str) else json.dumps(x) for x in items if x not in (None, "")}

    def joins(self, join: list[dict[str, str]], left: dict[str, Any], right: dict[str, Any]) -> bool:
        """Every join pair shares a value (no pairs: true)."""
        return all(self.values(left, j.get("cause", j.get("trigger")))
                   & self.values(right, j.get("effect", j.get("response"))) for j in join or [])

    # -- artifact states -----------------------------------------------------------------------

    def states(self, artifact_id: str) -> list[tuple[datetime, dict[str, Any], set[str]]]:
        """(time, facts, people who may see it by taking part) at creation and after each moment that lists it."""
        art = self.artifacts[artifact_id]
        listing = [e for e in self.events if artifact_id in self.ids_of(e)]
        facts: dict[str, Any] = {}
        people: set[str] = set()

        def absorb(event: dict[str, Any]) -> None:
            facts.update(event.get("facts") or {})
            if self.log_policy:
                people.update(event.get("actors") or [])
                people.update(self.broadcast.get(event["type"], set()))

        for event in listing:
            if event["_at"] <= art["at"]:
                absorb(event)
        facts.update(art["own"])
        out = [(art["at"], dict(facts), set(people))]
        later = [e for e in listing if e["_at"] > art["at"]]
        for i, event in enumerate(later):
            absorb(event)
            if i + 1 < len(later) and later[i + 1]["_at"] == event["_at"]:
                continue                                   # one state per moment
            out.append((event["_at"], dict(facts), set(people)))
        return out


def gap_of(rule: dict[str, Any]) -> timedelta | None:
    if rule.get("max_gap_days") is not None:
        return timedelta(days=float(rule["max_gap_days"]))
    if rule.get("max_gap_hours") is not None:
        return timedelta(hours=float(rule["max_gap_hours"]))
    return None


def passes(domain: Domain, rule: dict[str, Any], event: dict[str, Any]) -> bool:
    if "match_field" not in rule:
        return True
    want = rule["match_value"] if isinstance(rule["match_value"], str) else json.dumps(rule["match_value"])
    return want in domain.values(event, rule["match_field"])


def linked(domain: Domain, cause: dict[str, Any], effect: dict[str, Any]) -> list[dict[str, Any]]:
    """The causal links of the config that connect these two events."""
    out = []
    for rule in domain.config.get("causal_links") or []:
        gap = gap_of(rule)
        if (rule["cause_event_type"] == cause["type"] and rule["effect_event_type"] == effect["type"]
                and cause["_at"] < effect["_at"] and (gap is None or effect["_at"] - cause["_at"] <= gap)
                and passes(domain, rule, cause) and domain.joins(rule.get("join"), cause, effect)):
            out.append(rule)
    return out


def responded(domain: Domain, trigger: dict[str, Any], response_label: str, as_of: datetime) -> bool | None:
    """Whether a joined response followed the trigger by ``as_of`` within its gap (None: no pair fits)."""
    answers = []
    for rule in domain.config.get("silence_pairs") or []:
        label = rule.get("response_label") or "a " + rule["response_event_type"].replace("_", " ")
        if rule["trigger_event_type"] != trigger["type"] or label != response_label:
            continue
        gap = gap_of(rule)
        end = as_of if gap is None else min(as_of, trigger["_at"] + gap)
        answers.append(any(e["type"] == rule["response_event_type"] and trigger["_at"] < e["_at"] <= end
                           and domain.joins(rule.get("join"), trigger, e) for e in domain.events))
    return None if not answers else any(answers)


def could_know(domain: Domain, event: dict[str, Any], key: str, value: str, actor: str, as_of: datetime) -> bool:
    """Could the actor, at ``as_of``, see an artifact state that records this event's ``key = value``?"""
    for artifact_id in domain.ids_of(event):
        art = domain.artifacts[artifact_id]
        reached = max(event["_at"], art["at"])
        run = [s for s in domain.states(artifact_id) if s[0] >= reached]
        for at, facts, people in run:
            said = facts.get(key)
            if said is None or isinstance(said, bool) or str(said) != value:
                break                                       # the event's value no longer holds
            if at <= as_of and (art["subsystem"] in domain.reads.get(actor, set()) or actor in people):
                return True
    return False


def disagreements(domain_dir: Path, suite_dir: Path) -> tuple[list[str], dict[str, int]]:
    """Question ids whose gold disagrees with the domain, and the questions checked per track/kind."""
    domain = Domain(Path(domain_dir))
    contracts = {c["question_id"]: c for c in map(json.loads, (suite_dir / "contracts.jsonl").read_text().splitlines())}
    wrong: list[str] = []
    checked: dict[str, int] = {}
    for truth in map(json.loads, (suite_dir / "truth.jsonl").read_text().splitlines()):
        c, gold = contracts[truth["question_id"]], truth["gold"]
        checked[f"{truth['track']} {truth['kind']}"] = checked.get(f"{truth['track']} {truth['kind']}", 0) + 1
        as_of = instant(c["as_of"])
        if truth["track"] == "counterfactual":
            cause, effect = domain.by_id[gold["cause_event_id"]], domain.by_id[gold["effect_event_id"]]
            links = linked(domain, cause, effect)
            expect_changed = bool(links) and any(r.get("outcome_changed", True) for r in links)
            ok = (gold["mechanism_direction"] == ("cause_to_effect" if links else "no_causal_link")
                  and gold["outcome_changed"] == expect_changed
                  and (not links or gold["causal_mechanism"] in [r["name"] for r in links] or any(r.get("mechanism_fact") for r in links)))
        elif truth["track"] == "silence":
            ok = responded(domain, domain.by_id[c["subject"]["trigger_event_id"]], c["subject"]["response"], as_of) is gold["exists"]
        else:
            s = c["subject"]
            event = domain.by_id[s["entity"]["id"]]
            ok = (str((event.get("facts") or {}).get(s["fact"])) == s["value"]
                  and could_know(domain, event, s["fact"], s["value"], c["actor"], as_of) is gold["could_actor_have_known"])
        if not ok:
            wrong.append(truth["question_id"])
    return wrong, checked


if __name__ == "__main__":
    bad, seen = disagreements(Path(sys.argv[1]), Path(sys.argv[2]))
    print(json.dumps({"checked": dict(sorted(seen.items())), "questions": sum(seen.values()), "disagreeing": len(bad),
                      "ids": bad}, indent=1))
    sys.exit(1 if bad else 0)
