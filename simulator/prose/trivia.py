"""Things people share in #random: odd facts they learned, and the plots of what they are watching or reading."""

from __future__ import annotations

from simulator.prose.life import _p

TRIVIA = {
    "til": _p("""octopuses have three hearts and blue blood|honey found in ancient tombs was still edible|
        wombats leave cube-shaped droppings|a group of flamingos is called a flamboyance|bananas are
        berries but strawberries are not|the shortest war in history lasted under an hour|sloths can hold
        their breath longer than dolphins|the Eiffel Tower grows taller in summer heat|there are more
        possible chess games than atoms in the observable universe|sharks existed before trees|Venus
        spins backwards compared with most planets|lobsters were once considered prison food|the
        inventor of the frisbee was turned into a frisbee after he died|cows have best friends and get
        stressed apart|a teaspoon of neutron star would weigh billions of tonnes|the dot over an i is
        called a tittle|koalas have fingerprints almost identical to ours|Scotland's national animal is
        the unicorn|the first oranges were green|some turtles can breathe through their rear ends|a
        bolt of lightning is hotter than the surface of the sun|glass frogs have transparent skin|
        otters hold hands while sleeping so they don't drift apart|the longest hiccuping spree lasted
        decades|pineapples take about two years to grow|hot water can freeze faster than cold water|
        the heart of a blue whale is the size of a small car|butterflies taste with their feet|the
        moon has moonquakes|crows recognise and remember human faces|a day on Venus is longer than its
        year|the word nerd was first coined by a children's author|ravens can mimic human speech|
        avocados were once called alligator pears|bees communicate by dancing|penguins propose with
        pebbles|the oldest known recipe is for beer|some metals explode on contact with water|
        tardigrades survive the vacuum of space|the original name of the search engine was backrub|
        oxford university is older than the Aztec empire|wood frogs freeze solid in winter and thaw out
        in spring|the platypus glows under ultraviolet light|snails can sleep for three years|a
        cloud can weigh more than a million kilograms|jellyfish have no brain, heart or bones|elephants
        mourn their dead|the smell of rain has a name, petrichor|dolphins give each other names|
        carrots were originally purple|humans share about half their genes with bananas|the
        Great Fire of London destroyed thousands of houses but officially killed only six people|
        mosquitoes prefer people with type O blood|the fingerprints of a gorilla are unique too|
        Antarctica is technically the largest desert|peanuts are legumes, not nuts|a hummingbird's
        heart beats over a thousand times a minute|the Romans used crushed mouse brains as toothpaste|
        Mount Everest grows a few millimetres each year|starfish can regenerate lost arms|the Sahara
        was once green grassland dotted with lakes|seahorse fathers carry the babies|owls cannot move
        their eyeballs|saturn would float in a bathtub big enough|a bumblebee's wings beat two hundred
        times a second|Cleopatra lived closer in time to the moon landing than to the pyramids|
        the tongue of a chameleon is longer than its body|some cats are allergic to humans|sound
        travels four times faster in water than in air|the fax machine was invented before the
        telephone|pigeons can recognise themselves in a mirror|lightning strikes the earth about a
        hundred times a second|a jiffy is an actual unit of time|the longest place name has eighty-five
        letters|zebra stripes may keep flies away|apples float because they are a quarter air|coffee
        beans are the seeds of a cherry|the first computer bug was a real moth|hippos secrete a red
        oily sweat that works as sunscreen|an ostrich's eye is bigger than its brain|volcanic ash
        makes excellent fertiliser|goats have rectangular pupils|rice feeds more than half the world|
        the Atlantic widens by a few centimetres each year|shrimp hearts are in their heads"""),
    "premise": _p("""a retired detective who solves crimes with help from her parrot|two rival bakers
        trapped in a lift during a blizzard|an astronaut who wakes up alone on a derelict station|a
        village where everyone forgets the same day every year|a chess prodigy hustling in the parks
        of a divided city|a lighthouse keeper who receives letters from the future|a heist crew
        robbing a casino during a solar eclipse|a marine biologist who befriends an orphaned octopus|
        a grumpy violinist mentoring a street busker|an archivist who discovers a map to a drowned
        town|a family road trip across the desert in a failing camper van|a robot gardener tending
        the last forest on earth|a small-town mayor who is secretly a werewolf|siblings inheriting a
        crumbling seaside hotel|a forger who paints better than the masters she copies|an ornithologist
        chasing a bird thought extinct|a courier who delivers packages between parallel worlds|a chef
        cooking one final banquet for a dying king|a mountaineer reliving the expedition that went
        wrong|a teenage inventor building a rocket from scrap|a jury member who suspects everyone is
        lying|a translator caught between two warring kingdoms|a beekeeper uncovering a smuggling
        ring|an orchestra stranded on a remote island|a cartographer mapping a city that keeps
        changing|a ghost who haunts a tax office|a librarian leading a rebellion against
        censorship|a shepherd who finds a meteorite on the fells|a pair of elderly sisters running a
        pirate radio station|a dentist who moonlights as a jazz drummer|a scientist cloning a woolly
        mammoth in a barn|a sommelier who loses her sense of smell|a diplomat stranded at a border
        crossing for a year|a retired magician planning one impossible trick|twins swapping lives for
        a summer|a volcanologist racing an eruption|a postwoman delivering letters on horseback across
        the steppe|a composer haunted by a melody from a dream|a gambler who bets his farm on a
        greyhound"""),
}

TRIVIA_RULES = [
    "[TIL|Today I learned|Fun fact of the day|Did you know]: {til}. [Also, {til}.|] [Mind blown.|Discuss.|Can't stop thinking "
    "about it.|Source in thread.]",
    "[Started watching|Halfway through|Just finished] a [film|series|novel|audiobook] about {premise}. "
    "[{verdict}.|No spoilers please.|Ten out of ten.|Recommend.]",
    "[My kid asked me whether|Someone at the pub claimed that] {til}. [Is that true?|Apparently it is.|Checked, it's "
    "true.]",
]
