"""Template functions: numeric family (filled in by its owner)."""
