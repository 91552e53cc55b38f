"""People's and companies' names: faker's en_US names, seeded, drawn without faker's cost per name.

Faker draws a first or last name from a weighted table (an ``OrderedDict`` of
name → weight) with ``random.choices(names, weights=...)``, which adds the
table's thousand weights up again on every call. ``Names`` adds them up once
and draws with ``random.choices(names, cum_weights=...)`` from the same seeded
``random.Random``: the same draw, so the same names in the same order, at a
fiftieth of the cost. A table faker does not weight (another faker release) is
drawn by faker itself; ``company`` always is.
"""

from __future__ import annotations

from collections import OrderedDict
from itertools import accumulate
from typing import Any, Callable

from faker import Faker

#: The faker providers the world's names come from (``first_name``, ``last_name``, ``company``): loading all of
#: them costs more CPU than drawing every name of a world, and none of the others draws from the seeded RNG.
FAKER_PROVIDERS = ("faker.providers.person", "faker.providers.company")


class Names:
    """Seeded en_US names: ``first_name``, ``last_name`` and ``company``, as faker seeded with ``seed`` gives them."""

    def __init__(self, seed: int) -> None:
        faker = Faker("en_US", providers=list(FAKER_PROVIDERS))
        faker.seed_instance(seed)
        self.faker = faker
        person = faker.provider("faker.providers.person")
        self.first_name = _weighted(person, "first_names", faker.first_name, faker.random)
        self.last_name = _weighted(person, "last_names", faker.last_name, faker.random)
        self.company: Callable[[], str] = faker.company


def _weighted(provider: Any, table: str, drawn_by_faker: Callable[[], str], rng: Any) -> Callable[[], str]:
    """A draw from ``provider``'s weighted ``table`` as faker makes it, with the weights added up once."""
    names = getattr(provider, table, None)
    if not isinstance(names, OrderedDict) or not getattr(provider, "__use_weighting__", False):
        return drawn_by_faker
    population: tuple[str, ...] = tuple(names)
    totals = list(accumulate(names.values()))
    choices = rng.choices

    def draw() -> str:
        return choices(population, cum_weights=totals)[0]

    return draw
