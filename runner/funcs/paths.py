"""Template functions: paths family (filled in by its owner)."""
