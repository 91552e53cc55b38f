"""Domain packs: the company, industry, products, services, runbooks, titles and chatter topics of a world.

A pack is one TOML file (docs/packs.md). Two ship with orgbench:
``hardware`` (the default: an enterprise hardware vendor; it reproduces the
default world byte for byte) and ``fintech`` (a payments SaaS operator). A
world config names one with ``pack = "NAME"`` or ``pack = "path/to/pack.toml"``.
``load_pack`` validates a pack once and returns a frozen :class:`Pack`;
anything wrong ends in one InputError line naming the file and field.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

from orgbench.core.errors import InputError
from simulator.packs.pack import DEFAULT_PACK, Pack, builtin_text

__all__ = ["BUILTIN_PACKS", "DEFAULT_PACK", "Pack", "default_pack", "is_builtin", "load_pack", "pack_reference",
           "resolve", "world_pack"]

BUILTIN_PACKS: tuple[str, ...] = ("clinical", "fintech", "hardware", "utility")


def is_builtin(reference: str) -> bool:
    """True if ``reference`` names a built-in pack rather than a file."""
    return reference in BUILTIN_PACKS


def resolve(reference: str, source: str, base: Path | None, field: str = "pack") -> str:
    """A config's ``pack`` value as a built-in name or an absolute path; unknown ones fail naming ``source`` and
    ``field`` (no field: ``source`` alone, as for ``pack check REFERENCE``)."""
    if is_builtin(reference):
        return reference
    at = f"{source}: {field}" if field else source
    if not reference.endswith(".toml"):
        raise InputError(f"{at}: unknown pack {reference!r} (built-in packs are "
                         f"{', '.join(BUILTIN_PACKS)}; or give the path of a .toml pack file)")
    path = Path(reference)
    if not path.is_absolute() and base is not None:
        path = base / path
    try:
        path = path.resolve()
    except (RuntimeError, OSError):          # a symbolic link loop
        raise InputError(f"{at}: pack file {path}: a symbolic link loop") from None
    if not path.is_file():
        found = "not found" if not path.exists() else "a directory" if path.is_dir() else "not a regular file"
        raise InputError(f"{at}: pack file {path}: {found}")
    return str(path)


def world_pack(meta: dict, given: str | None = None, option: str = "--pack") -> Pack:
    """The pack a world was made from (world.json ``config.pack``; none: the default pack), checked by digest.

    A built-in pack is found by name; a pack file must be ``given`` (a built-in name or a path), and its digest must
    be the one the world recorded. Anything else is one InputError line.
    """
    recorded = (meta.get("config") or {}).get("pack") if isinstance(meta, dict) else None
    if given is not None:
        pack = load_pack(resolve(given, option, None, option))
    elif recorded is None:
        return default_pack()
    elif isinstance(recorded, dict) and recorded.get("name") in BUILTIN_PACKS:
        pack = load_pack(str(recorded["name"]))
    else:
        name = recorded.get("name") if isinstance(recorded, dict) else recorded
        raise InputError(f"world.json: config.pack: the world is made from pack file {name!r}; "
                         f"give that file with {option} FILE")
    wanted = recorded.get("sha256") if isinstance(recorded, dict) else default_pack().sha256
    if pack.sha256 != wanted:
        made = f"pack {recorded.get('name')!r}" if isinstance(recorded, dict) else "the default pack"
        if given is None:
            raise InputError(f"world.json: config.pack: the built-in pack {pack.name!r} has changed since the world "
                             f"was made (sha256 {str(wanted)[:12]}…, now {pack.sha256[:12]}…); simulate it again")
        raise InputError(f"{option}: {given} is not the pack the world was made from ({made}, "
                         f"sha256 {str(wanted)[:12]}…; this file has {pack.sha256[:12]}…)")
    return pack


def pack_reference(source: str, field: str, value: object) -> str:
    """A config's ``pack`` value, resolved (a file relative to the config file) and validated now."""
    if not isinstance(value, str) or not value:
        raise InputError(f"{source}: {field}: must be the name of a built-in pack or the path of a .toml pack file")
    config_file = Path(source)
    reference = resolve(value, source, config_file.parent if config_file.is_file() else None, field)
    load_pack(reference)
    return reference


def _read(reference: str) -> tuple[str, str]:
    """(text, name to cite in errors) of a built-in pack or a pack file."""
    if is_builtin(reference):
        return builtin_text(reference), f"simulator/packs/{reference}.toml"
    from orgbench.core.storage import read_text

    return read_text(Path(reference), "pack file"), reference


def load_pack(reference: str = DEFAULT_PACK) -> Pack:
    """The validated pack a built-in name or a file path names (re-read each call, parsed once per text)."""
    text, source = _read(reference)
    return _parsed(text, source)


@lru_cache(maxsize=16)
def _parsed(text: str, source: str) -> Pack:
    from simulator.packs.parse import parse_pack

    from orgbench.core.storage import loads_toml

    raw = loads_toml(text, source)
    return parse_pack(raw, source, hashlib.sha256(text.encode("utf-8")).hexdigest())


def default_pack() -> Pack:
    """The default pack (``hardware``)."""
    return load_pack(DEFAULT_PACK)
