"""Template functions: helm family (filled in by its owner)."""
