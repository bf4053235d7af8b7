"""Template functions: dicts family (filled in by its owner)."""
