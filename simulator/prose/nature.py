"""The outdoors and the body: landscapes, walks, weather words, colours, fabrics, aches, family occasions."""

from __future__ import annotations

from simulator.prose.life import _p

NATURE = {
    "landform": _p("""cliff|gorge|estuary|meadow|moor|heath|marsh|fen|bog|valley|ravine|canyon|plateau|
        summit|ridge|escarpment|headland|peninsula|cove|inlet|lagoon|reef|sandbank|shingle beach|
        rock pool|waterfall|rapids|weir|reservoir|lake|tarn|loch|pond|spring|brook|stream|creek|
        river mouth|delta|floodplain|woodland|copse|thicket|hedgerow|orchard|vineyard|paddock|
        pasture|field of barley|wheat field|dune|salt flat|glacier|crater|cave|grotto|quarry lake|
        viaduct|aqueduct|causeway|footbridge|stepping stones|stile|kissing gate|bridleway|towpath"""),
    "walk_word": _p("""rambled|trudged|strolled|hiked|scrambled|clambered|waded|paddled|jogged|sprinted|
        meandered|ambled|sauntered|marched|tiptoed|slithered|slipped|stumbled|hopped|wandered"""),
    "sky": _p("""drizzly|overcast|cloudless|misty|hazy|blustery|thundery|muggy|balmy|frosty|icy|
        slushy|sleety|stormy|showery|damp|dreary|glorious|mild|chilly|bitter|toasty|scorching"""),
    "colour": _p("""crimson|scarlet|maroon|burgundy|coral|salmon|peach|apricot|amber|mustard|ochre|
        lemon|lime|olive|emerald|jade|mint|teal|turquoise|aquamarine|cobalt|navy|indigo|violet|
        lilac|lavender|mauve|magenta|fuchsia|beige|taupe|khaki|charcoal|slate|ivory|cream"""),
    "fabric": _p("""wool|tweed|corduroy|denim|linen|silk|velvet|satin|chiffon|flannel|fleece|cashmere|
        mohair|canvas|suede|leather|cotton|polyester|nylon|lycra|gingham|tartan|paisley|houndstooth"""),
    "garment": _p("""jacket|blazer|hoodie|raincoat|anorak|poncho|jumpsuit|dungarees|trousers|shorts|
        skirt|dress|shirt|blouse|tie|bow tie|cap|hat|boots|brogues|loafers|socks|gloves|apron"""),
    "ache": _p("""a sprained ankle|a stiff neck|a sore throat|hay fever|a head cold|a pulled muscle|a
        bad back|a twisted knee|a blister the size of a coin|a migraine|a toothache|sunburn|a chesty
        cough|jet lag|a bruised elbow|tennis elbow|a sniffle|a cricked shoulder"""),
    "occasion": _p("""a christening|a graduation|a silver anniversary|a housewarming|a leaving do|a
        retirement party|a baby shower|an engagement party|a birthday barbecue|a funeral|a memorial|
        a reunion|a school play|a sports day|a bake-off|a carol concert|a bonfire night|a street
        party|a quiz night|a ceilidh|a bar mitzvah|a naming ceremony|a garden party|a prom"""),
    "relative": _p("""my sister|my brother|my cousin|my nephew|my niece|my grandmother|my grandfather|my
        aunt|my uncle|my flatmate|my neighbour|my partner|my godson|my goddaughter|my stepdad|my
        mother-in-law|my oldest friend|the twins"""),
}

NATURE_RULES = [
    "[We|I] {walk_word} [along|up|across|around] the {landform} [on Sunday|yesterday|at dawn]; {sky} but "
    "{quality}.",
    "[Bought|Knitted|Was given|Found] a {colour} {fabric} {garment} [for|at] {occasion}. [Verdict|Reviews]: "
    "{verdict}.",
    "[Nursing|Recovering from|Still feeling] {ache}[ after {activity}| from {occasion}|], so [slow replies|camera "
    "off|fewer stairs] today.",
    "{relative} [is visiting|had|is organising|invited us to] {occasion} [this weekend|next month|on Saturday]. "
    "[Wish me luck.|Much cake expected.|Outfit crisis.]",
    "[It was|Such a|A proper] {sky} [morning|walk in|commute] — [the|a] {landform} [looked|was] {quality}.",
]
