"""``orgbench pack check FILE``: validate a domain pack and name every field a study needs that it lacks."""

from __future__ import annotations

import click


@click.group("pack")
def pack_group() -> None:
    """Domain packs (docs/packs.md): check one."""


@pack_group.command("check")
@click.argument("reference")
def check(reference: str) -> None:
    """Validate the pack REFERENCE (a .toml file or a built-in name) and list what each study needs that it lacks.

    Exit 0 when every study can build from its worlds (gaps that only shrink a study are listed); exit 2, with
    the lines, when a field a study requires is missing or the pack is malformed.
    """
    from benchmark_builders.pack_needs import pack_needs
    from orgbench.core.errors import InputError
    from simulator.packs import load_pack, resolve

    pack = load_pack(resolve(reference, reference, None, field=""))
    needs = pack_needs(pack)
    click.echo(f"{reference}: pack {pack.name!r} ({pack.company}): {len(pack.procedures)} runbooks, "
               f"{len(pack.revisions)} revised, {len(pack.out_of_scope)} out of scope")
    for need in needs:
        click.echo(f"lacks {need.line()}")
    for study in ("cargo", "trajectories", "groundeval"):
        if not any(n.study == study for n in needs):
            click.echo(f"{study}: has every field it needs")
    required = [n for n in needs if n.required]
    if required:
        raise InputError(f"{reference}: {len(required)} field(s) a study requires are missing (listed above)")


def register(cli: click.Group) -> None:
    """Add ``pack`` to the CLI."""
    cli.add_command(pack_group)
