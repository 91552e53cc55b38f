"""Suites derived from worlds, with ground truth by construction."""
