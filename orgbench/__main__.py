"""``python -m orgbench`` runs the CLI."""

from orgbench.cli import main

main()
