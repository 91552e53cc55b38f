"""Kinds of things people are particular about: dogs, trees, stones, drinks, countries, cars, buildings."""

from __future__ import annotations

from simulator.prose.life import _p

KINDS = {
    "breed": _p("""labrador|spaniel|terrier|beagle|dachshund|whippet|greyhound|lurcher|collie|sheepdog|
        poodle|schnauzer|pug|bulldog|boxer|rottweiler|dalmatian|husky|malamute|samoyed|corgi|chihuahua|
        retriever|setter|pointer|weimaraner|vizsla|basset|bloodhound|mastiff|newfoundland|akita|shiba"""),
    "tree": _p("""oak|ash|birch|beech|elm|alder|willow|poplar|aspen|hazel|hawthorn|blackthorn|rowan|yew|
        holly|juniper|larch|spruce|fir|cedar|cypress|sequoia|redwood|sycamore|maple|chestnut|walnut|
        linden|hornbeam|eucalyptus|baobab|mangrove|acacia|jacaranda"""),
    "stone": _p("""granite|basalt|marble|slate|limestone|sandstone|flint|chalk|quartz|obsidian|pumice|
        gneiss|schist|jasper|agate|amethyst|garnet|topaz|sapphire|opal|onyx|malachite|turquoise|jet|
        pyrite|mica|feldspar|gypsum|talc|fossilised ammonites"""),
    "drink": _p("""espresso|cortado|macchiato|flat white|cappuccino|americano|chai|matcha|rooibos|
        chamomile|peppermint tea|earl grey|oolong|kombucha|kefir|lemonade|ginger beer|elderflower
        cordial|cider|perry|stout|porter|lager|pilsner|ale|mead|sherry|port|vermouth|prosecco|
        champagne|rioja|malbec|merlot|chardonnay|riesling|sake|mojito|negroni|margarita|smoothie|
        milkshake|hot chocolate|horchata|lassi"""),
    "country": _p("""Portugal|Spain|France|Belgium|Netherlands|Germany|Austria|Switzerland|Italy|Greece|
        Croatia|Slovenia|Hungary|Poland|Czechia|Slovakia|Romania|Bulgaria|Estonia|Latvia|Lithuania|
        Finland|Sweden|Norway|Denmark|Iceland|Ireland|Scotland|Wales|Morocco|Tunisia|Egypt|Kenya|
        Tanzania|Ghana|Nigeria|Senegal|Namibia|Botswana|Canada|Mexico|Guatemala|Colombia|Peru|Chile|
        Argentina|Uruguay|Brazil|Japan|Korea|Vietnam|Thailand|Cambodia|Laos|Malaysia|Indonesia|
        Philippines|India|Nepal|Bhutan|Mongolia|Georgia|Armenia|Jordan|Oman|Australia|Tasmania"""),
    "car_part": _p("""gearbox|clutch|alternator|radiator hose|exhaust|catalytic converter|spark plugs|
        brake pads|wiper blades|windscreen|headlight|indicator|tyre|hubcap|suspension|shock absorber|
        fan belt|battery terminal|sunroof|tailgate|wing mirror|handbrake|dashboard|glovebox"""),
    "building_bit": _p("""gable|turret|dormer|skylight|porch|veranda|balcony|conservatory|utility room|
        pantry|larder|scullery|attic|cellar|staircase|banister|fireplace|mantelpiece|chimney|
        flagstones|parquet|cornice|architrave|lintel|sash window|bay window|archway|courtyard|cloister"""),
    "gerund": _p("""untangling|rearranging|alphabetising|defrosting|descaling|varnishing|polishing|
        scrubbing|hoovering|dusting|ironing|darning|patching|soldering|sharpening|unblocking|
        insulating|grouting|plastering|sanding|stencilling|framing|levelling|assembling|
        dismantling|labelling|cataloguing|repotting|pruning|mulching|harvesting|pickling|bottling|
        fermenting|marinating|simmering|braising|poaching|kneading|glazing|wrapping|rewiring|
        reinstalling|archiving|shredding|filing"""),
}

KIND_RULES = [
    "[We're getting|Considering|Dog-sitting] a {breed} [next month|this weekend|for a friend]. [Advice "
    "welcome.|Already in love.|The cat is unimpressed.]",
    "[The old|A huge|Our neighbour's] {tree} [came down in the storm|is finally in leaf|dropped a branch on "
    "the shed] [last night|this week].",
    "[Bought|Found|Was given] a {stone} [paperweight|pebble|coaster] [on holiday|at a market]. {adverb} "
    "{quality}.",
    "[Current order|Drink of the week|Trying to cut down on]: {drink}. [No regrets.|Judge me.|Recommend.]",
    "[Planning|Saving for|Just back from] [three weeks in|a fortnight in|a long trip to] {country}. "
    "[Itinerary tips?|Photos soon.|Already homesick for it.]",
    "[The garage says|Turns out] the [car needs|van needs] a new {car_part}. [Wallet crying.|Bus it is.|"
    "Again.]",
    "[Viewing a flat|House hunting|Renovating] — [fell for|worried about|arguing about] the {building_bit}.",
    "[Spent the evening|Weekend plan:] {gerund} {chore_thing}[. Thrilling.|. Oddly satisfying.|.]",
]
