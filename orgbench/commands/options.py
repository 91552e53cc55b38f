"""Option values shared by several commands, and the command groups an area adds its commands to."""

from __future__ import annotations

from pathlib import Path

import click


def subgroup(cli: click.Group, name: str) -> click.Group:
    """The CLI's command group ``name`` (build, score, tables, assure), for an area's ``register`` to add to."""
    group = cli.commands[name]
    if not isinstance(group, click.Group):
        raise TypeError(f"orgbench {name} is a command, not a group")
    return group


def typed_options(*names: str) -> dict[str, str]:
    """Of the current command's parameters ``names``, those the user typed on the command line, each with the option
    that sets it (``{"worlds": "--world"}``), in the order of ``names``; a value typed equal to the default counts, a
    default left alone does not."""
    from click.core import ParameterSource

    context = click.get_current_context()
    options = {param.name: param.opts[0] for param in context.command.params}
    return {name: options[name] for name in names
            if name in options and context.get_parameter_source(name) is ParameterSource.COMMANDLINE}


def parse_seeds(text: str, option: str = "--seeds") -> tuple[int, ...]:
    """Seeds from "0-9" or "0,1,2" (InputError naming the option otherwise)."""
    from orgbench.core.errors import InputError

    seeds: list[int] = []
    try:
        for part in text.split(","):
            part = part.strip()
            if "-" in part:
                lo, hi = part.split("-", 1)
                seeds.extend(range(int(lo), int(hi) + 1))
            elif part:
                seeds.append(int(part))
    except ValueError:
        raise InputError(f"{option}: expected a list like 0-9 or 0,1,2, got {text!r}") from None
    if not seeds or any(s < 0 for s in seeds) or len(set(seeds)) != len(seeds):
        raise InputError(f"{option}: expected distinct non-negative seeds, got {text!r}")
    return tuple(seeds)


def check_cache_file(cache: Path | None) -> None:
    """Refuse a --cache file that does not exist yet where no file can be made (its folder must be one, or creatable)."""
    if cache is not None and not Path(cache).exists():
        check_out_dir(cache, option="--cache")


def check_out_dir(path: Path, marker: tuple[str, ...] = (), what: str = "", option: str = "--out", *,
                  into: bool = False) -> None:
    """Refuse an output directory that is a file, lies under one, or holds something other than ``what``.

    ``marker`` names files that an earlier output of the same kind has; a
    non-empty directory without them is never replaced (InputError naming ``option``).
    With ``into`` (commands that add files to the directory), a sealed world,
    suite or run (one with a MANIFEST.json) is refused: added files would break it.
    """
    from orgbench.core.errors import InputError

    from orgbench.outdir import check_path

    path = Path(path)
    check_path(path, option)
    if not path.exists():
        return
    if marker and any(path.iterdir()) and not all((path / name).is_file() for name in marker):
        raise InputError(f"{option} {path}: exists and is not {what}; refusing to replace it")
    if into and (path / "MANIFEST.json").is_file():
        raise InputError(f"{option} {path}: holds a MANIFEST.json (a world, suite or run written by orgbench); "
                         f"files added there would break it, choose another directory")
