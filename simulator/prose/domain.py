"""The domain words prose and templates use for the customer's product, written ``{=name}`` in rules.

These are the default (hardware) pack's words; a pack's ``[wording.words]``
replaces any of them (``simulator.wording``).
"""

from __future__ import annotations

DEFAULT_WORDS: dict[str, str] = {
    "unit": "unit",            # the thing a customer owns and reports about
    "serial": "serial",        # its identifier, as people say it
    "coverage": "warranty",    # what entitles it to free service
    "software": "firmware",    # what runs on it
}
