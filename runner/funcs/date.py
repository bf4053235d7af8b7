"""Template functions: date family (filled in by its owner)."""
