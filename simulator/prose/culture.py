"""Culture and ideas: genres, instruments, games, abstract talk, office objects, transport, sport moments."""

from __future__ import annotations

from simulator.prose.life import _p

CULTURE = {
    "genre": _p("""thriller|whodunnit|romance|fantasy|horror|western|noir|satire|farce|tragedy|comedy|
        musical|documentary|biography|autobiography|memoir|travelogue|anthology|novella|epic|saga|
        fable|parable|allegory|sonnet|haiku|limerick|ballad|opera|operetta|symphony|concerto|sonata|
        fugue|nocturne|lullaby|anthem|shanty|madrigal|requiem|cantata|oratorio|rhapsody|overture|
        serenade|waltz|polka|mazurka|tango|bossa nova|calypso|samba|ska|grunge|bluegrass|gospel|
        techno|trance|ambient|shoegaze|synthwave|hip hop|funk|disco|soul|motown|rockabilly"""),
    "game": _p("""chess|draughts|backgammon|dominoes|mahjong|bridge|poker|cribbage|rummy|solitaire|
        scrabble|monopoly|cluedo|charades|pictionary|bingo|crosswords|sudoku|anagrams|riddles|trivia|
        hopscotch|rounders|skittles|boules|petanque|quoits|conkers|marbles|jenga|twister|carcassonne"""),
    "idea": _p("""ambiguity|momentum|serendipity|nostalgia|procrastination|perfectionism|curiosity|
        resilience|empathy|gratitude|humility|integrity|autonomy|mastery|purpose|craftsmanship|
        simplicity|complexity|entropy|inertia|friction|leverage|trade-offs|incentives|feedback
        loops|second-order effects|sunk costs|opportunity cost|bikeshedding|yak shaving|scope creep|
        technical debt|cargo cults|rubber ducking|deep work|flow state|burnout|boundaries|rituals|
        habits|routines|rest|boredom|solitude|ambition|kindness|candour|patience"""),
    "office_thing": _p("""stapler|hole punch|whiteboard|marker pens|sticky notes|lanyard|swipe card|
        desk plant|monitor arm|standing desk|ergonomic chair|footrest|wrist rest|filing cabinet|
        label maker|laminator|shredder|projector remote|conference phone|webcam|ring light|kettle|
        fridge|microwave|dishwasher|fruit basket|biscuit tin|coffee grinder|water cooler|
        vending machine|printer|scanner|franking machine|pigeonholes|noticeboard|bike rack"""),
    "transport": _p("""tram|ferry|night bus|bike lane|car share|coach|overground|underground|cable
        car|funicular|rickshaw|monorail|express train|sleeper train|water taxi|scooter hire|car
        club|park and ride|carpool|commuter boat"""),
    "sport_moment": _p("""a last-minute equaliser|a penalty shootout|a hat-trick|a photo finish|a
        controversial offside|a dropped catch|a hole in one|a double fault|a maiden over|a wonder
        goal|an own goal|a red card|a buzzer beater|a comeback from two sets down|a world record|a
        nine-dart finish|a century|a knockout in the third round|a try in injury time"""),
}

CULTURE_RULES = [
    "[Hot take|Unpopular opinion|Controversial]: the best {genre} [ever|of the decade|I know] is [underrated|"
    "overrated|misunderstood]. [Fight me.|Discuss.|Thread below.]",
    "[Games night|Family tradition|Lunchtime league]: {game}. [I lost|I won|Nobody won], {adverb}.",
    "[Been thinking about|Read a piece on|Podcast rec on] {idea} [at work|lately|this week]. {adverb} "
    "[relevant|useful|sobering].",
    "[Who moved|Who borrowed|Has anyone seen] the {office_thing} [from the third floor|by the kitchen|in the "
    "big meeting room]?",
    "[Commute report|Travel update]: {transport} [was|ran] {quality} [today|this morning]; [arrived|got in] "
    "{mood}.",
    "[Did anyone see|Still thinking about|Can't believe] {sport_moment} [last night|at the weekend]?",
]
