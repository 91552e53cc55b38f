"""Judge conditions: what a judge is shown, how it is framed, and the request it renders to.

A condition decides exactly which of an item's inputs reach the judge
(question, live context, reference, candidate), which framing prompt and which
rubric frame them, and which claim statuses it may use. ``render`` turns an item
(a row of a suite's ``items.jsonl``) into a JudgeRequest; nothing else about the
item — and nothing of its truth — can reach the request.

The eight conditions of CARGO.md, the ``cargo+kinds`` variant and the rubric-swap control (prompt ∈
{direct, cargo} × rubric ∈ {golden-ref, ctx-grounded}; both show the
reference and the live context) are defined here as data.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from orgbench.core.errors import InputError

if TYPE_CHECKING:
    import jinja2

    from judges.backends.base import JudgeRequest

PROMPTS = Path(__file__).with_name("prompts")
THREE_WAY = ("supported", "contradicted", "unverifiable")
TWO_WAY = ("supported", "contradicted")
ITEM_FIELDS = ("item_id", "question", "live_context", "reference", "candidate")


@dataclass(frozen=True, slots=True)
class Condition:
    """One way of showing an item to a judge."""

    name: str
    template: str                  # framing prompt in judges/prompts/
    shows_reference: bool
    shows_context: bool
    rubric: str                    # golden-ref | ctx-grounded | standalone
    statuses: tuple[str, ...] = THREE_WAY
    reference_heading: str = "Reference (resolved example)"


_ANSWER = "Reference answer"


#: The eight conditions of the paper. Each ablation differs from ``cargo`` in one thing only
#: (tests/judges/test_prompt_diffs.py diffs every pair of rendered prompts).
CONDITIONS: dict[str, Condition] = {c.name: c for c in (
    Condition("noref", "noref.j2", False, False, "standalone"),
    Condition("direct", "direct.j2", True, False, "golden-ref", reference_heading=_ANSWER),
    Condition("direct+ctx", "direct.j2", True, True, "golden-ref", reference_heading=_ANSWER),
    Condition("cargo", "cargo.j2", True, True, "ctx-grounded"),
    Condition("cargo+auth", "cargo_auth.j2", True, True, "ctx-grounded"),
    Condition("cargo-ctx", "cargo.j2", True, False, "ctx-grounded"),
    Condition("cargo-exemplar", "cargo_exemplar.j2", True, True, "ctx-grounded"),
    Condition("cargo-unv", "cargo.j2", True, True, "ctx-grounded", statuses=TWO_WAY),
)}
#: Variants beyond the paper: ``cargo+kinds`` is cargo naming the suite's four procedural-corruption kinds
#: (teaching to the test, kept apart so that it is never mistaken for the paper's framing).
VARIANTS: dict[str, Condition] = {c.name: c for c in (
    Condition("cargo+kinds", "cargo_kinds.j2", True, True, "ctx-grounded"),
)}
#: The rubric-swap control: prompt × rubric, each showing reference and live context.
RUBRIC_SWAP: dict[str, Condition] = {c.name: c for c in (
    Condition("direct/golden-ref", "direct.j2", True, True, "golden-ref", reference_heading=_ANSWER),
    Condition("direct/ctx-grounded", "direct.j2", True, True, "ctx-grounded", reference_heading=_ANSWER),
    Condition("cargo/golden-ref", "cargo.j2", True, True, "golden-ref"),
    Condition("cargo/ctx-grounded", "cargo.j2", True, True, "ctx-grounded"),
)}
ALL_CONDITIONS: dict[str, Condition] = {**CONDITIONS, **VARIANTS, **RUBRIC_SWAP}


@lru_cache(maxsize=1)
def _env() -> "jinja2.Environment":
    import jinja2      # only when a prompt is first rendered: listing conditions needs no templates

    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(PROMPTS)), autoescape=False,
                              keep_trailing_newline=True, undefined=jinja2.StrictUndefined)


def condition(name: str) -> Condition:
    """The condition with this name (InputError listing the known names otherwise)."""
    try:
        return ALL_CONDITIONS[name]
    except KeyError:
        raise InputError(f"--conditions: unknown condition {name!r}; known: {', '.join(ALL_CONDITIONS)}") from None


#: Names a run may record for a group of conditions (run.json's ``parameters.conditions``), and the group.
GROUPS: dict[str, tuple[Condition, ...]] = {"all": tuple(CONDITIONS.values()), "rubric-swap": tuple(RUBRIC_SWAP.values())}


def expand_conditions(names: list[str] | tuple[str, ...]) -> list[Condition]:
    """The conditions a list of condition and group names stands for, each once, in order ("all": the eight,
    "rubric-swap": its four)."""
    chosen: list[Condition] = []
    for name in names:
        chosen += [c for c in GROUPS.get(name) or (condition(name),) if c not in chosen]
    return chosen


def parse_conditions(text: str | None, *, rubric_swap: bool = False) -> list[Condition]:
    """Conditions from a comma-separated list (None or "all": the eight), plus the rubric swap if asked."""
    names = list(CONDITIONS) if text in (None, "", "all") else [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise InputError(f"--conditions: no condition named in {text!r}; use all or e.g. direct,cargo")
    twice = next((n for i, n in enumerate(names) if n in names[:i]), None)
    if twice is not None:
        raise InputError(f"--conditions: {twice} named twice in {text!r}; name each condition once")
    chosen = [condition(n) for n in names]
    if rubric_swap:
        chosen += [c for c in RUBRIC_SWAP.values() if c not in chosen]
    return chosen


@lru_cache(maxsize=None)
def system_prompt(cond: Condition) -> str:
    """The framing, rubric and output instructions of a condition."""
    fact_source = "the live context" if cond.shows_context else "the facts given in the question"
    text = _env().get_template(cond.template).render(rubric=cond.rubric, statuses=cond.statuses,
                                                     fact_source=fact_source)
    return _tidy(text)


def _tidy(text: str) -> str:
    lines = [line.rstrip() for line in text.strip().splitlines()]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out) + "\n"


def user_prompt(cond: Condition, item: Mapping[str, str]) -> str:
    """The inputs the condition shows, as sections of one message."""
    return _tidy(_env().get_template("_input.j2").render(
        question=item["question"].strip(),
        context=item["live_context"].strip() if cond.shows_context else "",
        reference=item["reference"].strip() if cond.shows_reference else "",
        reference_heading=cond.reference_heading,
        candidate=item["candidate"].strip(),
    ))


def check_item(item: Mapping[str, str]) -> None:
    """InputError naming the item and field when ``item`` lacks a text field that a prompt shows."""
    missing = [f for f in ITEM_FIELDS if not isinstance(item.get(f), str)]
    if missing:
        raise InputError(f"item {item.get('item_id', '?')}: missing or non-text field {missing[0]}")


def render(cond: Condition, item: Mapping[str, str], seed: int, *, temperature: float = 0.0,
           max_tokens: int | None = None) -> JudgeRequest:
    """The request a judge receives for ``item`` under ``cond`` with judge seed ``seed``."""
    from judges.backends.base import GenerationParams, JudgeRequest, Message    # here: listing conditions needs none

    check_item(item)
    return JudgeRequest(
        messages=(Message("system", system_prompt(cond)), Message("user", user_prompt(cond, item))),
        params=GenerationParams(temperature=temperature, max_tokens=max_tokens, seed=seed),
    )
