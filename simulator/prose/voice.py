"""Who is speaking: a person's group, seniority and register, and the openings, hedges and sign-offs they use."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping, NamedTuple

from simulator.prose.domain import DEFAULT_WORDS
from simulator.prose.grammar import Grammar, Rng
from simulator.prose.almanac import ALMANAC, ALMANAC_MORE
from simulator.prose.asks import ASK_RULES, ASKS
from simulator.prose.culture import CULTURE, CULTURE_RULES
from simulator.prose.customer_words import CUSTOMER_POOLS
from simulator.prose.errands import ERRAND_RULES, ERRANDS
from simulator.prose.hobbies import HOBBIES, HOBBY_RULES
from simulator.prose.jargon import JARGON, JARGON_RULES
from simulator.prose.kinds import KIND_RULES, KINDS
from simulator.prose.life import LIFE, LIFE_RULES
from simulator.prose.nature import NATURE, NATURE_RULES
from simulator.prose.places import PLACE_RULES, PLACES
from simulator.prose.stories import STORIES, STORY_RULES
from simulator.prose.things import THING_RULES, THINGS
from simulator.prose.trivia import TRIVIA, TRIVIA_RULES
from simulator.prose.work import ANSWERS, GROUP, WORK


@dataclass(frozen=True)
class Speaker:
    """What the prose needs to know about a person: name, team, role, title."""

    name: str
    team: str
    role: str
    title: str

    @property
    def group(self) -> str:
        """The word group the person talks from (eng, sre, support, sales, legal, hr, lead)."""
        return GROUP.get(self.team, "lead")

    @property
    def senior(self) -> bool:
        """Managers, leads and executives."""
        return "manager" in self.role or self.role in ("executive", "lead") or "Head" in self.title

    @property
    def first(self) -> str:
        """The first name."""
        return self.name.split(" ")[0]


NOBODY = Speaker("", "", "", "")


class Thread(NamedTuple):
    """What a reply knows of the question it answers (a tuple: replies are many)."""

    message_id: str
    author: str
    topic: str
    seed: int
    channel: str
    team: str
    turn: int = 1
    answered: bool = True

VOICE = {
    "hello": ["[Morning|Hi all|Hey folks|Hi team|Afternoon all|Hello everyone|Quick one|Folks]"],
    "casual_open": ["[hey|hi|yo|morning|hiya|ok so|quick q|sorry to bother you|hey hey|afternoon]"],
    "hedge": ["[I think|as far as I know|if I read it right|from what I've seen|unless I'm missing something|"
              "I could be wrong, but|last I checked|from what I heard|if memory serves]"],
    "closer": ["[ping me if anything's unclear|shout if I missed something|more later|will update here|"
               "thanks all|cheers|happy to chat|let me know|no action needed|questions in thread please]"],
    "thanks_for": ["[the quick turnaround|covering for me|jumping on that call|the detailed notes|the patience "
                   "this week|the review|the coffee|the handover]"],
    "feeling": ["[Busy week|Long day|Good progress today|Quiet morning|Bit of a scramble|Steady so far|"
                "Productive afternoon|Slow start]"],
    "followup_ok": ["[thanks, that did it|perfect, thank you|great, appreciated|got it, cheers|makes sense, "
                    "thanks|brilliant, merging now|ah of course, thanks|that worked|lifesaver|sorted, thank you]"
                    "[|!| :)|, I owe you {craving}|, {closer}|, much appreciated| — all good now|, noted for next "
                    "time]"],
    "followup_not": ["[hmm, still seeing it|not quite, will dig more|tried that, no luck|ok, I'll try again "
                     "after lunch|that helps, though one part is still odd][|, {hedge} it's something else|. "
                     "Will report back| — any other ideas?]"],
    "answer_other": ["[No idea, sorry|Not my area, I'm afraid|Outside my patch|Wish I knew]"
                     "[, try the team channel|, {hedge} the team lead knows|, but I'll ask around|]"],
    "no_answer": ["[bumping this|anyone?|gentle nudge on this|still looking for help with this|no takers?]"
                  "[|, it's {quality} urgent| :)|, even a pointer helps]"],
}

_LEXICON = {**LIFE, **THINGS, **PLACES, **ERRANDS, **JARGON, **NATURE, **CULTURE, **TRIVIA, **STORIES, **ASKS,
            **HOBBIES, **KINDS}
for _name, _more in [*ALMANAC.items(), *ALMANAC_MORE.items()]:  # the almanac lengthens pools defined elsewhere
    _LEXICON[_name] = [*_LEXICON[_name], *_more]
GRAMMAR = Grammar({**_LEXICON, **WORK, **CUSTOMER_POOLS,
                   **VOICE, "life_things": THING_RULES + PLACE_RULES + ERRAND_RULES + NATURE_RULES + CULTURE_RULES
                   + TRIVIA_RULES + STORY_RULES + ASK_RULES + HOBBY_RULES + KIND_RULES,
                   **{f"{g}_jargon": r for g, r in JARGON_RULES.items()}, **{f"answer_{g}": r for g, r in ANSWERS.items()},
                   **{f"life_{k}": r for k, r in LIFE_RULES.items()}})


GRAMMAR.words = DEFAULT_WORDS


def speaker(cast: Mapping[str, Speaker], actor_id: Any, team: str | None = None) -> Speaker:
    """The speaker with this id (``NOBODY`` when unknown), in ``team`` if given (their team when they wrote)."""
    found = cast.get(actor_id, NOBODY) if actor_id else NOBODY
    if team and found.team != team:
        return replace(found, team=team)
    return found


def pick(rng: Rng, options: tuple | list) -> Any:
    """One of ``options``, drawn with ``rng``."""
    return options[int(rng.random() * len(options))]
