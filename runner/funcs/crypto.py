"""Template functions: crypto family (filled in by its owner)."""
