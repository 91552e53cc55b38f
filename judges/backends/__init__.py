"""judges/backends."""
