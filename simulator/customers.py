"""Customers: accounts with support contracts, the assets (the pack's products) they bought, and their contacts.

Generated once at the start (seeded faker and RNG); the CRM process records
them as ``crm`` artifacts and changes them during the run (renewals, new
purchases). Support cases read their facts from here.
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Sequence

from simulator.names import Names

CONTRACT_LEVELS = ("basic", "next_business_day", "four_hour")


@dataclass(slots=True)
class Contact:
    """A customer contact person."""

    contact_id: str
    name: str
    email: str


@dataclass(slots=True)
class Asset:
    """A hardware unit a customer bought."""

    asset_id: str
    serial: str
    model: str
    purchase_date: date
    warranty_end: date
    firmware_version: str


@dataclass(slots=True)
class Account:
    """A customer company with a support contract."""

    account_id: str
    name: str
    domain: str
    contract_level: str
    strategic: bool
    sales_owner: str
    contacts: list[Contact] = field(default_factory=list)
    assets: list[Asset] = field(default_factory=list)
    license_keys: list[str] = field(default_factory=list)


def serial_number(rng: random.Random) -> str:
    """A hardware serial number such as ``SN-7KQ2M9XD``."""
    return "SN-" + "".join(rng.choice(string.ascii_uppercase + string.digits) for _ in range(8))


def license_key(rng: random.Random) -> str:
    """A licence key such as ``LIC-4K7Q-MX2D-99PA``."""
    alphabet = string.ascii_uppercase + string.digits
    return "LIC-" + "-".join("".join(rng.choice(alphabet) for _ in range(4)) for _ in range(3))


def firmware(line: str, rng: random.Random) -> str:
    """A firmware version on a model's line, e.g. ``4.2.17``."""
    return f"{line}.{rng.randint(8, 30)}"


def new_asset(asset_id: str, rng: random.Random, bought: date, models: Sequence[tuple[str, str]]) -> Asset:
    """A newly bought asset (one of the pack's ``models``: name, firmware line) with a 1, 3 or 5 year warranty."""
    model, line = rng.choice(models)
    years = rng.choice((1, 3, 3, 5))
    return Asset(asset_id, serial_number(rng), model, bought, bought + timedelta(days=365 * years), firmware(line, rng))


def generate_accounts(count: int, contacts: int, assets: int, strategic_share: float, start: date,
                      sales_reps: list[str], rng: random.Random, faker: Names,
                      models: Sequence[tuple[str, str]]) -> list[Account]:
    """``count`` customer accounts with contacts, assets (of the pack's ``models``) and licence keys."""
    accounts: list[Account] = []
    names: set[str] = set()
    asset_no = 50001
    contact_no = 3001
    for i in range(count):
        while True:
            name = faker.company()
            if name not in names:
                names.add(name)
                break
        slug = "".join(c for c in name.lower() if c.isalnum())[:18] or f"customer{i}"
        domain = f"{slug}.example"
        account = Account(f"ACC-{2001 + i}", name, domain, rng.choice(CONTRACT_LEVELS),
                          rng.random() < strategic_share, rng.choice(sales_reps))
        for _ in range(contacts):
            first, last = faker.first_name(), faker.last_name()
            account.contacts.append(Contact(f"CON-{contact_no}", f"{first} {last}",
                                            f"{first}.{last}".lower().replace("'", "") + f"@{domain}"))
            contact_no += 1
        for _ in range(assets):
            bought = start - timedelta(days=rng.randint(60, 5 * 365))
            account.assets.append(new_asset(f"AST-{asset_no}", rng, bought, models))
            asset_no += 1
        account.license_keys = [license_key(rng) for _ in range(2)]
        accounts.append(account)
    return accounts
