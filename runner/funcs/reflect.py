"""Template functions: reflect family (filled in by its owner)."""
