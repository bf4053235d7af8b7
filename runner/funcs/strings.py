"""Template functions: strings family (filled in by its owner)."""
