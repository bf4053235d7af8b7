"""Template functions: network family (filled in by its owner)."""
