"""How people's hobbies are going, in each hobby's own words: running, gardening, music, building, sailing."""

from __future__ import annotations

from simulator.prose.life import _p

HOBBIES = {
    "progress": _p("""shaved forty seconds off my parkrun with negative splits|finally nailed the tempo
        intervals my coach set|my seedlings survived their first night in the cold frame|the compost
        heap is steaming, which apparently means it's working|I can play the whole prelude without
        stopping, slowly|the kiln firing cracked two bowls but the glaze on the third is gorgeous|my
        sourdough starter has a name now and a better social life than me|we moored the dinghy without
        hitting anything for once|the model railway now has a working level crossing and a tiny
        signal box|my watercolour skies stopped looking like puddles|the hedge is trimmed and the
        neighbours approve|my deadlift finally matched my bodyweight|the quilt has all twelve blocks
        pieced together|I learned to splice rope, which feels like a superpower|the telescope
        resolved Saturn's rings last night|my crossword time dropped under twenty minutes|the
        birdhouse has tenants, two blue tits|the choir let me sing the descant|my French tutor said my
        subjunctive is improving|the chess club ladder has me in the top ten|I harvested enough
        courgettes to feed the street|our pond has frogspawn|the bike wheel is trued and no longer
        wobbles|I glazed, grouted and sealed the splashback myself|my knitting tension is finally even|
        the bonsai put out new buds after I nearly killed it|I baked a croquembouche and it stood up|my
        language app streak passed three hundred days|the drone footage of the estuary came out
        beautifully|I can juggle five balls, briefly|my pickled beetroot won second prize at the
        village show|we finished the thousand-piece puzzle of the night sky|I rebuilt the carburettor
        and the motorbike started first time"""),
    "setback": _p("""the slugs ate every lettuce overnight|I dropped a stitch forty rows back|the cake sank
        in the middle like a crater|the kite is stuck in an oak tree|my tent pole snapped in the wind|the
        varnish bubbled in the heat|I tuned the guitar so hard a string snapped|the paint colour looks
        nothing like the sample|the bread came out dense enough to build with|I pulled a calf muscle on
        the hill repeats|the dog ate the jigsaw's corner piece|my seedlings were all eaten by mice"""),
}

HOBBY_RULES = [
    "[Small win|Hobby update|Personal best|Progress report]: {progress}.",
    "[Small setback|Minor disaster|Hobby news, sadly]: {setback}. [Starting again.|Lesson learned.|"
    "Undeterred.]",
]
