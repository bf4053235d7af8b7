"""Template functions: urls family (filled in by its owner)."""
