"""simulator/processes."""
