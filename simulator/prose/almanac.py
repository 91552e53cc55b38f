"""An almanac of odd facts and town gossip, longer pools for the small-talk grammar (extends ``trivia``)."""

from __future__ import annotations

from simulator.prose.life import _p

ALMANAC = {
    "til": _p("""medieval monks illuminated manuscripts with pigment made from crushed beetles|the periodic
        table once had a gap predicted by Mendeleev for gallium|Victorian naturalists pressed seaweed into
        scrapbooks|the giraffe's larynx is almost silent, yet they hum at night|vultures circle thermals
        rather than waiting for carcasses|the Hanseatic merchants traded stockfish across the Baltic|
        mangrove roots filter saltwater before it reaches the leaves|a carpenter's spirit level uses a
        bubble of alcohol, not air|the barometer was invented by a pupil of Galileo|icebergs calve with a
        thunderous crack audible for miles|lichen is a partnership between a fungus and an alga|hedgehogs
        were once believed to steal milk from cows|the abacus is still taught in some primary schools|
        camels store fat, not water, in their humps|the tuba evolved from the serpent, a wooden horn|
        sunflowers track the sun only while they are young|puffins mate for life and return to the same
        burrow|Norse sailors navigated with a sunstone made of calcite|parchment was made from calfskin
        scraped thin|the first vending machine dispensed holy water|the guillotine was used in France
        until the late seventies|marmalade was first made from quinces|silkworms were smuggled out of
        China in hollow canes|the Dead Sea is sinking by about a metre a year|tomatoes were once thought
        poisonous in Europe|the zipper took decades to catch on|thatched roofs can last half a century|
        bagpipes were played in ancient Persia|the ampersand used to be the last letter of the alphabet|
        walruses use their tusks to haul themselves onto ice|the first wristwatches were worn by women|
        the armadillo almost always gives birth to identical quadruplets|gondolas are painted black by
        law|peppercorns were once used to pay rent|a single oak can host hundreds of insect species"""),
    "local_news": _p("""the harbour master rescued a seal pup tangled in netting|the farmers' market
        is trialling a zero-waste stall with refillable jars|the town crier retired after forty years|the
        maze at the manor house reopened after the hedges were replanted|a ceramics collective took over
        the empty bank|volunteers restored the Victorian bandstand in the park|the brass band is
        recruiting a euphonium player|the heritage railway now runs a steam train on Sundays|someone
        knitted tiny jumpers for every bollard on the square|the apiary on the hospital roof produced
        its first jar of honey|the orchard wassail is on Saturday with mulled cider|a tortoise went
        missing and turned up two streets away a month later|a meteor shower is forecast for Thursday
        night, clear skies expected"""),
    "progress": _p("""my espalier pear finally has blossom|I reupholstered the footstool with offcuts of
        tapestry|the greenhouse thermometer hit thirty degrees in March|I built a dry stone wall that
        survived the frost|my rhubarb is forcing nicely under an old bucket|I learned three new knots for
        the sailing exam|my cross-stitch sampler is framed on the landing|the harpsichord lessons are
        paying off|the beehive survived the winter and the queen is laying|I whittled a spoon that
        actually holds soup|my lino print of the gasworks sold at the craft fair"""),
    "premise": _p("""a cobbler who mends the shoes of ghosts|a submarine crew who discover an underwater
        monastery|a stationmaster who keeps a timetable for trains that never arrive|a falconer training a
        golden eagle to hunt drones|a pastry chef entering a tournament against her estranged mother|a
        cartoonist whose sketches predict tomorrow's headlines|a glaciologist marooned on a melting ice
        shelf|an auctioneer selling a painting that keeps changing|a pharmacist unravelling a poisoning
        in a spa town|a locksmith hired to break into his own childhood home|a troupe of acrobats
        smuggling refugees across the mountains|a botanist searching for a flower that blooms once a
        century"""),
    "dish": _p("""a smoked haddock kedgeree|a rhubarb and custard trifle|a celeriac remoulade|a venison
        stew with juniper|a saffron bouillabaisse|a treacle tart|a damson jam|a gooseberry fool|a
        Yorkshire pudding the size of a hat|a samosa chaat|a bibimbap with crispy rice|a katsu curry|a
        spanakopita|a brioche bread-and-butter pudding|an apple strudel|a fig and prosciutto flatbread|
        a caponata|a cassoulet|a borscht with soured cream|a tortilla española|a rendang|a laksa"""),
    "activity": _p("""wild swimming in a tarn|volunteering at the animal sanctuary|refurbishing a canal
        boat|letterboxing on the moor|coaching the under-nines|bell ringing practice|a lantern parade|
        building a treehouse|rewilding the back lawn|a sponsored silence|lawn bowls with my grandad|
        marshalling a fun run|repointing the garden wall|a taxidermy workshop, strangely|morris dancing
        rehearsals"""),
    "place": _p("""a reptile house|a lavender distillery|an abandoned airfield|a tidal island|a smugglers'
        cave|a butterfly house|a monastery garden|a steam fair|a ruined priory|a carousel by the
        promenade|an arboretum|a bird hide on the saltmarsh|a transport museum|an ice cream parlour
        with forty flavours|a sheepdog trial"""),
}

#: A second volume: more entries for pools the first volume also lengthens.
ALMANAC_MORE = {
    "subject": _p("""heraldry|numismatics|speleology|seismology|glaciology|volcanology|herpetology|
        ichthyology|palaeontology|egyptology|papyrology|phrenology's strange history|alchemy|astrolabes|
        sundials|semaphore|morse code|shorthand|braille|esperanto|cuneiform|hieroglyphs|runes|tapestry
        weaving|lacemaking|blacksmithing|coopering|thatching|wheelwrighting|saddlery|taxonomy|
        biomimicry|permaculture|hydroponics|aquaponics|mycorrhizal networks|tidal energy|geothermal
        heating|dirigibles|hovercraft|zeppelins|submarines|metallurgy|acoustics|optics|thermodynamics|
        topology|cosmology|quantum tunnelling"""),
    "job_before": _p("""a beekeeper|a blacksmith|a puppeteer|a projectionist|a cheesemonger|a
        taxidermist|a glazier|a lumberjack|a deckhand|a croupier|a milliner|a luthier|a typesetter|a
        horticulturist|a meteorologist|an auctioneer|an embalmer|a falconer|a stuntman|a jockey"""),
    "til": _p("""the Mongol empire ran a relay postal service with fresh horses|termite mounds are
        naturally air-conditioned|the Venus flytrap counts touches before snapping shut|quicksand cannot
        actually swallow a person whole|Stradivarius violins may owe their tone to wood treated against
        woodworm|the albatross can sleep while gliding|crocodiles cannot stick out their tongues|ancient
        Greeks voted by scratching names onto pottery shards|the kiwi lays an egg a fifth of its
        weight|cashews grow out of the bottom of a fruit called the cashew apple|narwhal tusks are
        actually teeth|the Aurora is caused by charged particles colliding with the atmosphere|the
        harpsichord plucks its strings while the piano hammers them|porcupines float thanks to hollow
        quills|the spiral of a snail shell usually turns clockwise"""),
    "item": _p("""pestle and mortar|mandoline|salad spinner|gravy boat|butter dish|cake stand|egg timer|
        nutcracker|sieve|funnel|thimble|pincushion|crochet hook|embroidery hoop|magnifying glass|
        paperweight|bookend|ottoman|chaise longue|rocking chair|grandfather clock|cuckoo clock|barometer|
        sextant|music box|gramophone|harp|lute|zither|ocarina|kazoo|glockenspiel|spinning wheel|loom|
        anvil|bellows|crowbar|mallet|wrench|spanner|pliers|tweezers|hacksaw|plane|vice|workbench"""),
    "creature": _p("""pangolin|capybara|tapir|okapi|wombat|platypus|echidna|lemur|meerkat|mongoose|
        aardvark|anteater|armadillo|sloth|marmoset|macaque|baboon|gibbon|orangutan|walrus|manatee|
        dugong|narwhal|beluga|stingray|barracuda|swordfish|flamingo|pelican|toucan|hornbill|condor|
        albatross|cassowary|emu|kookaburra|salamander|chameleon|tarantula|scorpion|firefly|cicada"""),
    "plant": _p("""edelweiss|gorse|bracken|samphire|saxifrage|campanula|verbena|salvia|agapanthus|
        alliums|echinacea|rudbeckia|delphiniums|lupins|snapdragons|zinnias|cosmos|calendula|borage|
        sorrel|tarragon|lovage|dill|chervil|fennel|artichokes|asparagus|celery|okra|sweetcorn"""),
}
