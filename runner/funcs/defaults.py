"""Template functions: defaults family (filled in by its owner)."""
