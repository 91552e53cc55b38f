"""Words for life outside work: what people did at the weekend, ate, read, watched, fixed at home, played."""

from __future__ import annotations


def _p(text: str) -> list[str]:
    """Rules separated by ``|`` outside brackets, with line breaks and indentation folded to single spaces."""
    items: list[str] = []
    depth = 0
    current: list[str] = []
    for char in " ".join(text.split()):
        depth += (char == "[") - (char == "]")
        if char == "|" and depth == 0:
            items.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    items.append("".join(current).strip())
    return [item for item in items if item]


LIFE = {
    "dish": _p("""a mushroom risotto|lamb tagine with apricots|a lentil dal|shakshuka|a spinach and feta pie|pho with
        extra basil|a ramen place that does a miso broth|homemade gnocchi|a chickpea curry|fish tacos|a beetroot
        salad|roast cauliflower with tahini|banana bread|sourdough that finally rose|a quiche with leeks|paella|
        pulled pork sliders|a vegetable lasagne|butternut squash soup|pad thai|dumplings from scratch|a cheese
        fondue|stuffed peppers|a plum crumble|lemon drizzle cake|blueberry pancakes|a Sunday roast|grilled
        halloumi|mackerel with rhubarb|an aubergine parmigiana|a tofu stir fry|chilli con carne|a pumpkin pie|
        cinnamon buns|a carrot cake|burritos the size of my arm|hand-pulled noodles|a Caesar salad|ceviche|
        falafel wraps|goulash|a pear and walnut tart|scones with clotted cream|an omelette with chives|
        ratatouille|a fennel and orange salad|brisket that smoked for twelve hours|empanadas|a pistachio gelato|
        dim sum|jollof rice|a kimchi fried rice|moussaka|sushi rolls|barbecued sweetcorn|gazpacho|a tiramisu|
        waffles with strawberries|a ginger and garlic broccoli|biryani|pierogi|a wild garlic pesto|croissants|
        a clam chowder|flatbreads with za'atar|a sticky toffee pudding|baklava|churros"""),
    "place": _p("""the coast|my in-laws' place|a cabin near the lake|the farmers' market|a tiny museum of maps|the
        botanical gardens|an old lighthouse|the climbing wall|a vineyard|the aquarium|a flea market|the new
        library|a castle ruin|the seaside pier|a cider festival|the science centre|a jazz bar|the zoo|the
        allotment|a pottery studio|the observatory|a hiking trail up the ridge|the national park|a waterfall|
        the old quarter|a food hall|the harbour|a lavender farm|an island ferry|the cathedral|a bookshop cafe|
        the ice rink|a country fair|the dunes|a canal towpath|the wetlands reserve|a craft brewery|the velodrome|
        a street food night|a bonsai exhibition|the planetarium|a second-hand record shop|a crowded stadium|
        the riverside|a mountain hut|the orchard|a cheese shop|a glassblowing workshop|a theatre matinee|
        the open-air pool|a sculpture park|a windmill|the marina|an antiques fair|a comedy club|the forest"""),
    "did": _p("""went to|spent the day at|finally visited|took the kids to|dragged my partner to|cycled out to|
        drove up to|wandered around|queued for an hour at|ended up at|had a picnic at|got rained out at|
        walked the dog around|volunteered at|stumbled on"""),
    "activity": _p("""repainting the hallway|assembling a wardrobe that came with the wrong screws|a half
        marathon|learning to knit|reorganising the garage|a board game marathon|building a bird box|
        re-potting every plant in the flat|a first attempt at surfing|fixing a leaky tap|sanding down an old
        table|a long swim in freezing water|pruning the roses|learning chords on the ukulele|sorting the
        loft|a pub quiz (we came third)|birdwatching|clearing gutters|a pottery class|stargazing|baking for a
        school fundraiser|a yoga retreat|orienteering|a chess tournament|geocaching|wallpapering|weeding|
        an escape room|kayaking|paddleboarding|tiling the bathroom|jigsaw puzzles|a bouldering session|
        foraging for mushrooms with a guide|a sketching class|restoring a bicycle|woodworking|brewing kombucha|
        a charity bake sale|decluttering|landscaping the front garden|rewiring a lamp|learning calligraphy|
        beekeeping|a tennis tournament|skating|sewing curtains|a family reunion|moving house|a wedding"""),
    "show": _p("""a documentary about octopuses|that heist series everyone mentions|an old western|a
        baking competition|a detective drama set in Iceland|a nature series narrated by someone very
        calm|a sitcom from the nineties|a courtroom thriller|a cooking show|a space opera|a historical
        drama|a mockumentary|a horror anthology|a spy thriller|an animated film about a robot|a romantic
        comedy|a biopic about a chess champion|a survival show|a quiz programme|a miniseries about a
        shipwreck|a costume drama|a stand-up special|a musical|a film about mountaineers|a crime podcast|
        a podcast about urban planning|a history podcast|a podcast on philosophy|an audiobook on
        economics"""),
    "book": _p("""a novel about a lighthouse keeper|a memoir by a chef|a biography of a physicist|a
        collection of short stories|a thriller set on a train|a history of the printing press|a book on
        negotiation|a fantasy trilogy|a graphic novel|a travel diary from Patagonia|a poetry anthology|a
        book about sleep|a cookbook from Lebanon|a mystery with too many twists|a book about habits|an
        essay collection|a classic I should have read at school|a book on architecture|a science fiction
        epic|a guide to birdsong|a book about forests|a satire about consultants"""),
    "pet": _p("""the dog|our cat|the puppy|my parrot|the rabbit|the kitten|our tortoise|the hamster|my
        neighbour's goat|the guinea pigs|our ancient labrador|the goldfish"""),
    "pet_did": _p("""ate a sock|learned to open the fridge|refused to go outside in the rain|chased a
        squirrel into the pond|slept through a thunderstorm|knocked a mug off my desk mid-call|found a
        way onto the roof|made friends with a hedgehog|stole half a sandwich|graduated from puppy
        school|escaped under the fence|chewed through a charger cable"""),
    "weather": _p("""glorious sunshine|sideways drizzle|a proper thunderstorm|fog all morning|hail out of
        nowhere|a heatwave|a hard frost|gale-force wind|snow that melted by lunch|grey skies|a rainbow
        over the office|humidity like a sauna|sleet|a lovely crisp morning|freezing rain"""),
    "sport": _p("""the derby|the cricket|the cup final|the rugby|the grand prix|the tennis final|the
        snooker|the cycling stage|the basketball play-offs|the hockey|the marathon|the darts|the golf|the
        baseball|the regatta|the volleyball|the athletics|the swimming finals"""),
    "verdict": _p("""brilliant|surprisingly good|a bit disappointing|exhausting but worth it|hilarious|
        chaotic|lovely|underwhelming|excellent|oddly relaxing|much harder than it looks|delightful|
        completely bonkers|magnificent|unforgettable|overrated|charming|gripping|muddy|peaceful|
        tremendous fun"""),
    "music": _p("""a folk band|an orchestra playing film scores|a drum and bass night|a string quartet|a
        choir concert|a tribute act|a jazz trio|an opera|a punk gig in a tiny basement|a brass band|a
        flamenco guitarist|a piano recital|an indie festival|a reggae sound system|a blues singer"""),
    "craving": _p("""coffee|a croissant|noodles|something spicy|soup|a proper lunch|cake|ice cream|a
        salad|dumplings|a burrito|fresh air|a nap|a biscuit|tea"""),
}

LIFE_RULES = {
    "weekend": [
        "[Weekend report|Weekend update|Quick weekend recap]: {did} {place}, [it was|which was] {verdict}.",
        "[Spent|Lost] [most of|all of|half of] Sunday [to|on] {activity}. [Verdict|Result]: {verdict}.",
        "[Anyone else|Did anyone else] [watch|catch] {sport} [last night|at the weekend]? [What a finish|Unreal|"
        "I'm still recovering|Heartbreaking|Fantastic game].",
        "Made {dish} [for the first time|again|for friends] [this weekend|last night] — {verdict}.",
        "[Finished|Started|Halfway through] {book}. [Recommend|Would recommend|Not sure yet, ask me next week|"
        "Happy to lend it].",
        "[We watched|Binged|Fell asleep during] {show}. {verdict}, [honestly|I think|to be fair].",
        "{pet} {pet_did} [this morning|last night|on Saturday]. [Send help|Never a dull moment|Classic|"
        "No regrets].",
        "[Saw|Caught] {music} [on Friday|at the weekend|last night]. {verdict}.",
        "[Week off next week|Off on Friday|Back Monday]: {did} {place}. [Any tips?|Recommendations welcome.|"
        "Fingers crossed for the weather.]",
        "[Tried|Recommend|Avoid] [the new place|the stall|the cafe] near the office — {dish}, {verdict}.",
        "[It's|Currently] {weather} [out there|here|at home]. [Stay dry|Stay safe|Bring a coat|Perfect for "
        "a walk at lunch].",
        "[Is it|Who else thinks it's] too early for {craving}? [Asking for a friend.|Asking for the whole "
        "team.|Don't answer that.]",
    ],
    "lunch": [
        "[Lunch|Food] [at|around] [12|12:30|1]? [Thinking|Craving|In the mood for] {craving}[.|, or {dish}.|, it's "
        "{sky} out.| — {adverb} starving.]",
        "[Anyone|Who's] [up for|keen on] {dish} [at lunch|today|on Thursday]?[| The place near {landform} road "
        "does it {quality}.| My treat.| Walking there, {sky} or not.| Meeting by the {office_thing}.]",
        "[Heading to|Going to|Trying] [the food hall|the market stalls|the place on the corner|the new cafe] "
        "for {craving}, [who's in|join me|back by 1]?[| {life_things}|]",
        "[Team lunch|Lunch outing] [on|this] [Thursday|Friday|Wednesday]: [we're thinking|the plan is] {dish}. "
        "[Reply here|Thumbs up if you're in|Dietary needs to me].",
        "[Brought in|Made|Cooked] {dish} [for twelve|by mistake for an army|for a party that got cancelled], "
        "[leftovers in the kitchen|help yourselves in the kitchen|first come first served][.| — {verdict}, if I say "
        "so myself.| (contains {ingredient}).]",
    ],
}
