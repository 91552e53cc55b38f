"""Embedded default configurations (world.toml)."""
