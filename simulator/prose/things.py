"""More of life's nouns: things people buy, grow, spot, learn and read about, for the small-talk grammar."""

from __future__ import annotations

from simulator.prose.life import _p

THINGS = {
    "item": _p("""kettle|toaster|blender|colander|saucepan|skillet|wok|ladle|spatula|whisk|grater|peeler|
        thermos|teapot|cafetiere|corkscrew|rolling pin|chopping board|casserole dish|bread bin|lampshade|
        rug|cushion|duvet|pillowcase|curtain rail|bookcase|wardrobe|dresser|armchair|footstool|hammock|
        deckchair|barbecue|lawnmower|wheelbarrow|watering can|hosepipe|trowel|rake|shovel|secateurs|
        ladder|toolbox|screwdriver|spirit level|drill|jigsaw|chisel|paintbrush|roller|stepladder|bicycle
        pump|helmet|backpack|tent|sleeping bag|compass|headtorch|umbrella|raincoat|wellies|scarf|
        mittens|beanie|cardigan|jumper|waistcoat|sandals|slippers|trainers|satchel|wallet|keyring|
        wristwatch|sunglasses|binoculars|telescope|microscope|typewriter|turntable|metronome|easel|
        sketchbook|fountain pen|notebook|calendar|houseplant|terrarium|aquarium|birdfeeder|doormat|
        coat hook|mirror|candlestick|vase|fruit bowl|hourglass|globe|jigsaw puzzle|kaleidoscope|
        skateboard|scooter|kite|frisbee|hula hoop|trampoline|sledge|snowboard|canoe|surfboard|wetsuit|
        snorkel|flippers|fishing rod|tackle box|camera tripod|projector|speaker|headphones|keyboard|
        joystick|harmonica|accordion|tambourine|xylophone|banjo|mandolin|cello|clarinet|trombone|
        saxophone|bagpipes|didgeridoo|bongos|synthesiser|dehumidifier|radiator|thermostat|doorbell|
        smoke alarm|extension lead|lightbulb|vacuum cleaner|ironing board|sewing machine|dishwasher|
        freezer|microwave|slow cooker|pressure cooker|bread maker|juicer|espresso machine|sandwich
        toaster"""),
    "plant": _p("""tomatoes|courgettes|runner beans|sweet peas|sunflowers|dahlias|tulips|daffodils|
        snowdrops|bluebells|lavender|rosemary|thyme|basil|coriander|parsley|mint|chives|sage|oregano|
        strawberries|raspberries|gooseberries|rhubarb|blackcurrants|potatoes|onions|garlic|leeks|
        carrots|parsnips|beetroot|radishes|lettuce|spinach|kale|cabbages|cauliflowers|pumpkins|
        squashes|cucumbers|chillies|aubergines|peppers|geraniums|begonias|petunias|marigolds|
        nasturtiums|foxgloves|hollyhocks|peonies|hydrangeas|camellias|magnolias|rhododendrons|
        clematis|honeysuckle|jasmine|wisteria|ivy|ferns|hostas|succulents|cacti|orchids|bonsai|
        bamboo|olive tree|fig tree|apple tree|pear tree|cherry tree|lemon tree|bay tree|palm|
        sedum|heather|primroses|violets|crocuses|irises|lilies|poppies|cornflowers|daisies|
        buttercups|dandelions|thistles|nettles|brambles|moss"""),
    "creature": _p("""heron|kingfisher|woodpecker|wren|robin|blackbird|thrush|sparrowhawk|kestrel|
        buzzard|owl|magpie|jay|goldfinch|bullfinch|chaffinch|nuthatch|treecreeper|swallow|swift|
        house martin|cuckoo|pheasant|partridge|grouse|curlew|oystercatcher|cormorant|puffin|gannet|
        seal|otter|badger|fox|hedgehog|squirrel|deer|hare|stoat|weasel|mole|vole|shrew|bat|dragonfly|
        damselfly|butterfly|moth|ladybird|beetle|bumblebee|wasp|hornet|grasshopper|cricket|frog|
        toad|newt|lizard|slowworm|grass snake|salmon|trout|pike|eel|crab|lobster|jellyfish|dolphin|
        porpoise|whale|swan|goose|duck|moorhen|coot|pigeon|dove|crow|raven|rook|starling|parakeet|
        peacock|llama|alpaca|donkey|pony|sheep|lamb|goat|pig|cow|calf|horse|chicken|tortoise|
        iguana|gecko|ferret|chinchilla|gerbil|axolotl"""),
    "subject": _p("""astronomy|archaeology|geology|volcanoes|glaciers|meteorology|oceanography|botany|
        zoology|entomology|ornithology|mycology|genetics|evolution|neuroscience|psychology|
        linguistics|etymology|philosophy|theology|mythology|folklore|anthropology|sociology|
        economics|statistics|probability|cryptography|typography|calligraphy|cartography|navigation|
        aviation|shipbuilding|railways|canals|bridges|tunnels|lighthouses|castles|cathedrals|
        architecture|urbanism|furniture design|fashion history|textiles|dyes|perfume|chocolate
        making|cheesemaking|winemaking|brewing|fermentation|baking chemistry|nutrition|medicine|
        anatomy|epidemiology|vaccines|antibiotics|surgery|dentistry|veterinary science|agriculture|
        beekeeping|forestry|fishing|whaling|piracy|exploration|polar expeditions|mountaineering|
        the Silk Road|ancient Rome|ancient Egypt|the Vikings|the Renaissance|the Industrial
        Revolution|the space race|the printing press|the telegraph|radio|television|cinema|
        photography|jazz|opera|ballet|sculpture|ceramics|glassmaking|origami|chess openings|card
        games|puzzles|magic tricks|juggling|ventriloquism|circus history|the Olympics|sailing|
        rowing|falconry|horology|clockmaking|locksmithing|bookbinding|printmaking|stained glass"""),
    "quality": _p("""cosy|gorgeous|wonderful|miserable|soggy|breezy|sunny|freezing|sweltering|crisp|
        peaceful|noisy|crowded|deserted|charming|quirky|elegant|shabby|spotless|cluttered|gloomy|
        bright|cheerful|grumpy|sleepy|energetic|relaxed|frantic|hectic|leisurely|splendid|dreadful|
        marvellous|mediocre|fabulous|terrific|awful|decent|pleasant|stunning|spectacular|modest|
        humble|generous|stingy|fragrant|smelly|delicious|bland|spicy|tangy|zesty|creamy|crunchy|
        chewy|fluffy|gooey|crumbly|juicy|tender|burnt|raw|ripe|sour|bitter|sweet|salty|savoury|
        rustic|vintage|futuristic|ancient|enormous|tiny|wobbly|sturdy|flimsy|durable|fiddly|
        straightforward|baffling|mysterious|hilarious|poignant|thoughtful|ambitious|clumsy|
        graceful|stubborn|curious|nervous|excited|thrilled|relieved|exhausted|refreshed"""),
    "craft": _p("""knitting|crochet|embroidery|quilting|weaving|pottery|woodturning|whittling|
        leatherwork|jewellery making|soap making|candle making|upholstery|macrame|watercolours|
        oil painting|pastels|charcoal drawing|linocut printing|screen printing|photography|
        film developing|model railways|model aircraft|dollhouses|lego|birdwatching|metal detecting|
        fossil hunting|rock climbing|fencing|archery|judo|karate|boxing|pilates|tai chi|salsa|
        tango|swing dancing|tap dancing|choir|amateur dramatics|improv|podcasting|blogging|
        genealogy|stamp collecting|coin collecting|vinyl collecting|home brewing|pickling|
        preserving|foraging|allotment gardening|composting|cycling|running|swimming|rowing|
        sailing|windsurfing|skiing|snowboarding|curling|bowling|darts|snooker|croquet|badminton|
        squash|table tennis|golf|cricket|netball|rugby|football|hockey|lacrosse|volleyball"""),
}

THING_RULES = [
    "[Finally bought|Treated myself to|Broke|Inherited|Fixed] a {item} and a {item} [this weekend|yesterday|last night]. "
    "[Very|Surprisingly|Slightly too] {quality}.",
    "[The|Our|My] {plant} and {plant} [finally came up|have gone mad|did not survive the frost|are flowering|got eaten by "
    "slugs] [this week|overnight|at last].",
    "[Spotted|Saw|Heard] a {creature} and a {creature} [in the garden|by the canal|on the way in|outside the office|from the "
    "train] [this morning|today|at lunch]. [Made my day.|Anyone know if that's unusual?|Photo in thread.]",
    "[Down a rabbit hole on|Reading about|Watching lectures on|Obsessed with] {subject} and {subject} [this week|lately|"
    "again]. [Ask me anything.|Send help.|Highly recommend.]",
    "[Started|Took up|Gave up on|Back to] {craft} [this month|again|last week]. [It's|Honestly it's] {quality}.",
    "[The|That] {item} [in the kitchen|by the printer|on floor two] is [looking|getting] {quality}. "
    "[Who's responsible?|Just saying.|Someone should do something.]",
]
