"""Embedded default configurations (world.toml), read as package data; no names of its own."""

__all__: list[str] = []
