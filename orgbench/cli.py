"""The ``orgbench`` command line: one click group, with each area's commands in orgbench/commands/.

User errors (``InputError``) and OS errors (a read-only or full disk, no
permission) end as one line on stderr and exit code 2; a
Ctrl-C ends with exit code 130 and a line that says, for that command, what
was kept and whether running it again resumes.
"""

from __future__ import annotations

import importlib
import sys

import click

from orgbench.core.errors import InputError, one_line

#: Modules under orgbench/commands/ that add commands; each has ``register(cli)``.
COMMAND_MODULES = ("simulate", "cargo", "groundeval", "assurance", "reproduce", "browse", "tables", "assure_run",
                   "serve_local", "compare", "observe", "export", "sweep", "pack")

RESUMES = "run the same command again to resume"
#: What a Ctrl-C leaves, per command (first one or two words of the command line); the rest: ``ATOMIC``.
INTERRUPTED = {
    "judge": f"the judgments made so far are kept in --out; {RESUMES} (nothing finished is asked again)",
    "run-agent": f"answers a model already gave are journaled beside --out; {RESUMES} "
                 "(a built-in agent starts over; --out is written only when complete)",
    "reproduce": "every stage listed above as built is kept under --work-dir; run the same command again to "
                 "reuse them (the study folder being written was not replaced)",
    "assure run": "each finished stage is recorded under --work; run the same command again to redo the rest",
    "sweep": "every stage listed above as built is kept under --work-dir; run the same command again to resume "
             "(nothing finished is redone)",
}
#: What click 8.2 on raises for a group given no command (its message the whole help); click 8.1 prints the help itself.
_NO_ARGS_IS_HELP = getattr(click.exceptions, "NoArgsIsHelpError", ())
ATOMIC = "nothing was written (the output is put in place only when complete); run the command again to start over"


class OrgbenchGroup(click.Group):
    """A click group that turns InputError and usage errors into one line and exit code 2."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.UsageError as exc:
            if isinstance(exc, _NO_ARGS_IS_HELP):     # `orgbench` or a group alone: its help, as click shows it
                exc.show()
                sys.exit(exc.exit_code)
            where = exc.ctx.command_path if exc.ctx is not None else (prog_name or "orgbench")
            click.echo(f"error: {one_line(exc.format_message())} (see `{where} --help`)", err=True)
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            click.echo(f"error: {one_line(exc.format_message())}", err=True)
            sys.exit(exc.exit_code)
        except click.Abort:
            click.echo("interrupted", err=True)
            code = 130
        _forget_caught_interrupt()
        sys.exit(code if isinstance(code, int) else 0)

    def invoke(self, ctx: click.Context):
        words = [a for a in [*getattr(ctx, "_protected_args", []), *ctx.args] if not a.startswith("-")][:2]
        try:
            return super().invoke(ctx)
        except InputError as exc:
            click.echo(f"error: {exc.message}", err=True)
            ctx.exit(2)
        except OSError as exc:          # the disk, not the program: read-only, full, no permission, a symlink loop
            from orgbench.core.storage import os_problem

            where, doing = (exc.filename, "cannot be used") if exc.filename else ("output", "cannot be written")
            click.echo(f"error: {os_problem(where, exc, doing).message}", err=True)
            ctx.exit(2)
        except KeyboardInterrupt:
            click.echo(f"interrupted: {interrupt_message(words)}", err=True)
            ctx.exit(130)


def _forget_caught_interrupt() -> None:
    """Keep ``python -m orgbench`` from dying of SIGINT after a Ctrl-C it handled (exit -2 instead of 130).

    CPython sets a flag when a KeyboardInterrupt ends code run from a string
    (``dataclasses`` and ``namedtuple`` build their methods that way, so a
    Ctrl-C during an import can land there), even if a caller catches it;
    under ``-m`` the interpreter then kills itself with SIGINT at exit. Every
    string evaluation clears the flag first, so this one does.
    """
    eval("None")  # noqa: S307 - a constant; evaluated for its side effect on the flag


def interrupt_message(words: list[str]) -> str:
    """What a Ctrl-C leaves behind for the command named by its first words (true for that command)."""
    return INTERRUPTED.get(" ".join(words[:2])) or INTERRUPTED.get(words[0] if words else "") or ATOMIC


@click.group(cls=OrgbenchGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="orgbench")
def cli() -> None:
    """orgbench: simulated organisations and benchmarks with ground truth by construction.

    Simulate a world, build CARGO / GroundEval / trajectory suites from it,
    run judges and agents against them, and reproduce the papers' tables.
    """


@cli.group()
def build() -> None:
    """Build a suite from worlds: cargo, groundeval, trajectories."""


@cli.group()
def score() -> None:
    """Score answers against a suite: groundeval."""


@cli.group()
def tables() -> None:
    """Write the tables of a study from its runs or scores: cargo, groundeval, assurance."""


def _register_all() -> None:
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"orgbench.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"orgbench.commands.{name}":
                continue
            raise
        module.register(cli)
    _lock_writers(cli)


def _lock_writers(group: click.Group) -> None:
    """One writer per output directory: every command that writes --out/--work/--work-dir holds its lock."""
    from orgbench.outdir import with_one_writer

    for command in group.commands.values():
        if isinstance(command, click.Group):
            _lock_writers(command)
        else:
            with_one_writer(command)


_register_all()


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="orgbench")


if __name__ == "__main__":  # pragma: no cover
    main()
