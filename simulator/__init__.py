"""A seeded, deterministic discrete-event simulation of an organisation."""
