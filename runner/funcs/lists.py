"""Template functions: lists family (filled in by its owner)."""
