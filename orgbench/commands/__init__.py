"""orgbench/commands."""
