"""Who is speaking: a person's group, seniority and register, and the openings, hedges and sign-offs they use."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Mapping

from simulator.prose.grammar import Grammar
from simulator.prose.life import LIFE, LIFE_RULES
from simulator.prose.places import PLACE_RULES, PLACES
from simulator.prose.things import THING_RULES, THINGS
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

VOICE = {
    "hello": ["[Morning|Hi all|Hey folks|Hi team|Afternoon all|Hello everyone|Quick one|Folks]"],
    "casual_open": ["[hey|hi|yo|morning|hiya|ok so|quick q|sorry to bother you|hey hey|afternoon]"],
    "hedge": ["[I think|as far as I know|if I read it right|from what I've seen|unless I'm missing something|"
              "I could be wrong, but|last I checked|from what I heard|if memory serves]"],
    "closer": ["[ping me if anything's unclear|shout if I missed something|more later|will update here|"
               "thanks all|cheers|happy to chat|let me know|no action needed|questions in thread please]"],
    "thanks_for": ["[the quick turnaround|covering for me|the help with {eng_thing}|jumping on that call|the "
                   "detailed notes|the patience this week|the review|sorting out {support_thing}|"
                   "the coffee|the handover]"],
    "feeling": ["[Busy week|Long day|Good progress today|Quiet morning|Bit of a scramble|Steady so far|"
                "Productive afternoon|Slow start]"],
    "followup_ok": ["[thanks, that did it|perfect, thank you|great, appreciated|got it, cheers|makes sense, "
                    "thanks|brilliant, merging now|ah of course, thanks|that worked|lifesaver|sorted, thank you]"
                    "[|!| :)|, I owe you {craving}|, {closer}|, much appreciated| — all good now|, noted for next "
                    "time]"],
    "followup_not": ["[hmm, still seeing it|not quite, will dig more|tried that, no luck|ok, I'll try again "
                     "after lunch|that helps, though one part is still odd][|, {hedge} it's something else|. "
                     "Will report back| — any other ideas?]"],
    "no_answer": ["[bumping this|anyone?|gentle nudge on this|still looking for help with this|no takers?]"
                  "[|, it's {quality} urgent| :)|, even a pointer helps]"],
}

GRAMMAR = Grammar({**LIFE, **THINGS, **PLACES, **WORK, **VOICE, "life_things": THING_RULES + PLACE_RULES, **{f"answer_{g}": r for g, r in ANSWERS.items()},
                   **{f"life_{k}": r for k, r in LIFE_RULES.items()}})


def speaker(cast: Mapping[str, Speaker], actor_id: Any) -> Speaker:
    """The speaker with this id (``NOBODY`` when unknown)."""
    return cast.get(actor_id, NOBODY) if actor_id else NOBODY


def pick(rng: random.Random, options: tuple | list) -> Any:
    """One of ``options``, drawn with ``rng``."""
    return options[int(rng.random() * len(options))]
