"""The CLI's commands, one module per area; each has ``register(cli)`` (see ``orgbench.cli.COMMAND_MODULES``).

The package exports no names of its own: its modules are reached through the CLI.
"""

__all__: list[str] = []
