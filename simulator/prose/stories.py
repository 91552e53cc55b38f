"""Local news, advice and little stories people tell each other, for the small-talk grammar."""

from __future__ import annotations

from simulator.prose.life import _p

STORIES = {
    "local_news": _p("""the council finally approved the new cycle path by the river|the bakery on the
        high street won a national award for its rye loaf|someone parked a combine harvester outside the
        station|the old cinema is reopening as a community theatre|a peregrine falcon is nesting on the
        cathedral spire|the roadworks on the ring road are delayed until autumn|a sinkhole swallowed half
        a car park near the stadium|the library is hosting a repair cafe every second Saturday|the
        swimming baths are closing for refurbishment|a pop-up market now runs under the railway arches|
        the tram extension opened three months early|a film crew closed the bridge for a chase scene|
        the allotment society is auctioning a giant marrow|an escaped emu was spotted on the bypass|the
        museum unearthed a Roman mosaic during building works|the ferry timetable changed without
        warning|a mural of the town's founders appeared overnight|the primary school choir made the
        regional finals|a beaver family has dammed the brook behind the industrial estate|the lido is
        offering free sunrise swims|the post office is moving into the newsagent's|the clock tower chimes
        thirteen times at noon after a maintenance mishap"""),
    "advice": _p("""always label the cables before you unplug anything|never trust a printer that says it is
        ready|write the handover note before you are tired|drink water before the second coffee|block
        an hour on Friday for admin or it never happens|keep a spare charger in your bag|batch your
        email twice a day|take the stairs, the lift is slower anyway|put the meeting agenda in the
        invite|say no to one thing each week|read the error message twice before searching it|tidy the
        desk before you leave and thank yourself tomorrow|carry an umbrella if the forecast says
        twenty percent|rename the file before you send it, not after|lunch away from the screen counts
        as a real break"""),
    "recipe_step": _p("""toast the spices until fragrant|caramelise the onions slowly|deglaze the pan
        with a splash of wine|fold in the egg whites gently|rest the dough overnight in the fridge|
        blanch the greens then plunge them into iced water|score the skin and rub in salt|baste every
        twenty minutes|grate the zest before juicing|sieve the flour twice|whisk until stiff peaks
        form|simmer until the sauce coats a spoon|char the peppers over an open flame|crush the garlic
        with the flat of the knife|season at the end, not the start"""),
}

STORY_RULES = [
    "[Local news|Meanwhile in town|Overheard on the bus|Big news round here]: {local_news}.",
    "[Best advice I got this week|Tip of the day|Learned the hard way|Reminder to self]: {advice}.",
    "[Cooking tip|Kitchen wisdom|Secret to the {dish}]: {recipe_step}. [Trust me.|Game changer.|Thank me "
    "later.]",
]
