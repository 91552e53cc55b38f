"""Asking colleagues for recommendations: tradespeople, gadgets, holidays, gifts, and the reasons behind them."""

from __future__ import annotations

from simulator.prose.life import _p

ASKS = {
    "tradesperson": _p("""plumber|electrician|roofer|plasterer|tiler|glazier|locksmith|chimney sweep|tree
        surgeon|upholsterer|piano tuner|cobbler|tailor|seamstress|dog walker|childminder|cleaner|
        window cleaner|decorator|joiner|bricklayer|stonemason|landscaper|pest controller|
        accountant|solicitor|physiotherapist|osteopath|chiropodist|dentist|optician|hairdresser|
        barber|personal trainer|swimming coach|driving instructor|guitar teacher|language tutor|
        maths tutor|bike mechanic|computer repair shop|watch repairer|framer|engraver"""),
    "gift_for": _p("""a toddler who loves dinosaurs|a teenager obsessed with skateboarding|my dad who has
        everything|a colleague who is leaving for Canada|a friend who just ran a marathon|a neighbour
        who watered our plants|my grandmother's ninetieth|a newlywed couple|a keen birdwatcher|a
        budding astronomer|someone who hates clutter|a coffee snob|a gardener with no garden|a
        cyclist who already owns every gadget|a nervous first-time flyer"""),
    "gift_reason": _p("""budget is modest|it has to fit in hand luggage|it needs to arrive by Friday|they
        are allergic to nuts|they live in a tiny flat|they are trying to cut down on screen time|
        they are vegan|it should be handmade if possible|they collect vintage postcards"""),
    "gadget": _p("""noise-cancelling headphones|an e-reader|a robot vacuum|a smart thermostat|a
        dehumidifier|an air fryer|a sous vide stick|a label printer|a portable projector|a handheld
        console|a fitness tracker|a bread machine|an electric toothbrush|a dash cam|a drawing tablet|
        a mechanical keyboard|a stand mixer|a pizza oven|a bird camera|a rice cooker|a weather
        station|a cordless drill|a pressure washer|a heated blanket|an ice cream maker"""),
}

ASK_RULES = [
    "[Can anyone recommend|Does anyone know] a [good|reliable|reasonable] {tradesperson} [nearby|near the "
    "office|who does weekends]? [Ours retired.|Asking urgently.|Last one vanished mid-job.]",
    "[Gift ideas|Present suggestions|Help] for {gift_for}? [The catch:|Constraint:|Note:] {gift_reason}.",
    "[Thinking of buying|Anyone regret buying|Is it worth getting] {gadget}? [Convince me.|Reviews are "
    "mixed.|On offer this week.]",
]
