"""Everyday doings: chores done, errands run, ingredients cooked, moods, excuses for running late."""

from __future__ import annotations

from simulator.prose.life import _p

ERRANDS = {
    "chore_done": _p("""untangled|rearranged|alphabetised|defrosted|descaled|reupholstered|varnished|
        polished|scrubbed|hoovered|dusted|mopped|ironed|folded|darned|patched|hemmed|glued|soldered|
        sharpened|oiled|greased|unblocked|bled|insulated|caulked|grouted|plastered|sanded|stained|
        painted|stencilled|framed|hung|mounted|levelled|assembled|dismantled|recycled|donated|
        labelled|catalogued|photographed|repotted|pruned|mulched|weeded|watered|harvested|pickled|
        bottled|fermented|marinated|simmered|roasted|braised|poached|steamed|kneaded|proofed|
        glazed|iced|decorated|wrapped|posted|returned|exchanged|refunded|repaired|replaced|
        upgraded|tuned|restrung|rewired|reset|reinstalled|backed up|archived|shredded|filed"""),
    "chore_thing": _p("""the spice rack|the sock drawer|the freezer|the shed|the cutlery drawer|the
        garden furniture|the bathroom sealant|the radiators|the bookshelves|the kids' artwork|the old
        photos|the loft insulation|the fence panels|the front door|the guitar|the bike chain|the
        kitchen knives|the winter coats|the tax paperwork|the recipe cards|the herb garden|the window
        boxes|the compost heap|the greenhouse|the gutters|the patio|the decking|the skirting boards|
        the cupboard hinges|the pantry|the vinyl records|the board games|the tool wall|the hallway
        mirror"""),
    "ingredient": _p("""saffron|cardamom|cumin|turmeric|paprika|nutmeg|cinnamon|cloves|star anise|fennel
        seeds|mustard seeds|sumac|tamarind|lemongrass|galangal|miso|tahini|harissa|gochujang|sriracha|
        anchovies|capers|olives|artichokes|asparagus|samphire|watercress|rocket|chicory|endive|
        celeriac|kohlrabi|swede|turnips|shallots|spring onions|mushrooms|truffle oil|pine nuts|
        walnuts|hazelnuts|almonds|cashews|pecans|chestnuts|coconut|mango|papaya|pineapple|
        pomegranate|passion fruit|lychees|kiwis|figs|dates|prunes|apricots|cranberries|blueberries|
        blackberries|cherries|plums|peaches|nectarines|grapefruit|limes|oranges|lemons|quinoa|
        couscous|bulgur|polenta|barley|lentils|chickpeas|kidney beans|edamame|tofu|tempeh|halloumi|
        feta|mozzarella|gorgonzola|parmesan|ricotta|mascarpone|yoghurt|buttermilk|cream|butter|
        honey|maple syrup|treacle|molasses|vanilla|cocoa|marzipan|ginger|horseradish|wasabi"""),
    "errand": _p("""the dentist|a parents' evening|the vet|the dry cleaner's|a boiler service|a parcel
        that needs signing for|the school run|a physio appointment|the optician|a plumber who said
        eight to twelve|the mechanic|a haircut|a blood test|jury service paperwork|the post office
        queue|a flu jab|a driving lesson|the council tip|a new passport photo|a piano lesson|a
        swimming gala|the recycling centre|the locksmith|an eye test|a nursery pickup"""),
    "mood": _p("""caffeinated|optimistic|philosophical|sleep-deprived|nostalgic|triumphant|sheepish|
        determined|distracted|inspired|overwhelmed|zen|restless|chirpy|hungry|smug|bewildered|
        content|grateful|impatient|jittery|mellow|pensive|giddy|drained|buoyant|frazzled|serene"""),
    "adverb": _p("""honestly|frankly|genuinely|apparently|allegedly|reportedly|admittedly|
        thankfully|luckily|unfortunately|surprisingly|predictably|typically|reluctantly|
        cautiously|gradually|eventually|literally|basically|essentially|definitely|probably|
        possibly|arguably|undoubtedly|remarkably|briefly|quietly|proudly|happily"""),
}

ERRAND_RULES = [
    "[Finally|Just|Proudly|Reluctantly] {chore_done} {chore_thing} [this weekend|last night|before work]. "
    "[Feeling|Now] {mood}.",
    "[Cooked|Experimented with|Baked something with] {ingredient} and {ingredient} [last night|at the weekend]; "
    "{adverb} {quality}.",
    "[Running|Might be] [five|ten|fifteen] minutes late [today|this afternoon]: {errand}.",
    "[Out|Offline] [for an hour|after three|first thing tomorrow] for {errand}, {adverb} [back by four|"
    "reachable on my phone|catching up tonight].",
    "[Today's mood|Current state|Status]: {mood}[, {adverb}|, with {craving}|].",
]
