"""Names drawn with the weights added up once are the names faker itself draws, in the same order."""

from __future__ import annotations

from faker import Faker

from simulator.names import FAKER_PROVIDERS, Names


def test_the_names_are_fakers_own_draws():
    for seed in (0, 7, 2026):
        names, faker = Names(seed), Faker("en_US", providers=list(FAKER_PROVIDERS))
        faker.seed_instance(seed)
        ours = [(names.first_name(), names.last_name(), names.company() if i % 3 == 0 else "") for i in range(400)]
        theirs = [(faker.first_name(), faker.last_name(), faker.company() if i % 3 == 0 else "") for i in range(400)]
        assert ours == theirs
        assert len({first for first, _, _ in ours}) > 100 and len({last for _, last, _ in ours}) > 100
    names = Names(0)  # the weighted tables are drawn the fast way, not handed back to faker
    assert names.first_name != names.faker.first_name and names.last_name != names.faker.last_name
