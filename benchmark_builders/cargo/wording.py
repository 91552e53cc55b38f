"""Wording: the seeded jinja2 phrasings that turn answers, references, contexts and questions into text.

Every family draws from the same answer variants and the same extra-detail
sentences, so no family has a phrasing of its own. Golden references are
written in one curated format (a resolved case and its numbered steps), as a
knowledge base of resolved cases would hold them.
"""

from __future__ import annotations

import random
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

import jinja2
import yaml

from benchmark_builders.cargo.answers import Answer, fact_label
from benchmark_builders.cargo.cases import SupportCase

TEMPLATES = Path(__file__).with_name("templates")
#: The answer phrasings every family draws from.
ANSWER_VARIANTS: tuple[str, ...] = ("numbered", "bullets", "prose_we", "steps", "prose_i", "email", "terse")


@lru_cache(maxsize=1)
def _env() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=False,
                             keep_trailing_newline=True, undefined=jinja2.StrictUndefined)
    env.filters["capfirst"] = lambda text: text[:1].upper() + text[1:]
    return env


@lru_cache(maxsize=1)
def phrases() -> Mapping[str, Any]:
    """The shared phrase lists: extras, symptoms per category, question openers and asks."""
    return yaml.safe_load((TEMPLATES / "phrases.yaml").read_text(encoding="utf-8"))


def display(value: str) -> str:
    """A fact value as written in text (enumerations with spaces, not underscores)."""
    return value.replace("_", " ") if value.replace("_", "").isalpha() else value


def _labelled(pairs) -> list[tuple[str, str]]:
    return [(fact_label(name), display(value)) for name, value in pairs]


def _answer_context(answer: Answer) -> dict[str, Any]:
    after: dict[int, list[str]] = {}
    for position, text in answer.extras:
        after.setdefault(position, []).append(text)
    steps = [{"action": s.action, "inputs": _labelled(s.inputs), "outputs": _labelled(s.outputs),
              "after": after.get(i + 1, [])} for i, s in enumerate(answer.steps) if s.done]
    next_steps = [{"action": s.action, "inputs": _labelled(s.inputs)} for s in answer.steps if not s.done]
    return {"h": {name: display(value) for name, value in answer.header}, "steps": steps,
            "next": next_steps, "before": after.get(0, [])}


def render_answer(answer: Answer, variant: str) -> str:
    """A candidate answer in one of the shared phrasings."""
    text = _env().get_template(f"answer_{variant}.j2").render(**_answer_context(answer))
    return text.strip() + "\n"


def render_reference(answer: Answer) -> str:
    """A golden reference in the curated knowledge-base format."""
    return _env().get_template("reference.j2").render(**_answer_context(answer)).strip() + "\n"


def render_context(case: SupportCase) -> str:
    """The live context: every fact recorded for the case, as the agent's tools show it."""
    facts = [(fact_label(name), display(case.facts[name])) for name in case.runbooks.facts if name in case.facts]
    if case.history is not None:
        facts.append(("Earlier cases of this account", ", ".join(f"{cid} (opened {day})" for cid, day in case.history)
                      or "none"))
    return _env().get_template("context.j2").render(case_id=case.case_id, facts=facts).strip() + "\n"


def render_question(case: SupportCase, rng: random.Random, near: bool = False) -> str:
    """The live question: a customer's report of the case's symptom, with its identifiers (``near``: a symptom of an
    out-of-scope runbook written to share vocabulary with in-scope ones)."""
    table = phrases()
    category = case.procedure.category
    written = table["symptoms_near" if near else "symptoms"].get(category)   # the default pack's categories
    symptom = rng.choice(written or [_sentence(s) for s in case.procedure.symptoms])
    return _env().get_template("question.j2").render(
        opener=rng.choice(table["openers"]), symptom=symptom,
        ask=rng.choice(table["asks_open" if case.is_open else "asks"]),
        case_id=case.case_id, account_name=case.facts["account_name"],
        account_id=case.facts["account_id"], asset_serial=case.facts.get("asset_serial"),
    ).strip()


def _sentence(text: str) -> str:
    """A pack's symptom ("our weekly payout never arrived") as a sentence of a question."""
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "?", "!")) else ".")


def extra_sentences(rng: random.Random, n_steps: int, count: int, closed: bool = False,
                    done: bool = True) -> tuple[tuple[int, str], ...]:
    """``count`` distinct benign extra-detail sentences, each placed after a random step.

    A sentence that mentions closing the case is used only for a case the live context shows closed, one that
    speaks of the work as finished ("how fast it went") only for a case whose steps are all done.
    """
    table = phrases()
    pool = table["extras"] + (table["extras_done"] if done else []) + (table["extras_closed"] if closed else [])
    texts = rng.sample(pool, k=count)
    return tuple(sorted((rng.randint(1, n_steps), text) for text in texts))
