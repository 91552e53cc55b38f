"""What a domain pack is: the ``Pack`` record ``simulator.packs`` loads and ``simulator.packs.parse`` builds."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING

from simulator.wording import DEFAULT_WORDING, Wording

if TYPE_CHECKING:
    from simulator.runbook import Procedure, Runbooks

#: The pack a world config names when it names none.
DEFAULT_PACK = "hardware"


@dataclass(frozen=True)
class Pack:
    """One validated domain pack."""

    name: str
    company: str
    industry: str
    domain: str
    services: tuple[str, ...]
    change_kinds: tuple[tuple[str, str, str], ...]  # (change type, summary with {svc}, mechanism)
    service_categories: tuple[tuple[str, str], ...]  # (service, category of the case its customers open)
    chatter_topics: tuple[str, ...]
    executive_titles: tuple[str, ...]
    reports_to: tuple[tuple[str, str], ...]
    titles: tuple[tuple[str, tuple[str, ...]], ...]
    products: tuple[tuple[str, str], ...]          # (model, firmware line)
    wiki_pages: tuple[tuple[str, str, bool], ...]  # (title, topic, restricted)
    procedures: tuple["Procedure", ...]
    revisions: tuple["Procedure", ...]              # revision 2 of some runbooks, published mid-run
    sha256: str
    wording: Wording = DEFAULT_WORDING              # how its people word the product and its facts
    out_of_scope: tuple[str, ...] = ()              # runbooks CARGO keeps out of its golden set (gating questions)

    @property
    def runbooks(self) -> "Runbooks":
        """The runbooks as the CARGO and trajectory builders read them."""
        from simulator.runbook import Runbooks

        return Runbooks(self.procedures, self.revisions, self.name, self.out_of_scope)

    @property
    def procedures_by_id(self) -> dict[str, "Procedure"]:
        """Runbook id → runbook."""
        return {p.procedure_id: p for p in self.procedures}

    @property
    def procedures_by_category(self) -> dict[str, "Procedure"]:
        """Case category → runbook."""
        return {p.category: p for p in self.procedures}

    @property
    def titles_map(self) -> dict[str, tuple[str, ...]]:
        """Role → job titles."""
        return dict(self.titles)

    @property
    def is_default(self) -> bool:
        """True for the built-in default pack, unchanged."""
        return self.sha256 == _default_digest()

    def to_json(self) -> dict[str, str]:
        """What world.json records of a non-default pack: its name, company, industry and digest."""
        return {"name": self.name, "company": self.company, "industry": self.industry, "sha256": self.sha256}


def builtin_text(name: str) -> str:
    """The TOML text of the built-in pack ``name``."""
    return resources.files("simulator.packs").joinpath(f"{name}.toml").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def _default_digest() -> str:
    return hashlib.sha256(builtin_text(DEFAULT_PACK).encode("utf-8")).hexdigest()
