"""A pack's wording: a fintech world's text says none of the hardware pack's domain words and the other way
round; the wording changes words only, never facts, and the default world is written as without it."""

from __future__ import annotations

import re

import pytest

from simulator.config import load_config
from simulator.packs import default_pack, load_pack
from simulator.simulate import simulate
from simulator.artifacts import speaking
from simulator.wording import DEFAULT_WORDING


def _said(world, word: str) -> list[str]:
    """Where ``word`` (any case, as a whole word or its plural) appears in a title or body."""
    pattern = re.compile(rf"\b{re.escape(word)}s?\b", re.IGNORECASE)
    return [f"{v.ref}: {m.string[max(0, m.start() - 40):m.end() + 20]!r}"
            for v in world.artifacts for m in [pattern.search(v.title + "\n" + v.body)] if m]


@pytest.fixture(scope="module")
def fintech_world():
    return simulate(load_config(days=30, people=40, pack="fintech"))


@pytest.fixture(scope="module")
def hardware_world():
    return simulate(load_config(days=30, people=40))


def test_each_pack_names_words_of_its_own_domain():
    assert {"serial", "warranty", "firmware"} <= set(default_pack().wording.domain_words)
    assert {"chargeback", "payout"} <= set(load_pack("fintech").wording.domain_words)


def test_a_fintech_world_says_none_of_the_hardware_packs_domain_words(fintech_world):
    assert sum(v.kind == "ticket" for v in fintech_world.artifacts) > 50
    for word in default_pack().wording.domain_words:
        assert _said(fintech_world, word) == [], word


def test_a_hardware_world_says_none_of_the_fintech_packs_domain_words(hardware_world):
    for word in load_pack("fintech").wording.domain_words:
        assert _said(hardware_world, word) == [], word


def test_the_fintech_wording_states_the_same_facts_in_its_own_words(fintech_world):
    """Facts keep the engine's names and values (asset_serial, warranty_end…); the text says them the pack's way."""
    tickets = [v for v in fintech_world.artifacts if v.kind == "ticket" and "asset_serial" in v.facts]
    assert tickets
    for ticket in tickets[:50]:
        assert ticket.facts["asset_serial"] in ticket.body and ticket.facts["warranty_end"] in ticket.body
        assert "terminal ID" in ticket.body and "service plan until" in ticket.body
    assert _said(fintech_world, "terminal software") and _said(fintech_world, "service plan")


def test_speaking_restores_the_default_wording_afterwards():
    from simulator.prose.phrases import _say
    from simulator.prose.voice import GRAMMAR

    before = (_say("asset_serial", "SN-1"), GRAMMAR.pools["support_thing"], dict(GRAMMAR.words))
    with speaking(load_pack("fintech").wording):
        assert _say("asset_serial", "SN-1") == "terminal ID SN-1"
        assert GRAMMAR.words["unit"] == "terminal"
    assert (_say("asset_serial", "SN-1"), GRAMMAR.pools["support_thing"], dict(GRAMMAR.words)) == before
    assert default_pack().wording.words == {} and default_pack().wording.pools == {}
    assert DEFAULT_WORDING.domain_words == ()
