"""Where customers run their units and where people travel: businesses, rooms, cities, trips, jobs."""

from __future__ import annotations

from simulator.prose.life import _p

PLACES = {
    "business": _p("""a bakery|a pharmacy|a dental clinic|a veterinary practice|a primary school|a
        university lab|a brewery|a boutique hotel|a hostel|a garden centre|a bicycle shop|a bookshop|a
        florist|a butcher's|a fishmonger|a greengrocer|a delicatessen|a pizzeria|a noodle bar|a steakhouse|
        a vegan cafe|a juice bar|a tattoo studio|a hair salon|a barber's|a nail bar|a spa|a gym|a yoga
        studio|a climbing centre|a swimming club|a golf club|a marina|a caravan park|a campsite|a
        farm shop|a dairy|a vineyard|a distillery|a printing firm|a law firm|an accountancy|an
        architecture practice|an estate agent|a recruitment agency|a travel agency|a charity|a museum|a
        gallery|a theatre|a cinema|a concert hall|a radio station|a newspaper|a publisher|a film studio|
        a recording studio|a logistics depot|a courier firm|a taxi company|a bus operator|a ferry
        company|an airport lounge|a car dealership|a garage|a tyre centre|a scrapyard|a builders'
        merchant|a timber yard|a quarry|a foundry|a textile mill|a bottling plant|a packaging plant|a
        cold store|a laboratory|a hospice|a care home|a nursery|a sports centre|a council office|a
        library|a post office|a church hall|a community centre|a police station|a fire station|a
        parish office|a toy shop|a jeweller's|an optician's|a pet shop|a music shop|a stationer's|a
        hardware store|a furniture showroom|a wedding venue|a conference centre"""),
    "room": _p("""a back office|the basement|a server cupboard|a draughty warehouse|a loft|a shipping
        container|the reception desk|a kitchen|a plant room|a portable cabin|a clean room|a cold room|a
        mezzanine|the stockroom|a garden shed|a boiler room|a mobile van|a classroom|a rooftop enclosure|
        a damp cellar|a dusty workshop|a laboratory bench|the shop floor"""),
    "city": _p("""Lisbon|Porto|Seville|Valencia|Barcelona|Bilbao|Marseille|Lyon|Bordeaux|Nantes|Brussels|
        Antwerp|Ghent|Bruges|Amsterdam|Rotterdam|Utrecht|Hamburg|Berlin|Munich|Cologne|Dresden|Leipzig|
        Vienna|Salzburg|Prague|Budapest|Krakow|Warsaw|Gdansk|Vilnius|Riga|Tallinn|Helsinki|Stockholm|
        Gothenburg|Oslo|Bergen|Copenhagen|Reykjavik|Dublin|Galway|Edinburgh|Glasgow|Cardiff|Bristol|
        Manchester|Liverpool|York|Newcastle|Belfast|Rome|Florence|Venice|Naples|Bologna|Turin|Milan|
        Palermo|Athens|Thessaloniki|Istanbul|Dubrovnik|Split|Ljubljana|Zagreb|Sarajevo|Belgrade|
        Bucharest|Sofia|Marrakesh|Cairo|Nairobi|Cape Town|Lagos|Accra|Toronto|Montreal|Vancouver|
        Chicago|Boston|Seattle|Denver|Austin|Nashville|Portland|Havana|Mexico City|Bogota|Lima|
        Santiago|Buenos Aires|Montevideo|Tokyo|Kyoto|Osaka|Seoul|Taipei|Hanoi|Bangkok|Singapore|
        Jakarta|Manila|Sydney|Melbourne|Auckland|Wellington"""),
    "trip": _p("""a long weekend in {city}|a conference in {city}|a wedding in {city}|a stag do in
        {city}|a family visit to {city}|a rainy week in {city}|a food tour of {city}|a work trip to
        {city}|a cheap flight to {city}|an overnight train to {city}|a road trip ending in {city}|a
        cycling holiday near {city}"""),
    "job_before": _p("""a baker|a lifeguard|a barista|a postman|a lab technician|a tour guide|a
        bookkeeper|a nurse|a journalist|a translator|a chef|a teacher|a librarian|a mechanic|a
        carpenter|a gardener|a musician|a photographer|a pilot|a paramedic|a surveyor|a geologist|a
        pharmacist|a florist|a zookeeper|a park ranger|a sommelier|a stagehand|a cartographer|an
        archivist|an electrician|an illustrator|an actuary|an economist|a diver"""),
    "customer_story": _p("""they run {business} and the unit sits in {room}|the site is {business}; the
        appliance is in {room}|it's {business} with one unit in {room}|the contact manages {business},
        unit lives in {room}|{business}, unit mounted in {room}|they are {business}; units in {room}
        and at a second site"""),
}

PLACE_RULES = [
    "[Back from|Just booked|Counting down to|Still recovering from] {trip}. [Recommendations welcome.|"
    "Photos later.|Worth it.|Jet lag is real.]",
    "[Fun fact|Confession]: before this job I was {job_before}. [Long story.|Ask me about it at lunch.|"
    "Different world.]",
    "[Anyone been to|Has anyone lived in|Tips for] {city}? [Going in spring.|Thinking of a trip.|Family "
    "lives there now.]",
]
